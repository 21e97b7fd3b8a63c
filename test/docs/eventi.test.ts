// docs/customers/eventi.md's examples, run as a customer's developer would: the Node reader (the file the page
// embeds, checked to be the same text) and the page's curl commands, against the real server on port 0.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { addIntegration } from '../../src/handoff/integrations.ts';
import { order, startTestService, tempDir, type TestCustomer, type TestService } from '../helpers/service.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const page = readFileSync(path.join(root, 'docs/customers/eventi.md'), 'utf8');
const example = path.join(root, 'docs/customers/examples/feed-reader.mjs');

let t: TestService;
let c1: TestCustomer;
let key: string;
let cursorFile: string;

async function submit(ref: string): Promise<string> {
  const res = await fetch(`${t.url}/api/v1/ordini`, { method: 'POST', body: JSON.stringify(order('C001', ref)), headers: { 'content-type': 'application/json', 'x-api-key': c1.apiKey } });
  assert.equal(res.status, 201);
  return String(((await res.json()) as { id_ordine: string }).id_ordine);
}

async function reader(): Promise<string[]> {
  const { stdout } = await run(process.execPath, [example], {
    env: { ...process.env, INTAKE_URL: t.url, INTAKE_INTEGRATION_KEY: key, CURSOR_FILE: cursorFile, ONCE: '1' }, timeout: 30_000,
  });
  return stdout.split('\n').filter(Boolean);
}

/** The page's ```sh blocks, in order. */
function shellBlocks(): string[] {
  return [...page.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

before(async () => {
  t = await startTestService();
  c1 = await t.customer('C001');
  key = (await addIntegration(t.service.store, 'MIS')).api_key;
  cursorFile = path.join(tempDir('feed-reader-'), 'eventi.cursor');
});
after(() => t.close());

void describe('docs/customers/eventi.md', () => {
  void it('embeds the Node reader exactly as the file the test runs', () => {
    assert.ok(page.includes(readFileSync(example, 'utf8')), 'the page shows the example file verbatim');
  });

  void it('the Node reader prints each event once, and goes on from its saved cursor', async () => {
    await submit('DOC-1');
    await submit('DOC-2');
    assert.deepEqual((await reader()).map((l) => l.split(' ').slice(0, 1).concat(l.split(' ').slice(2, 4))),
      [['ordine.registrato', 'C001', 'DOC-1'], ['ordine.registrato', 'C001', 'DOC-2']]);
    assert.deepEqual(await reader(), [], 'nothing new: nothing printed');
    await submit('DOC-3');
    const lines = await reader();
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /^ordine\.registrato \d{4}-\d{6} C001 DOC-3/);
  });

  void it('the curl commands read the feed and report a status', async () => {
    const id = await submit('DOC-4');
    const [feed, status] = shellBlocks();
    assert.ok(feed && status, 'two sh blocks');
    const env = { ...process.env, INTAKE_URL: t.url, INTAKE_INTEGRATION_KEY: key, CURSOR: readFileSync(cursorFile, 'utf8').trim(), ID_ORDINE: id };
    const out = (await run('bash', ['-euo', 'pipefail', '-c', feed], { env, timeout: 60_000 })).stdout;
    // Two JSON answers, one per curl: the first page, then what follows the reader's saved cursor (DOC-4).
    const answers = out.replace(/\}\{/g, '}\n{').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { eventi: { data: { riferimento_ordine: string } }[] });
    assert.equal(answers.length, 2);
    assert.deepEqual(answers[0]!.eventi.map((e) => e.data.riferimento_ordine), ['DOC-1', 'DOC-2', 'DOC-3', 'DOC-4']);
    assert.deepEqual(answers[1]!.eventi.map((e) => e.data.riferimento_ordine), ['DOC-4']);
    const reported = JSON.parse((await run('bash', ['-euo', 'pipefail', '-c', status], { env, timeout: 30_000 })).stdout) as { aggiornato: boolean; ordine: { stato_produzione: string } };
    assert.equal(reported.aggiornato, true);
    assert.equal(reported.ordine.stato_produzione, 'spedito');
  });

  void it('the resync loop lists every order with the integration key, page after page', async () => {
    await submit('DOC-5');
    const resync = shellBlocks()[3];
    assert.ok(resync, 'a fourth sh block');
    // Pages of 2 rather than 500, so that the loop follows cursors.
    const script = resync.replace('limite=500', 'limite=2');
    const today = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Rome' }).format(new Date());
    const env = { ...process.env, INTAKE_URL: t.url, INTAKE_INTEGRATION_KEY: key, DAL: today };
    const out = (await run('bash', ['-euo', 'pipefail', '-c', script], { env, timeout: 30_000 })).stdout;
    const pages = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { ordini: { riferimento_ordine: string }[] });
    assert.ok(pages.length >= 3, `${pages.length} pages`);
    assert.deepEqual(pages.flatMap((p) => p.ordini.map((o) => o.riferimento_ordine)), ['DOC-1', 'DOC-2', 'DOC-3', 'DOC-4', 'DOC-5']);
  });

  void it('the curl command decides a customer\'s request', async () => {
    const id = await submit('DOC-6');
    const call = (path: string, body: unknown, apiKey: string, method = 'POST') => fetch(`${t.url}${path}`, {
      method, body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    });
    assert.equal((await call(`/api/v1/ordini/${id}/stato`, { stato: 'in_lavorazione' }, key)).status, 200);
    const asked = await call(`/api/v1/ordini/${id}`, { ...order('C001', 'DOC-6'), righe: [{ codice_articolo: 'BV-STD', quantita: 750, unita_misura: 'PZ' }] }, c1.apiKey, 'PUT');
    assert.equal(asked.status, 202);
    const rid = ((await asked.json()) as { id_richiesta: string }).id_richiesta;
    const decide = shellBlocks()[2];
    assert.ok(decide?.includes('/richieste/'), 'the third sh block decides a request');
    const env = { ...process.env, INTAKE_URL: t.url, INTAKE_INTEGRATION_KEY: key, ID_ORDINE: id, ID_RICHIESTA: rid };
    const answer = JSON.parse((await run('bash', ['-euo', 'pipefail', '-c', decide!], { env, timeout: 30_000 })).stdout) as {
      aggiornato: boolean; richiesta: { stato_richiesta: string; nota: string }; ordine: { versione: number };
    };
    assert.equal(answer.aggiornato, true);
    assert.deepEqual([answer.richiesta.stato_richiesta, answer.richiesta.nota, answer.ordine.versione], ['accettata', 'Ristampiamo da domani', 2]);
  });
});
