// The FTP and SFTP servers under the attacks of issue 19, made for real on the loopback: idle connections that fill
// the slots (item 6) and wrong passwords sent to lock a customer out (item 9). Attackers connect from 127.0.0.2 and
// up, the customer from 127.0.0.1, with real clients (basic-ftp, OpenSSH sftp through sshpass, ssh2).
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import ssh2 from 'ssh2';
import { LIMITS } from '../../../src/channels/files/limits.ts';
import { waitFor, type TestCustomer } from '../../helpers/service.ts';
import { flood, loopbacks } from '../../helpers/flood.ts';
import { ftpClient, rawFtp, sftpBatch, ssh2Sftp, startFiles, type FilesHarness } from './helpers.ts';

/** A customer's whole round trip: log in and list the root, with both real clients. */
async function customerServed(h: FilesHarness, c: TestCustomer): Promise<void> {
  const ftp = await ftpClient(h.ftpPort, c.ftpUser, c.ftpPassword);
  try {
    const names = (await ftp.list('/')).map((e) => e.name);
    assert.ok(names.includes('ordini'), `FTP listing: ${names.join(', ')}`);
  } finally {
    ftp.close();
  }
  const r = await sftpBatch(h.sftpPort, c.ftpUser, c.ftpPassword, ['ls /']);
  assert.equal(r.code, 0, `OpenSSH sftp: ${r.stderr}`);
  assert.match(r.stdout, /ordini/);
}

void describe('file channels under attack', () => {
  let h: FilesHarness;
  let c1: TestCustomer;

  before(async () => {
    h = await startFiles();
    c1 = await h.t.customer('C001');
  });
  after(() => h?.close());

  for (const proto of ['ftp', 'sftp'] as const) {
    void it(`${proto}: 256 idle connections from one address do not shut the customer out`, async () => {
      const port = proto === 'ftp' ? h.ftpPort : h.sftpPort;
      const f = await flood(port, ['127.0.0.2'], LIMITS.connectionsPerServer);
      try {
        assert.equal(f.open().length, LIMITS.waitingPerAddress, 'only the per-address share stays open');
        await customerServed(h, c1);
      } finally {
        f.destroy();
      }
    });
  }

  void it('idle connections from many addresses: the oldest waiting ones give way, a logged-in session keeps working', async () => {
    const held = await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword);
    const fFtp = await flood(h.ftpPort, loopbacks(10, 16), LIMITS.waitingPerAddress);
    const fSftp = await flood(h.sftpPort, loopbacks(10, 16), LIMITS.waitingPerAddress);
    try {
      const waitingShare = LIMITS.connectionsPerServer - LIMITS.reservedForLoggedIn;
      assert.ok(fFtp.open().length <= waitingShare, `FTP waiting connections within their share (${fFtp.open().length})`);
      assert.ok(fFtp.closed().some((s) => /421 Connessione chiusa per fare posto/.test(s.text)), 'FTP: the oldest were told why');
      assert.ok(fSftp.open().length <= waitingShare, `SFTP waiting connections within their share (${fSftp.open().length})`);
      const list = await new Promise<unknown[]>((resolve, reject) => held.sftp.readdir('/', (err, l) => (err ? reject(err) : resolve(l))));
      assert.ok(list.length > 0, 'the session logged in before the flood still works');
      await customerServed(h, c1);
    } finally {
      fFtp.destroy();
      fSftp.destroy();
      held.conn.end();
    }
  });

  void it('wrong passwords from another address never lock the customer out (FTP and SFTP)', async () => {
    // FTP: six wrong passwords on parallel connections from 127.0.0.3, as a guesser sends them.
    const guesses = await Promise.all(Array.from({ length: 6 }, async (_, i) => {
      const raw = await rawFtp(h.ftpPort, '127.0.0.3');
      try {
        await raw.send(`USER ${c1.ftpUser}`);
        return await raw.send(`PASS sbagliata-${i}`);
      } finally {
        raw.socket.destroy();
      }
    }));
    assert.ok(guesses.every((r) => r.startsWith('530')), guesses.join(' | '));
    // SFTP: five more from 127.0.0.4 with ssh2.
    for (let i = 0; i < 5; i++) {
      const conn = new ssh2.Client();
      const err = await new Promise<Error | undefined>((resolve) => {
        conn.once('ready', () => resolve(undefined));
        conn.once('error', (e) => resolve(e));
        conn.connect({ host: '127.0.0.1', port: h.sftpPort, localAddress: '127.0.0.4', username: c1.ftpUser, password: `sbagliata-${i}`, readyTimeout: 20_000, tryKeyboard: false });
      });
      conn.end();
      assert.match(String(err), /authentication methods failed/i);
    }
    // The guessing address is locked, even with the right password...
    const locked = await rawFtp(h.ftpPort, '127.0.0.3');
    await locked.send(`USER ${c1.ftpUser}`);
    assert.match(await locked.send(`PASS ${c1.ftpPassword}`), /^530 .*Troppi tentativi/);
    locked.socket.destroy();
    // ...and the customer, from his own address, is served on both protocols.
    await customerServed(h, c1);
  });

  void it('FTP passive port race: a stray connection to the PASV port is dropped, the customer\'s transfer goes on', async () => {
    const ctl = await rawFtp(h.ftpPort);
    try {
      await ctl.send(`USER ${c1.ftpUser}`);
      assert.match(await ctl.send(`PASS ${c1.ftpPassword}`), /^230/);
      const pasv = await ctl.send('PASV');
      const m = /\((\d+),(\d+),(\d+),(\d+),(\d+),(\d+)\)/.exec(pasv);
      assert.ok(m, pasv);
      const port = Number(m[5]) * 256 + Number(m[6]);
      // The attacker, from another address, reaches the port first...
      const stray = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.5' });
      stray.on('error', () => undefined);
      let strayClosed = false;
      stray.on('close', () => {
        strayClosed = true;
      });
      await waitFor(() => (strayClosed ? true : undefined), 5000, 'the stray data connection to be dropped');
      // ...and the customer's listing still arrives over the same passive port.
      const data: Socket = connect({ port, host: '127.0.0.1' });
      let listing = '';
      data.on('data', (d: Buffer) => {
        listing += d.toString();
      });
      const ended = new Promise<void>((resolve) => data.on('close', () => resolve()));
      assert.match(await ctl.send('LIST /'), /^150/);
      await ended;
      assert.match(await ctl.next(), /^226/);
      assert.match(listing, /ordini/);
    } finally {
      ctl.socket.destroy();
    }
  });

  void it('FTP passive ports are taken at random in the range, not in order', async () => {
    const ctl = await rawFtp(h.ftpPort);
    try {
      await ctl.send(`USER ${c1.ftpUser}`);
      await ctl.send(`PASS ${c1.ftpPassword}`);
      const ports: number[] = [];
      for (let i = 0; i < 6; i++) {
        const m = /\((?:\d+,){4}(\d+),(\d+)\)/.exec(await ctl.send('PASV'));
        assert.ok(m);
        ports.push(Number(m[1]) * 256 + Number(m[2]));
      }
      const steps = ports.slice(1).map((p, i) => p - ports[i]!);
      assert.ok(steps.some((d) => Math.abs(d) > 1), `ports ${ports.join(', ')} follow one another`);
    } finally {
      ctl.socket.destroy();
    }
  });
});
