/**
 * Experiment behind issue 16 target 5 (SFTP ≥ 50 % of OpenSSH): does the SSH transport go faster in a worker thread
 * with its own small heap? A bare ssh2 SFTP server that spools WRITEs with the service's SpoolWriter (no fsync, no
 * store) is run in a process whose main heap holds ~35 MB alive with --heap-growing-percent=30, as the service's
 * does: once on that main thread, once in a worker thread of the same process; and, as controls, on a main thread
 * without the 35 MB and/or without the growth limit. Each takes the 50 MiB upload of the sftp benchmark's client.
 * Printed per mode: MiB/s to the CLOSE, CPU seconds of the server process for the upload, mark-compact collections.
 *
 *   node --import tsx bench/files/ssh-heap-experiment.ts [rounds] [modes]     # modes: main,worker (default), main-nogrow,
 *                                                                               # main-noballast, main-nogrow-noballast
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import v8 from 'node:v8';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import ssh2 from 'ssh2';
import { SpoolWriter } from '../../src/channels/files/spool.ts';
import { askOnce } from '../lib/children.ts';
import type { BigUploadResult } from './protocol.ts';

const { STATUS_CODE } = ssh2.utils.sftp;
const MIB = 2 ** 20;

/** The server: accepts anyone, one upload per sftp channel, WRITE replies in request order as the service sends them. */
function serve(hostKey: string, dir: string, report: (port: number) => void): void {
  const server = new ssh2.Server({ hostKeys: [hostKey] }, (client) => {
    (client as unknown as { setNoDelay(b: boolean): void }).setNoDelay(true);
    client.on('authentication', (ctx) => ctx.accept());
    client.on('error', () => undefined);
    client.on('session', (accept) => accept().on('sftp', (acceptSftp) => {
      const sftp = acceptSftp();
      let writer: SpoolWriter | undefined;
      let replied = Promise.resolve();
      sftp.on('OPEN', (reqid: number) => void SpoolWriter.open(path.join(dir, `up-${Date.now()}`), 2 ** 31, 'exclusive').then((w) => {
        writer = w;
        sftp.handle(reqid, Buffer.from([0, 0, 0, 1]));
      }));
      sftp.on('WRITE', (reqid: number, _h: Buffer, offset: number, data: Buffer) => {
        const written = writer!.write(data, offset);
        const previous = replied;
        replied = Promise.all([written, previous]).then(() => void sftp.status(reqid, STATUS_CODE.OK));
      });
      sftp.on('CLOSE', (reqid: number) => void replied.then(() => writer!.close({ sync: false })).then(() => writer!.discard())
        .then(() => sftp.status(reqid, STATUS_CODE.OK)));
      sftp.on('end', () => sftp.end());
    }));
  });
  server.listen(0, '127.0.0.1', () => report((server.address() as { port: number }).port));
}

/** Child: the process under test. Prints `PORT n` once listening. */
function child(mode: string, dir: string): void {
  if (!mode.includes('nogrow')) v8.setFlagsFromString('--heap-growing-percent=30');
  // ~35 MB of small objects alive, as the service's heap holds after start: every full collection marks them.
  const ballast: unknown[] = [];
  for (let i = 0; i < (mode.includes('noballast') ? 0 : 300_000); i++) ballast.push({ a: i, b: `s${i}`, c: [i, i + 1], d: { e: i } });
  (globalThis as { ballast?: unknown }).ballast = ballast;
  const hostKey = ssh2.utils.generateKeyPairSync('ed25519').private;
  if (!mode.startsWith('worker')) return serve(hostKey, dir, (port) => console.log(`PORT ${port}`));
  // Under tsx a worker does not inherit the loader (Node 20): registered first, as src/store/sqlite/offload.ts does.
  const tsx = import.meta.resolve('tsx/esm/api');
  const w = new Worker(`import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(import.meta.url)}); })`,
    { eval: true, workerData: { hostKey, dir } });
  w.on('message', (port: number) => console.log(`PORT ${port}`));
}

/** User + system CPU of a process, all its threads (/proc/<pid>/stat utime and stime, in Linux's 100 ticks a second). */
const cpuSeconds = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};

async function drive(rounds: number, modes: string[]): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'ssh-heap-'));
  const file = path.join(tmp, 'upload.bin');
  const fd = openSync(file, 'w');
  for (let i = 0; i < 50; i++) writeSync(fd, Buffer.alloc(MIB, 65 + i));
  closeSync(fd);
  try {
    for (let r = 0; r < rounds; r++) {
      const line = [`load ${os.loadavg()[0]!.toFixed(1)}`];
      for (const mode of modes) {
        const proc = spawn(process.execPath, ['--trace-gc', '--import', 'tsx', import.meta.filename, '--serve', mode, tmp],
          { stdio: ['ignore', 'pipe', 'inherit'] });
        let fullGcs = 0;
        const port = await new Promise<number>((resolve) => createInterface({ input: proc.stdout! }).on('line', (l) => {
          if (l.includes('Mark-Compact')) fullGcs++;
          const m = /^PORT (\d+)/.exec(l);
          if (m) resolve(Number(m[1]));
        }));
        const cpu0 = cpuSeconds(proc.pid!);
        const gc0 = fullGcs;
        const res = await askOnce<BigUploadResult>('bench/files/upload-client.ts', {
          kind: 'big', localFile: file, remotePath: '/upload', target: { protocol: 'sftp', port, username: 'u', password: 'p' },
        }, 120_000);
        line.push(`${mode}: ${(res.bytes / MIB / res.seconds).toFixed(1)} MiB/s, cpu ${(cpuSeconds(proc.pid!) - cpu0).toFixed(2)} s, `
          + `${fullGcs - gc0} mark-compact`);
        proc.kill('SIGKILL');
      }
      console.log(line.join(' | '));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (!isMainThread) {
  const d = workerData as { hostKey: string; dir: string };
  serve(d.hostKey, d.dir, (port) => parentPort!.postMessage(port));
} else if (process.argv[2] === '--serve') {
  child(process.argv[3]!, process.argv[4]!);
} else {
  await drive(Number(process.argv[2] ?? 3), (process.argv[3] ?? 'main,worker').split(','));
  process.exit(0);
}
