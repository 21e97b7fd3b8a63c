/**
 * Upload client, run as its own process: ssh2 for SFTP (the big file with 64 writes of 32 KiB in flight, as
 * OpenSSH's sftp and ssh2's fastPut do), basic-ftp for FTP. Forked by the file benchmarks; spec in, result out over IPC.
 */
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { Client as FtpClient } from 'basic-ftp';
import ssh2 from 'ssh2';
import type { SFTPWrapper } from 'ssh2';
import { csvOrder } from '../lib/orders.ts';
import type { BigUpload, BigUploadResult, SmallFile, SmallUploads, SmallUploadsResult, UploadTarget } from './protocol.ts';

/** A connection or transfer that makes no progress for this long has failed. */
const TIMEOUT_MS = 60_000;

interface Session {
  put(remote: string, data: Buffer): Promise<void>;
  /** Uploads a file; resolves with when the last data was acknowledged (SFTP) or undefined (FTP: no such point). */
  putFile(local: string, remote: string): Promise<number | undefined>;
  negotiated?: unknown;
  close(): Promise<void>;
}

async function sftpSession(t: UploadTarget): Promise<Session> {
  const conn = new ssh2.Client();
  let negotiated: unknown;
  conn.on('handshake', (n) => { negotiated = n; });
  await new Promise<void>((resolve, reject) => {
    conn.once('ready', () => resolve());
    conn.once('error', reject);
    conn.connect({
      host: '127.0.0.1', port: t.port, username: t.username, password: t.password, privateKey: t.privateKey,
      readyTimeout: TIMEOUT_MS, tryKeyboard: false, hostVerifier: () => true,
    });
  });
  const sftp = await new Promise<SFTPWrapper>((resolve, reject) => conn.sftp((err, s) => (err ? reject(err) : resolve(s))));
  return {
    negotiated,
    put: (remote, data) => new Promise((resolve, reject) => sftp.writeFile(remote, data, (err) => (err ? reject(err) : resolve()))),
    putFile: (local, remote) => pipelinedPut(sftp, local, remote),
    close: async () => {
      conn.end();
    },
  };
}

/** Writes in flight and their size: what OpenSSH's sftp client and ssh2's fastPut use. */
const SFTP_WINDOW = 64;
const SFTP_CHUNK = 32 * 1024;

/**
 * fastPut's pipeline, written out so the time the last WRITE is acknowledged (the data is on the server) can be
 * told from the time the CLOSE is (the server has committed the upload).
 */
async function pipelinedPut(sftp: SFTPWrapper, local: string, remote: string): Promise<number> {
  const data = readFileSync(local);
  const handle = await new Promise<Buffer>((resolve, reject) => sftp.open(remote, 'w', (err, h) => (err ? reject(err) : resolve(h))));
  const inflight = new Set<Promise<void>>();
  let failed: Error | undefined;
  for (let off = 0; off < data.length && !failed; off += SFTP_CHUNK) {
    const len = Math.min(SFTP_CHUNK, data.length - off);
    const at = off;
    const w = new Promise<void>((resolve, reject) => sftp.write(handle, data, at, len, at, (err) => (err ? reject(err) : resolve())));
    const tracked = w.catch((e: Error) => { failed ??= e; }).finally(() => inflight.delete(tracked));
    inflight.add(tracked);
    if (inflight.size >= SFTP_WINDOW) await Promise.race(inflight);
  }
  await Promise.all(inflight);
  const written = performance.now();
  await new Promise<void>((resolve, reject) => sftp.close(handle, (err) => (err ? reject(err) : resolve())));
  if (failed) throw failed;
  return written;
}

async function ftpSession(t: UploadTarget): Promise<Session> {
  const client = new FtpClient(TIMEOUT_MS);
  await client.access({ host: '127.0.0.1', port: t.port, user: t.username, password: t.password, secure: false });
  return {
    put: async (remote, data) => {
      await client.uploadFrom(Readable.from([data]), remote);
    },
    putFile: async (local, remote) => {
      await client.uploadFrom(createReadStream(local), remote);
      return undefined;
    },
    close: async () => {
      client.close();
    },
  };
}

const open = (t: UploadTarget) => (t.protocol === 'sftp' ? sftpSession(t) : ftpSession(t));

async function big(spec: BigUpload): Promise<BigUploadResult> {
  const s = await open(spec.target);
  try {
    const t0 = performance.now();
    const written = await s.putFile(spec.localFile, spec.remotePath);
    const seconds = (performance.now() - t0) / 1000;
    return {
      bytes: statSync(spec.localFile).size, seconds, negotiated: s.negotiated,
      writeSeconds: written === undefined ? undefined : (written - t0) / 1000,
    };
  } finally {
    await s.close();
  }
}

async function small(spec: SmallUploads): Promise<SmallUploadsResult> {
  const files: SmallFile[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const t0 = performance.now();
  const from = t0 + spec.warmupSec * 1000;
  const to = from + spec.durationSec * 1000;
  const session = async (k: number) => {
    const s = await open(spec.target);
    try {
      for (let n = 0; n < spec.maxFilesPerSession && performance.now() < to; n++) {
        const ref = `${spec.prefix}-s${k}-${n}`;
        const name = `${ref}.csv`;
        const start = performance.now();
        try {
          await s.put(`${spec.remoteDir}/${name}`, Buffer.from(csvOrder(ref, spec.orderLines)));
        } catch (e) {
          errors++;
          firstError ??= (e as Error).message;
          continue;
        }
        const end = performance.now();
        files.push({ name, closedAt: Date.now(), uploadMs: end - start, inWindow: start >= from && end <= to });
      }
    } finally {
      await s.close();
    }
  };
  await Promise.all(Array.from({ length: spec.sessions }, (_, k) => session(k)));
  return { files, windowSec: spec.durationSec, errors, firstError };
}

process.once('message', (spec: BigUpload | SmallUploads) => {
  (spec.kind === 'big' ? big(spec) : small(spec)).then(
    (result) => process.send!(result, () => process.exit(0)),
    (err: unknown) => process.send!({ error: String((err as Error)?.stack ?? err) }, () => process.exit(1)),
  );
});
