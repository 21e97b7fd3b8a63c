// Connection churn against the socket servers (SMTP, FTP, SFTP): 100 new idle connections a second from 20
// addresses (127.0.0.2–21) keep the waiting slots full, so that every newcomer makes the guard close a waiting
// connection (src/channels/connection-guard.ts). Meanwhile real clients from 127.0.0.1 complete their sessions:
// swaks sending without pauses, an SMTP conversation and an FTP login pausing 1.5 s between commands, paramiko 3 s.
// Before, the oldest waiting connection was closed, which under churn was always the real client's.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, afterEach, before, describe, it } from 'node:test';
import { churn, loopbacks, type Churn } from '../helpers/flood.ts';
import { order, waitFor, type TestCustomer } from '../helpers/service.ts';
import { converse, startMail, type MailHarness } from './mail/helpers.ts';
import { rawFtp, run, startFiles, type FilesHarness } from './files/helpers.ts';

const CHURNERS = loopbacks(2, 20);
const PER_SECOND = 100;
const PAUSE_MS = 1500;
const PARAMIKO_PAUSED = path.join(path.dirname(fileURLToPath(import.meta.url)), 'files', 'clients', 'paramiko_paused.py');
/** Debian's python3 (python3-paramiko); a python3 found first on PATH may lack the module. */
const PYTHON = '/usr/bin/python3';

const pause = () => new Promise<void>((resolve) => setTimeout(resolve, PAUSE_MS));

let running: Churn | undefined;
afterEach(() => {
  running?.stop();
  running = undefined;
});

/** Start the churn and wait until the server is closing its connections to make room: the slots are full. */
async function churning(port: number, madeRoom: RegExp): Promise<Churn> {
  running = churn(port, CHURNERS, PER_SECOND);
  const c = running;
  await waitFor(() => (c.told(madeRoom) >= 20 ? true : undefined), 60_000, 'the churn to fill the waiting slots');
  return c;
}

void describe('SMTP under connection churn', () => {
  let h: MailHarness;
  let c1: TestCustomer;
  before(async () => {
    h = await startMail();
    c1 = await h.t.customer('C001');
  });
  after(() => h?.close());

  void it('swaks without pauses and a conversation with pauses both deliver their orders', async () => {
    const c = await churning(h.smtpPort, /421 4\.7\.0 (Connection closed to make room|Too many connections)/);
    const file = path.join(h.t.dataDir, 'ordine-churn.json');
    writeFileSync(file, JSON.stringify(order('C001', 'R-CHURN-1')));
    const swaks = await run('swaks', [
      '--server', `127.0.0.1:${h.smtpPort}`, '--from', 'acquisti@cliente.example', '--to', c1.mailbox,
      '--header', 'Subject: R-CHURN-1', '--attach-type', 'application/json', '--attach-name', 'ordine.json', '--attach', `@${file}`,
    ], undefined, 120_000);
    assert.equal(swaks.code, 0, `swaks: ${swaks.stdout.slice(-500)} ${swaks.stderr}`);
    assert.match(swaks.stdout, /<- {2}250 .*(queued|accepted|ok)/i);

    const body = JSON.stringify(order('C001', 'R-CHURN-2'));
    const replies = await converse(h.smtpPort, [
      pause, 'EHLO cliente.example\r\n', pause, 'MAIL FROM:<acquisti@cliente.example>\r\n', pause, `RCPT TO:<${c1.mailbox}>\r\n`,
      pause, 'DATA\r\n',
      `From: acquisti@cliente.example\r\nTo: ${c1.mailbox}\r\nSubject: R-CHURN-2\r\nMIME-Version: 1.0\r\n`
        + 'Content-Type: application/json; name="ordine.json"\r\nContent-Disposition: attachment; filename="ordine.json"\r\n\r\n'
        + `${body}\r\n.\r\n`,
    ], 120_000);
    assert.match(replies.at(-1)!, /^250 /, replies.join(''));
    await h.finished('C001', 'R-CHURN-1', 60_000);
    await h.finished('C001', 'R-CHURN-2', 60_000);
    assert.ok(c.opened() > 100, `the churn went on meanwhile (${c.opened()} connections)`);
  });
});

void describe('FTP and SFTP under connection churn', () => {
  let h: FilesHarness;
  let c1: TestCustomer;
  before(async () => {
    h = await startFiles();
    c1 = await h.t.customer('C001');
  });
  after(() => h?.close());

  void it('FTP: a login pausing 1.5 s between commands gets in and is served', async () => {
    const c = await churning(h.ftpPort, /421 (Connessione chiusa per fare posto|Troppe connessioni)/);
    const ftp = await rawFtp(h.ftpPort, '127.0.0.1');
    try {
      await pause();
      assert.match(await ftp.send(`USER ${c1.ftpUser}`), /^331 /);
      await pause();
      assert.match(await ftp.send(`PASS ${c1.ftpPassword}`), /^230 /);
      await pause();
      assert.match(await ftp.send('PWD'), /^257 /);
    } finally {
      ftp.socket.destroy();
    }
    assert.ok(c.opened() > 100, `the churn went on meanwhile (${c.opened()} connections)`);
  });

  void it('SFTP: paramiko pausing 3 s between the steps of its login gets in and lists the root', async () => {
    // SSH says nothing before closing: any connection the server closed means the slots are full.
    const c = await churning(h.sftpPort, /(?:)/);
    // 3 s: with the key exchange's own round trips, 1.5 s stayed within the ~2 s an idle connection lasted before.
    const r = await run(PYTHON, [PARAMIKO_PAUSED, String(h.sftpPort), c1.ftpUser, c1.ftpPassword, '3'], undefined, 120_000);
    assert.equal(r.code, 0, `paramiko: ${r.stderr}`);
    assert.match(r.stdout, /ordini/);
    assert.ok(c.opened() > 100, `the churn went on meanwhile (${c.opened()} connections)`);
  });
});
