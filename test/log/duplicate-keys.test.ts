// Every JSON log line has each key once. pino writes all the bindings of a logger chain, so a key bound by a channel
// and again by a module below it (`"channel":"mail","channel":"smtp"`) came out twice; log stores reject such lines
// or keep either value. The service runs at debug level with every file and mail channel, and real clients (curl,
// swaks) drive each path that logs: logins good and bad, uploads, listings, a mail message and its reply.
import { sharedDnsAddress } from '../helpers/dns-server.ts';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { provisionCustomer } from '../../src/customers/provision.ts';
import { createLogger } from '../../src/log.ts';
import { startService, type Service } from '../../src/main.ts';
import { TEST_ARTICLES, order, tempDir, waitFor } from '../helpers/service.ts';

/** The top-level keys of one compact JSON object, in order, repeats included. */
export function topLevelKeys(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 0;
  let last = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') {
        inString = false;
        last = line.slice(start, i + 1);
      }
      continue;
    }
    if (ch === '"') {
      inString = true;
      start = i;
    } else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') depth--;
    else if (ch === ':' && depth === 1) keys.push(JSON.parse(last) as string);
  }
  return keys;
}

const lines: string[] = [];
let service: Service;
const dataDir = tempDir();

function run(cmd: string, args: string[], input?: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const p = execFile(cmd, args, { timeout: 20_000 }, (err, _stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stderr }));
    p.stdin?.end(input);
  });
}

before(async () => {
  const config = loadConfig({
    INTAKE_DATA_DIR: dataDir, INTAKE_HOST: '127.0.0.1', INTAKE_HTTP_PORT: '0', INTAKE_SFTP_PORT: '0', INTAKE_FTP_PORT: '0',
    INTAKE_SMTP_PORT: '0', INTAKE_FTP_PASV_RANGE: '34000-34099', INTAKE_MAIL_DOMAIN: 'ordini.test', INTAKE_SMTP_RELAY: 'smtp://127.0.0.1:9',
    INTAKE_DNS_SERVERS: await sharedDnsAddress(),
  });
  const capture = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      cb();
    },
  });
  service = await startService(config, createLogger('debug', { format: 'json', destination: capture }));
  await service.store.upsertArticles(TEST_ARTICLES);
});
after(() => service.stop());

test('no log line carries a key twice, across logins, uploads, listings and mail', async () => {
  const c = await provisionCustomer(service.store, { code: 'C001', name: 'Cliente' }, 'ordini.test');
  const user = `${c.ftpUser}:${c.ftpPassword}`;
  const body = JSON.stringify(order('C001', 'LOG-1'));
  const { sftp, ftp, smtp } = service.ports;
  assert.equal((await run('curl', ['-sS', '-k', '-u', user, '-T', '-', `sftp://127.0.0.1:${sftp}/ordini/log-sftp.json`], body)).code, 0);
  assert.equal((await run('curl', ['-sS', '-u', user, '-T', '-', `ftp://127.0.0.1:${ftp}/ordini/log-ftp.json`], body.replace('LOG-1', 'LOG-2'))).code, 0);
  assert.notEqual((await run('curl', ['-sS', '-k', '-u', `${c.ftpUser}:sbagliata`, `sftp://127.0.0.1:${sftp}/ordini/`])).code, 0);
  assert.notEqual((await run('curl', ['-sS', '-u', `${c.ftpUser}:sbagliata`, `ftp://127.0.0.1:${ftp}/ordini/`])).code, 0);
  assert.equal((await run('curl', ['-sS', '-k', '-u', user, `sftp://127.0.0.1:${sftp}/ordini/`])).code, 0);
  assert.equal((await run('swaks', ['--server', `127.0.0.1:${smtp}`, '--to', c.mailbox, '--from', 'a@cliente.it', '--header', 'Subject: log',
    '--body', 'niente allegati', '--silent', '2'])).code, 0);
  const res = await fetch(`http://127.0.0.1:${service.ports.http}/api/v1/ordini`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': c.apiKey }, body: body.replace('LOG-1', 'LOG-3'),
  });
  assert.equal(res.status, 201);
  await waitFor(() => lines.some((l) => l.includes('"mail message processed"')) || undefined, 15_000, 'the mail message to be processed');
  await waitFor(() => lines.some((l) => l.includes('log-ftp.json')) || undefined, 5_000, 'the FTP upload to be logged');

  const channels = new Set<string>();
  for (const line of lines) {
    const keys = topLevelKeys(line);
    const repeated = keys.filter((k, i) => keys.indexOf(k) !== i);
    assert.deepEqual(repeated, [], `a key is repeated in ${line}`);
    const rec = JSON.parse(line) as { channel?: string };
    if (rec.channel) channels.add(rec.channel);
  }
  for (const ch of ['sftp', 'ftp', 'smtp', 'mail', 'http']) assert.ok(channels.has(ch), `lines of the ${ch} channel were checked: ${[...channels].join()}`);
});
