import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import iconv from 'iconv-lite';
import { v7 as uuidv7 } from 'uuid';
import { createAuthenticator } from '../../src/auth/authenticator.ts';
import { openTempStore, tempDataDir } from '../auth/temp-store.ts';
import { failed, ok, runCli, spawnCli } from './run.ts';

interface Credentials {
  codice_cliente: string;
  nome: string;
  api_key: string;
  mailbox: string;
  ftp_user: string;
  ftp_password: string;
}

/** Open the store the CLI wrote (after the child has exited), run fn, close it. */
async function inStore<T>(dataDir: string, fn: (t: Awaited<ReturnType<typeof openTempStore>>) => Promise<T>): Promise<T> {
  const t = await openTempStore(dataDir);
  try {
    return await fn(t);
  } finally {
    await t.store.close();
  }
}

void describe('order-intake CLI', () => {
  let dataDir: string;
  let creds: Credentials;

  before(async () => {
    dataDir = await tempDataDir('intake-cli-');
  });
  after(async () => rm(dataDir, { recursive: true, force: true }));

  void it('submissions list on an empty store says so (and --json gives [])', async () => {
    assert.match(ok(await runCli(dataDir, ['submissions', 'list'])).stdout, /^no submissions\n$/);
    assert.deepEqual(JSON.parse(ok(await runCli(dataDir, ['submissions', 'list', '--json'])).stdout), []);
    assert.match(ok(await runCli(dataDir, ['orders', 'list'])).stdout, /^no orders\n$/);
  });

  void it('customer add --json prints credentials that authenticate', async () => {
    // A real child process: the credentials an operator pipes into a script come out on its stdout.
    const r = ok(await spawnCli(dataDir, ['customer', 'add', '--code', 'C001', '--name', 'Tipografia Rossi', '--json']));
    creds = JSON.parse(r.stdout) as Credentials;
    assert.deepEqual(Object.keys(creds).sort(), ['api_key', 'codice_cliente', 'ftp_password', 'ftp_user', 'mailbox', 'nome']);
    assert.equal(creds.codice_cliente, 'C001');
    assert.equal(creds.nome, 'Tipografia Rossi');
    assert.match(creds.mailbox, /^c001-[a-z2-7]{16}@ordini\.test$/);
    assert.equal(creds.ftp_user, 'c001');

    await inStore(dataDir, async ({ store }) => {
      const auth = createAuthenticator(store);
      assert.equal((await auth.apiKey(creds.api_key))?.customerCode, 'C001');
      assert.equal((await auth.password(creds.ftp_user, creds.ftp_password, '127.0.0.1'))?.customerCode, 'C001');
      assert.equal((await store.getCustomerByMailbox(creds.mailbox))?.code, 'C001');
    });
  });

  void it('customer add without --json prints a block with a warning that secrets are shown once', async () => {
    const r = ok(await runCli(dataDir, ['customer', 'add', '--code', 'C002', '--name', 'Grafiche Bianchi']));
    assert.match(r.stdout, /API key .*oik_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}/);
    assert.match(r.stdout, /Order mailbox .*c002-[a-z2-7]{16}@ordini\.test/);
    assert.match(r.stdout, /FTP\/SFTP user: +c002/);
    assert.match(r.stdout, /FTP\/SFTP password: +[0-9A-Za-z]{20}/);
    assert.match(r.stdout, /shown only now/);
  });

  void it('a duplicate code fails with exit 1 and a clear message', async () => {
    failed(await runCli(dataDir, ['customer', 'add', '--code', 'C001', '--name', 'Altro', '--json']), /a customer with code C001 already exists/);
    failed(await runCli(dataDir, ['customer', 'add', '--code', 'c001', '--name', 'Altro']), /a customer with code C001 already exists/);
    failed(await runCli(dataDir, ['customer', 'add', '--code', 'bad code', '--name', 'x']), /customer code "bad code" is not valid/);
  });

  void it('customer list shows the customers', async () => {
    const list = JSON.parse(ok(await runCli(dataDir, ['customer', 'list', '--json'])).stdout) as { codice_cliente: string }[];
    assert.deepEqual(list.map((c) => c.codice_cliente), ['C001', 'C002']);
    assert.match(ok(await runCli(dataDir, ['customer', 'list'])).stdout, /^CODE +NAME +MAILBOX +CREATED +STATE\nC001 +Tipografia Rossi/);
  });

  void it('key rotate prints a new key; the old one stops working', async () => {
    const r = JSON.parse(ok(await runCli(dataDir, ['key', 'rotate', '--code', 'c001', '--json'])).stdout) as { codice_cliente: string; api_key: string };
    assert.equal(r.codice_cliente, 'C001');
    await inStore(dataDir, async ({ store }) => {
      const auth = createAuthenticator(store);
      assert.equal(await auth.apiKey(creds.api_key), undefined);
      assert.equal((await auth.apiKey(r.api_key))?.customerCode, 'C001');
    });
    failed(await runCli(dataDir, ['key', 'rotate', '--code', 'NOPE']), /no customer with code NOPE/);
  });

  void it('articles import reads a generated Windows-1252 file with ; delimiter', async () => {
    const file = path.join(dataDir, 'articoli.csv');
    const lines = ['codice_articolo;descrizione;unita_misura', 'BV-STD;Biglietti da visita, qualità alta;PZ', 'CAR-A4;Carta A4 80 g/m²;rs'];
    for (let i = 0; i < 500; i++) lines.push(`GEN-${i};Articolo n° ${i} perché sì;CF`);
    await writeFile(file, iconv.encode(`${lines.join('\r\n')}\r\n`, 'win1252'));

    const r = ok(await runCli(dataDir, ['articles', 'import', file]));
    assert.match(r.stdout, /imported 502 article rows from .*articoli\.csv; the catalog holds 502 articles/);
    assert.equal(r.stderr, '', 'no progress bar when stderr is not a terminal');

    await inStore(dataDir, async ({ store }) => {
      assert.equal(await store.countArticles(), 502);
      assert.equal((await store.knownArticles(['BV-STD', 'CAR-A4', 'GEN-499', 'GEN-500'])).size, 3);
    });
  });

  void it('articles import of a bad file exits 1 naming the line', async () => {
    const file = path.join(dataDir, 'bad.csv');
    await writeFile(file, 'codice_articolo;descrizione;unita_misura\nA;a;PZ\n;b;PZ\n');
    failed(await runCli(dataDir, ['articles', 'import', file]), /bad\.csv: line 3: codice_articolo is missing/);
    failed(await runCli(dataDir, ['articles', 'import', path.join(dataDir, 'none.csv')]), /none\.csv: no such file/);
  });

  void it('units add and list', async () => {
    assert.match(ok(await runCli(dataDir, ['units', 'add', '--code', 'pz', '--description', 'Pezzi'])).stdout, /unit PZ added: Pezzi/);
    assert.match(ok(await runCli(dataDir, ['units', 'add', '--code', 'BL', '--description', 'Blocco'])).stdout, /unit BL added/);
    assert.match(ok(await runCli(dataDir, ['units', 'add', '--code', 'PZ', '--description', 'Pezzi singoli'])).stdout, /unit PZ updated/);
    const list = JSON.parse(ok(await runCli(dataDir, ['units', 'list', '--json'])).stdout) as { code: string; description: string }[];
    assert.deepEqual(list, [{ code: 'BL', description: 'Blocco' }, { code: 'PZ', description: 'Pezzi singoli' }]);
    assert.match(ok(await runCli(dataDir, ['units', 'list'])).stdout, /^CODE +DESCRIPTION\nBL +Blocco\nPZ +Pezzi singoli\n$/);
    failed(await runCli(dataDir, ['units', 'add', '--code', 'P Z', '--description', 'x']), /unit code "P Z" is not valid/);
  });

  void it('submissions show prints metadata and text, and --raw gives the bytes unchanged', async () => {
    const text = Buffer.from('{"codice_cliente":"C001","nota":"\u001b[31mrosso"}');
    const binary = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0xff, 0xfe, 0x00, 0xe8]);
    const ids = await inStore(dataDir, async ({ store }) => {
      const customer = await store.getCustomerByCode('C001');
      assert.ok(customer);
      const save = (raw: Buffer, fileName: string) => store.saveSubmission({
        id: uuidv7(), customerId: customer.id, customerCode: 'C001', channel: 'ftp', fileName, raw, meta: { remote: '127.0.0.1' },
        singleOrder: false, sha256: createHash('sha256').update(raw).digest('hex'), receivedAt: new Date().toISOString(),
      });
      return [(await save(text, 'ordine.json')).id, (await save(binary, 'strano.bin')).id];
    });
    const [textId, binId] = ids as [string, string];

    const shown = ok(await runCli(dataDir, ['submissions', 'show', textId]));
    assert.match(shown.stdout, /customer: +C001/);
    assert.match(shown.stdout, /file name: +ordine\.json/);
    assert.match(shown.stdout, /state: +received/);
    assert.match(shown.stdout, /\(not processed yet\)/);
    assert.ok(shown.stdout.includes('\\x1b[31mrosso'), 'terminal escapes from a customer file are shown, not executed');
    assert.ok(!shown.stdout.includes('\u001b'));

    const bin = ok(await runCli(dataDir, ['submissions', 'show', binId]));
    assert.match(bin.stdout, /raw file: 8 bytes, not valid UTF-8/);
    assert.match(bin.stdout, /50 4b 03 04 ff fe 00 e8/);

    assert.deepEqual(ok(await runCli(dataDir, ['submissions', 'show', binId, '--raw'])).stdoutBytes, binary);
    const json = JSON.parse(ok(await runCli(dataDir, ['submissions', 'show', binId, '--json'])).stdout) as { raw_base64: string; size: number };
    assert.deepEqual(Buffer.from(json.raw_base64, 'base64'), binary);
    assert.equal(json.size, 8);

    const list = ok(await runCli(dataDir, ['submissions', 'list', '--state', 'received']));
    assert.match(list.stdout, /^ID +RECEIVED +CUSTOMER +CHANNEL +FILE +STATE +ESITO +RETRIES\n/);
    assert.ok(list.stdout.includes(textId) && list.stdout.includes(binId));

    failed(await runCli(dataDir, ['submissions', 'show', 'no-such-id']), /no submission with id no-such-id/);
  });

  void it('submissions reprocess prints the outcome as JSON; the order then shows in orders list', async () => {
    const order = {
      codice_cliente: 'C001', riferimento_ordine: 'CLI-1', data_ordine: '2025-02-03',
      righe: [{ codice_articolo: 'BV-STD', quantita: 250, unita_misura: 'PZ' }],
    };
    const raw = Buffer.from(JSON.stringify(order));
    const id = await inStore(dataDir, async ({ store }) => {
      const customer = await store.getCustomerByCode('C001');
      assert.ok(customer);
      const s = await store.saveSubmission({
        id: uuidv7(), customerId: customer.id, customerCode: 'C001', channel: 'ftp', fileName: 'cli-1.json', mediaType: 'application/json',
        raw, meta: {}, singleOrder: false, sha256: createHash('sha256').update(raw).digest('hex'), receivedAt: new Date().toISOString(),
      });
      return s.id;
    });

    const r = ok(await runCli(dataDir, ['submissions', 'reprocess', id]));
    const outcome = JSON.parse(r.stdout) as { submissionId: string; esito: string; orders: { numero_ordine?: string }[] };
    assert.equal(outcome.submissionId, id);
    assert.equal(outcome.esito, 'ok', r.stdout);
    const numero = outcome.orders[0]?.numero_ordine;
    assert.match(numero ?? '', /^\d{4}-\d{6}$/);

    const list = ok(await runCli(dataDir, ['orders', 'list', '--customer', 'c001']));
    assert.match(list.stdout, /^NUMERO +ID +CLIENTE +RIFERIMENTO +DATA +RIGHE +CANALE +SITO +REGISTRATO\n/);
    assert.ok(list.stdout.includes(`${numero}`) && list.stdout.includes('CLI-1'));
    const json = JSON.parse(ok(await runCli(dataDir, ['orders', 'list', '--json', '--limit', '5'])).stdout) as { riferimento_ordine: string }[];
    assert.deepEqual(json.map((o) => o.riferimento_ordine), ['CLI-1']);

    failed(await runCli(dataDir, ['submissions', 'reprocess', 'no-such-id']), /no submission with id no-such-id/);
  });

  void it('bad options and unknown customers fail with exit 1', async () => {
    failed(await runCli(dataDir, ['orders', 'list', '--customer', 'NOPE']), /no customer with code NOPE/);
    failed(await runCli(dataDir, ['orders', 'list', '--limit', '0']), /must be a whole number from 1 to 1000/);
    failed(await runCli(dataDir, ['submissions', 'list', '--state', 'bogus']), /Allowed choices are received, processed, failed/);
    failed(await runCli(dataDir, ['customer', 'add', '--code', 'C9']), /required option '--name <name>' not specified/);
  });

  void it('shows the stack only when INTAKE_LOG_LEVEL=debug', async () => {
    // A real child process: exit status 1, the error line first on stderr, then the stack.
    const r = await spawnCli(dataDir, ['key', 'rotate', '--code', 'NOPE'], { INTAKE_LOG_LEVEL: 'debug' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: no customer with code NOPE\n/);
    assert.match(r.stderr, /\n\s+at /);
  });

  void it('a bad setting is reported as an error, not a crash', async () => {
    failed(await runCli(dataDir, ['units', 'list'], { INTAKE_DATABASE_URL: 'mysql://x' }), /INTAKE_DATABASE_URL must start with postgres:\/\//);
  });
});
