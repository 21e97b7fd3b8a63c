/**
 * Shared set-up of the file channel tests: the real service (store, intake) on a throw-away data directory, the
 * FTP and SFTP servers on ephemeral ports, and the real clients (OpenSSH sftp through sshpass, curl, ssh2, basic-ftp).
 */
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { Client as BasicFtpClient } from 'basic-ftp';
import ssh2 from 'ssh2';
import type { SFTPWrapper } from 'ssh2';
import type { StoredSubmission } from '../../../src/domain/types.ts';
import { startTestService, waitFor, type TestService } from '../../helpers/service.ts';

export interface FilesHarness {
  t: TestService;
  sftpPort: number;
  ftpPort: number;
  close(): Promise<void>;
  /** Wait until the customer has a processed submission with that file name; returns it with its outcome. */
  processed(customerCode: string, fileName: string, timeoutMs?: number): Promise<StoredSubmission>;
}

/** The real service with its FTP and SFTP channels on ephemeral ports (as main.ts wires them). */
export async function startFiles(env: Record<string, string> = {}): Promise<FilesHarness> {
  const t = await startTestService({ INTAKE_SFTP_PORT: '0', INTAKE_FTP_PORT: '0', INTAKE_FTP_PASV_RANGE: '30000-30999', ...env });
  const { sftp: sftpPort, ftp: ftpPort } = t.service.ports;
  if (sftpPort === undefined || ftpPort === undefined) {
    await t.close();
    throw new Error('the service did not start its FTP and SFTP channels');
  }
  return {
    t, sftpPort, ftpPort,
    close: () => t.close(),
    async processed(code, fileName, timeoutMs = 10_000) {
      const customer = await t.service.store.getCustomerByCode(code);
      if (!customer) throw new Error(`no customer ${code}`);
      return waitFor(async () => {
        const list = await t.service.store.listSubmissions({ customerId: customer.id, limit: 100 });
        const s = list.find((x) => x.fileName === fileName && x.state === 'processed');
        return s ? t.service.store.getSubmission(s.id) : undefined;
      }, timeoutMs, `processed submission ${fileName}`);
    },
  };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a command with optional stdin; killed after timeoutMs so that a hung client fails the test instead. */
export function run(cmd: string, args: string[], input?: string | Buffer, timeoutMs = 20_000): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    p.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('error', (e) => { clearTimeout(timer); reject(e); });
    p.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
    p.stdin.end(input);
  });
}

const SSH_OPTS = ['-oStrictHostKeyChecking=no', '-oUserKnownHostsFile=/dev/null', '-oPubkeyAuthentication=no',
  '-oPreferredAuthentications=password', '-oNumberOfPasswordPrompts=1', '-oLogLevel=ERROR'];

/**
 * OpenSSH's sftp in batch mode with a password given by sshpass. `-oBatchMode=no` comes before `-b`, which would
 * otherwise forbid the password prompt sshpass answers (ssh keeps the first value it is given).
 */
export function sftpBatch(port: number, user: string, password: string, commands: string[]): Promise<RunResult> {
  return run('sshpass', ['-p', password, 'sftp', '-oBatchMode=no', ...SSH_OPTS, '-P', String(port), '-b', '-', `${user}@127.0.0.1`], commands.join('\n') + '\n');
}

/** curl against sftp:// or ftp:// with the given extra arguments. */
export function curl(args: string[], user: string, password: string, input?: Buffer): Promise<RunResult> {
  return run('curl', ['-sS', '--insecure', '--user', `${user}:${password}`, ...args], input);
}

/** An ssh2 SFTP client session. */
export async function ssh2Sftp(port: number, username: string, password: string, readyTimeout = 10_000): Promise<{ sftp: SFTPWrapper; conn: ssh2.Client }> {
  const conn = new ssh2.Client();
  await new Promise<void>((resolve, reject) => {
    conn.once('ready', () => resolve());
    conn.once('error', reject);
    conn.connect({ host: '127.0.0.1', port, username, password, readyTimeout, tryKeyboard: false });
  });
  const sftp = await new Promise<SFTPWrapper>((resolve, reject) => conn.sftp((err, s) => (err ? reject(err) : resolve(s))));
  return { sftp, conn };
}

/**
 * 64 WRITEs of 32 KiB in flight, sent in the file's order, as OpenSSH's sftp (and WinSCP, FileZilla, paramiko) send
 * them. (ssh2's fastPut sends each as its local read ends, so not always in order: such an upload is stored whole at
 * its end.) `close` false leaves the handle open, an upload never finished.
 */
export async function pipelinedPut(sftp: SFTPWrapper, data: Buffer, remote: string, close = true): Promise<void> {
  const handle = await p<Buffer>((cb) => sftp.open(remote, 'w', cb));
  const inflight = new Set<Promise<void>>();
  for (let at = 0; at < data.length; at += 32 * 1024) {
    const w: Promise<void> = p((cb) => sftp.write(handle, data, at, Math.min(32 * 1024, data.length - at), at, cb)).finally(() => inflight.delete(w));
    inflight.add(w);
    if (inflight.size >= 64) await Promise.race(inflight);
  }
  await Promise.all(inflight);
  if (close) await p((cb) => sftp.close(handle, cb));
}

/** Promise form of an ssh2 SFTP callback call. */
export function p<T = void>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, v) => (err ? reject(err) : resolve(v as T))));
}

export function order(code: string, ref: string, righe = [{ codice_articolo: 'BV-STD', quantita: 500, unita_misura: 'PZ' }]) {
  return { codice_cliente: code, riferimento_ordine: ref, data_ordine: '2026-11-20', data_consegna: '2026-12-01', righe };
}

/** A basic-ftp client logged in (plain, or explicit TLS when `secure`). */
export async function ftpClient(port: number, user: string, password: string, secure = false): Promise<BasicFtpClient> {
  const client = new BasicFtpClient(10_000);
  await client.access({ host: '127.0.0.1', port, user, password, secure, secureOptions: { rejectUnauthorized: false } });
  return client;
}

/** Download a file with basic-ftp into memory. */
export async function ftpDownload(client: BasicFtpClient, remote: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const sink = new Writable({ write(chunk: Buffer, _e, cb) { chunks.push(chunk); cb(); } });
  await client.downloadTo(sink, remote);
  return Buffer.concat(chunks);
}

/**
 * A bare FTP control connection, for what a client library will not do (cut a transfer on purpose).
 * `send` writes a command and resolves with the next complete reply.
 */
export async function rawFtp(port: number, localAddress?: string): Promise<{ send(cmd: string): Promise<string>; next(): Promise<string>; socket: Socket }> {
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  let buffer = '';
  const waiting: ((line: string) => void)[] = [];
  const replies: string[] = [];
  socket.on('data', (d: Buffer) => {
    buffer += d.toString('utf8');
    let m: RegExpExecArray | null;
    // A final reply line is "ddd text"; "ddd-text" lines are continuations.
    while ((m = /^(\d{3}) .*\r\n/m.exec(buffer))) {
      const end = m.index + m[0].length;
      const reply = buffer.slice(0, end);
      buffer = buffer.slice(end);
      const w = waiting.shift();
      if (w) w(reply);
      else replies.push(reply);
    }
  });
  const next = () => new Promise<string>((resolve, reject) => {
    const r = replies.shift();
    if (r !== undefined) return resolve(r);
    const timer = setTimeout(() => reject(new Error('no FTP reply within 10 s')), 10_000);
    waiting.push((line) => { clearTimeout(timer); resolve(line); });
  });
  await next(); // greeting
  return {
    socket, next,
    send(cmd) {
      socket.write(cmd + '\r\n');
      return next();
    },
  };
}
