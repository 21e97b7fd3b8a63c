// Portal uploads over real HTTP with a real multipart client (curl -F), logged in as a customer: files are written
// to the spool as they arrive and wait for the memory budget the file channels share (INTAKE_UPLOAD_MEMORY_BYTES),
// and a request with more files than allowed is refused whole, with nothing registered.
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { uploadMemoryCost } from '../../../src/channels/upload-memory.ts';
import { Client } from '../../e2e/browser.ts';
import { run } from '../files/helpers.ts';
import { order, startTestService, TEST_ARTICLES, type TestCustomer, type TestService } from '../../helpers/service.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'portal-upload-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A logged-in portal session: its cookies and the upload form's CSRF token, for curl. */
async function portalSession(t: TestService, c: TestCustomer): Promise<{ cookie: string; url: string }> {
  const client = new Client(t.url);
  assert.equal((await client.login('portale', c.ftpUser, c.ftpPassword)).status, 303);
  const home = await client.send('GET', '/portale/');
  const action = /action="(\/portale\/invia\?_csrf=[^"]+)"/.exec(home.body)?.[1];
  assert.ok(action, 'the upload form names its CSRF token');
  return { cookie: client.header(), url: `${t.url}${action}` };
}

/** curl -F with every file as a `files` part; prints the status on the last line. */
async function curlUpload(s: { cookie: string; url: string }, files: string[]): Promise<{ status: number; body: string }> {
  const args = ['-sS', '-H', `cookie: ${s.cookie}`, '-w', '\n%{http_code}', s.url];
  for (const f of files) args.push('-F', `files=@${f}`);
  const r = await run('curl', args, undefined, 300_000);
  assert.equal(r.code, 0, r.stderr);
  const cut = r.stdout.lastIndexOf('\n');
  return { status: Number(r.stdout.slice(cut + 1)), body: r.stdout.slice(0, cut) };
}

function spoolFiles(t: TestService): string[] {
  return readdirSync(path.join(t.dataDir, 'spool', 'portal'));
}

void describe('portal: a request with too many files', () => {
  let t: TestService;
  let c: TestCustomer;
  before(async () => {
    t = await startTestService();
    c = await t.customer('C001');
  });
  after(() => t?.close());

  void it('21 files are refused whole with 413 and nothing is registered; 20 are all registered', async () => {
    const files = Array.from({ length: 21 }, (_, i) => {
      const f = path.join(dir, `molti-${i}.json`);
      writeFileSync(f, JSON.stringify(order('C001', `R-MOLTI-${i}`)));
      return f;
    });
    const session = await portalSession(t, c);
    const refused = await curlUpload(session, files);
    assert.equal(refused.status, 413, refused.body.slice(0, 300));
    const customer = (await t.service.store.getCustomerByCode('C001'))!;
    assert.deepEqual(await t.service.store.searchSubmissions({ customerId: customer.id, limit: 50 }), [], 'nothing registered');
    assert.match(refused.body, /Troppi file in un solo invio: al massimo 20\. Nessun file è stato registrato/);
    assert.deepEqual(spoolFiles(t), [], 'nothing left in the spool');

    const taken = await curlUpload(session, files.slice(0, 20));
    assert.equal(taken.status, 200, taken.body.slice(0, 300));
    const stored = await t.service.store.searchSubmissions({ customerId: customer.id, limit: 50 });
    assert.equal(stored.length, 20);
    for (let i = 0; i < 20; i++) assert.ok(taken.body.includes(`molti-${i}.json`), `molti-${i}.json is on the page`);
    assert.deepEqual(spoolFiles(t), []);
  });
});

/** A CSV of orders of 200 lines, about `bytes` long. */
function writeCsv(file: string, code: string, tag: string, bytes: number): void {
  const fd = openSync(file, 'w');
  let size = 0;
  try {
    size += writeSync(fd, 'codice_cliente;riferimento_ordine;data_ordine;data_consegna;codice_articolo;quantita;unita_misura\n');
    for (let o = 0; size < bytes; o++) {
      let chunk = '';
      for (let line = 0; line < 200; line++) {
        const a = TEST_ARTICLES[line % TEST_ARTICLES.length]!;
        chunk += `${code};${tag}-${o};2026-01-15;2026-02-02;${a.codice_articolo};${100 + line};${a.unita_misura}\n`;
      }
      size += writeSync(fd, chunk);
    }
  } finally {
    closeSync(fd);
  }
}

void describe('portal: large uploads under the memory budget', () => {
  let t: TestService;
  let c: TestCustomer;
  before(async () => {
    // A budget smaller than any file: each file is stored and judged alone, the others wait their turn.
    t = await startTestService({ INTAKE_UPLOAD_MEMORY_BYTES: '1' });
    c = await t.customer('C001');
  });
  after(() => t?.close());

  void it('four parallel large uploads by one customer take the budget one at a time, and each is registered and answered', async () => {
    const files = ['a', 'b', 'c', 'd'].map((tag) => {
      const f = path.join(dir, `grande-${tag}.csv`);
      writeCsv(f, 'C001', `BIG-${tag.toUpperCase()}`, 6 * 2 ** 20);
      return f;
    });
    const cost = Math.max(...await Promise.all(files.map((f) => uploadMemoryCost(f, path.basename(f), statSync(f).size))));
    const session = await portalSession(t, c);
    const answers = await Promise.all(files.map((f) => curlUpload(session, [f])));
    const budget = t.service.uploadBudget;
    // Before, the portal read each file whole into memory and judged it beside the others, outside the budget
    // (peak 0); now each took the budget's room, and never two at once (two would have made the peak twice a cost).
    assert.equal(budget.peak(), cost, `peak ${budget.peak()} against one file's cost ${cost}`);
    assert.equal(budget.inUse(), 0);
    for (const [i, a] of answers.entries()) {
      assert.equal(a.status, 200, a.body.slice(0, 300));
      assert.ok(a.body.includes(path.basename(files[i]!)), `${files[i]} is answered`);
      assert.doesNotMatch(a.body, /non è stato registrato/);
    }
    const customer = (await t.service.store.getCustomerByCode('C001'))!;
    const stored = await t.service.store.searchSubmissions({ customerId: customer.id, limit: 10 });
    assert.deepEqual(stored.map((s) => s.fileName).sort(), files.map((f) => path.basename(f)).sort());
    for (const s of stored) assert.equal(s.esito, 'ok', `${s.fileName}: ${s.state}`);
    assert.deepEqual(spoolFiles(t), []);
  });
});
