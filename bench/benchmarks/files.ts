/**
 * SFTP and FTP: the upload of a 50 MiB order file (a valid CSV of 10-line orders) to the service and, as the
 * reference, to OpenSSH's sftp-server on the same machine; then small order files (3-line CSV) uploaded
 * back-to-back by several sessions, for files/s and the time from the upload's acknowledgement to the order
 * registered (the service's `submission processed` log line). Fresh service and database each run.
 */
import { closeSync, mkdirSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { randomBytes, randomInt } from 'node:crypto';
import { askOnce, ROOT } from '../lib/children.ts';
import { summariseProfiles } from '../profile/summarise.ts';
import { countSqliteOrders } from '../lib/sqlite-count.ts';
import { ensureOpenSsh, startSshd, type Sshd } from '../lib/openssh.ts';
import { CSV_HEADER, csvRows } from '../lib/orders.ts';
import { startService, type RunningService } from '../lib/service.ts';
import { latencySummary } from '../lib/stats.ts';
import type { BigUpload, BigUploadResult, SmallUploads, SmallUploadsResult, UploadTarget } from '../files/protocol.ts';
import type { Benchmark, BenchContext, Metric } from '../lib/types.ts';

const BIG_BYTES = 50 * 2 ** 20;
const BIG_LINES_PER_ORDER = 10;
const SMALL_LINES = 3;
const SESSIONS = 4;
/** Below the service's 1,000 uploads per session, which would end the session mid-measurement. */
const MAX_FILES_PER_SESSION = 900;
/** Waiting for the service to register what it acknowledged; past this something is lost or stuck. */
const PROCESS_TIMEOUT_MS = 5 * 60_000;
const CLIENT_SLACK_MS = 120_000;

/** A valid CSV of 10-line orders of at least `bytes`, written in chunks; returns the number of orders. */
function writeOrderFile(file: string, bytes: number): number {
  const fd = openSync(file, 'w');
  let size = 0;
  let orders = 0;
  try {
    size += writeSync(fd, CSV_HEADER);
    while (size < bytes) {
      let chunk = '';
      for (let k = 0; k < 1000 && size + chunk.length < bytes; k++) chunk += csvRows(`BIG50-${String(orders++).padStart(7, '0')}`, BIG_LINES_PER_ORDER);
      size += writeSync(fd, chunk);
    }
  } finally {
    closeSync(fd);
  }
  return orders;
}

async function client<T>(spec: BigUpload | SmallUploads, budgetMs: number): Promise<T> {
  return askOnce<T>('bench/files/upload-client.ts', spec, budgetMs + CLIENT_SLACK_MS);
}

/** Polls the service's log until every file has been processed; the names still waiting when time runs out. */
async function waitProcessed(service: RunningService, names: string[], timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const waiting = names.filter((n) => service.fileTimes(n)?.processedAt === undefined);
    if (waiting.length === 0 || Date.now() > deadline) return waiting;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Service environment for one protocol; FTP gets a passive range of its own so parallel test runs do not collide. */
function serviceEnv(protocol: 'sftp' | 'ftp'): Record<string, string> {
  const pasv = 42_000 + randomInt(0, 160) * 100;
  return protocol === 'sftp' ? { INTAKE_SFTP_PORT: '0' } : { INTAKE_FTP_PORT: '0', INTAKE_FTP_PASV_RANGE: `${pasv}-${pasv + 99}` };
}

/**
 * The profile passes of `--profile`. `transfer` uploads to a temporary name (`.part`: stored, never judged), so its
 * profile is the transfer alone; `registration` uploads to a final name and waits for the file's orders, so judging
 * dominates it.
 */
const PROFILE_PASSES = {
  transfer: { file: 'profile.csv.part', what: 'the transfer alone: the upload to a temporary name, never judged', waitRegistered: false },
  registration: { file: 'profile.csv', what: 'upload then registration', waitRegistered: true },
} as const;
type ProfilePass = keyof typeof PROFILE_PASSES;

/** The big upload with the service under `node --cpu-prof` (not in the figures), summarised into the notes. */
async function profilePass(protocol: 'sftp' | 'ftp', ctx: BenchContext, bigFile: string, pass: ProfilePass): Promise<string[]> {
  const { file, what, waitRegistered } = PROFILE_PASSES[pass];
  const dataDir = path.join(ctx.tmpDir, `service-profile-${pass}`);
  mkdirSync(dataDir);
  const profDir = path.join(ctx.tmpDir, `cpuprofile-${pass}`);
  let service: RunningService | undefined;
  try {
    service = await startService({ dataDir, trackFiles: true, waitForPorts: [protocol], env: serviceEnv(protocol), cpuProfDir: profDir });
    ctx.progress(`profiling the service: 50 MiB by ${protocol.toUpperCase()}, ${what}`);
    const target: UploadTarget = { protocol, port: service.ports[protocol]!, username: service.ftpUser!, password: service.ftpPassword! };
    const res = await client<BigUploadResult>({ kind: 'big', target, localFile: bigFile, remotePath: `/ordini/${file}` }, 300_000);
    if (waitRegistered) await waitProcessed(service, [file], PROCESS_TIMEOUT_MS);
    await service.stop();
    service = undefined;
    return [
      `profile pass "${pass}" (not in the figures): ${(res.bytes / 2 ** 20 / res.seconds).toFixed(1)} MiB/s under the profiler, ${what}`,
      ...summariseProfiles(profDir, ROOT, path.join(ROOT, 'bench/results', `${protocol}-${pass}.cpuprofile`)),
    ];
  } finally {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function fileBenchmark(protocol: 'sftp' | 'ftp'): Benchmark {
  const name = protocol;
  const upper = protocol.toUpperCase();
  return {
    name,
    description: `${upper}: a 50 MiB order file vs OpenSSH sftp-server; ${SESSIONS} sessions of small order files, upload-close → registered`,
    byDefault: true,
    async run(ctx: BenchContext) {
      const notes: string[] = [];
      const bigFile = path.join(ctx.tmpDir, 'ordini-50mib.csv');
      const bigOrders = writeOrderFile(bigFile, BIG_BYTES);
      const bigBytes = statSync(bigFile).size;

      let sshd: Sshd | undefined;
      const missing = ensureOpenSsh(ctx.progress);
      if (missing) notes.push(`no OpenSSH reference: ${missing}`);
      else sshd = await startSshd(path.join(ctx.tmpDir, 'sshd'));

      const samples = new Map<string, number[]>();
      const add = (k: string, v: number) => samples.set(k, [...(samples.get(k) ?? []), v]);
      const details: unknown[] = [];
      try {
        if (ctx.profile) {
          for (const pass of Object.keys(PROFILE_PASSES) as ProfilePass[]) notes.push(...await profilePass(protocol, ctx, bigFile, pass));
        }
        for (let run = 1; run <= ctx.runs; run++) {
          const step = (what: string) => ctx.progress(`${name} run ${run}/${ctx.runs}: ${what}`);
          let reference: BigUploadResult | undefined;
          if (sshd) {
            step('50 MiB to OpenSSH sftp-server');
            const remote = path.join(sshd.uploadDir, `big-${run}.csv`);
            reference = await client<BigUploadResult>({
              kind: 'big', localFile: bigFile, remotePath: remote,
              target: { protocol: 'sftp', port: sshd.port, username: sshd.username, privateKey: sshd.privateKey.toString('utf8') },
            }, 120_000);
            rmSync(remote, { force: true });
          }

          const dataDir = path.join(ctx.tmpDir, `service-${run}`);
          mkdirSync(dataDir);
          let service: RunningService | undefined;
          let ours: BigUploadResult;
          let small: SmallUploadsResult;
          let latencies: Float64Array;
          let registered: number;
          let lost: string[];
          try {
            service = await startService({
              dataDir, trackFiles: true, waitForPorts: [protocol], env: serviceEnv(protocol),
            });
            if (!service.ftpUser || !service.ftpPassword) throw new Error('the service printed no FTP/SFTP credentials');
            const target: UploadTarget = { protocol, port: service.ports[protocol]!, username: service.ftpUser, password: service.ftpPassword };
            step(`50 MiB to the service by ${upper}`);
            const bigName = `big-${run}.csv`;
            ours = await client<BigUploadResult>({ kind: 'big', target, localFile: bigFile, remotePath: `/ordini/${bigName}` }, 300_000);
            step('waiting for the 50 MiB file to be registered');
            lost = await waitProcessed(service, [bigName], PROCESS_TIMEOUT_MS);
            const bigTimes = service.fileTimes(bigName);
            step(`small files, ${SESSIONS} sessions`);
            small = await client<SmallUploadsResult>({
              kind: 'small', target, remoteDir: '/ordini', prefix: `F${randomBytes(3).toString('hex')}`, orderLines: SMALL_LINES,
              sessions: SESSIONS, warmupSec: ctx.warmupSec, durationSec: ctx.durationSec, maxFilesPerSession: MAX_FILES_PER_SESSION,
            }, (ctx.warmupSec + ctx.durationSec) * 1000);
            lost.push(...await waitProcessed(service, small.files.map((f) => f.name), PROCESS_TIMEOUT_MS));
            const window = small.files.filter((f) => f.inWindow);
            latencies = Float64Array.from(window.flatMap((f) => {
              const at = service!.fileTimes(f.name)?.processedAt;
              return at === undefined ? [] : [at - f.closedAt];
            }));
            const inService = latencySummary(Float64Array.from(window.flatMap((f) => {
              const t = service!.fileTimes(f.name);
              return t?.processedAt === undefined || t.receivedAt === undefined ? [] : [t.processedAt - t.receivedAt];
            })));
            add('svcP50', inService.p50);
            add('svcP99', inService.p99);
            add('bigProcessSec', bigTimes?.processedAt && bigTimes.receivedAt ? (bigTimes.processedAt - bigTimes.receivedAt) / 1000 : NaN);
            add('filesPerSec', window.length / small.windowSec);
            add('uploadP50', latencySummary(Float64Array.from(window.map((f) => f.uploadMs))).p50);
            const code = await service.stop();
            service = undefined;
            if (code !== 0) notes.push(`run ${run}: the service exited with ${code}`);
            registered = countSqliteOrders(dataDir);
          } finally {
            await service?.stop();
            rmSync(dataDir, { recursive: true, force: true });
          }
          const expected = bigOrders + small.files.length;
          if (registered !== expected || lost.length > 0 || small.errors > 0) {
            notes.push(`run ${run}: ${registered} orders registered of ${expected} acknowledged; ${lost.length} files not processed in time; `
              + `${small.errors} uploads failed${small.firstError ? ` (${small.firstError})` : ''}`);
          }
          const mbps = (r: BigUploadResult) => r.bytes / 2 ** 20 / r.seconds;
          add('ours', mbps(ours));
          if (reference) {
            add('reference', mbps(reference));
            add('ratio', (mbps(ours) / mbps(reference)) * 100);
          }
          if (ours.writeSeconds !== undefined) {
            add('oursWrite', ours.bytes / 2 ** 20 / ours.writeSeconds);
            add('closeSec', ours.seconds - ours.writeSeconds);
            if (reference?.writeSeconds !== undefined) add('writeRatio', (reference.writeSeconds / ours.writeSeconds) * 100);
          }
          const lat = latencySummary(latencies);
          add('latP50', lat.p50);
          add('latP99', lat.p99);
          add('latMax', lat.max);
          details.push({ run, reference, ours, smallFiles: small.files.length, smallInWindow: latencies.length, closeToRegistered: lat, registered, expected });
          ctx.progress(`${name} run ${run}: ${mbps(ours).toFixed(1)} MiB/s${reference ? ` (OpenSSH ${mbps(reference).toFixed(1)} MiB/s)` : ''}, `
            + `${samples.get('filesPerSec')!.at(-1)!.toFixed(0)} files/s, close→registered p50 ${lat.p50.toFixed(0)} ms p99 ${lat.p99.toFixed(0)} ms`);
        }
      } finally {
        await sshd?.stop();
      }
      const m = (k: string) => samples.get(k) ?? [];
      const metrics: Metric[] = [
        { name: `50 MiB upload by ${upper}, acknowledged`, unit: 'MiB/s', better: 'higher', samples: m('ours') },
        { name: '50 MiB upload to OpenSSH sftp-server', unit: 'MiB/s', better: 'higher', samples: m('reference') },
        { name: `${upper} / OpenSSH`, unit: '%', better: 'higher', samples: m('ratio'), ...(protocol === 'sftp' ? { target: { value: 50, op: '>=' as const } } : {}) },
        { name: '50 MiB: data sent (last WRITE acknowledged)', unit: 'MiB/s', better: 'higher', samples: m('oursWrite') },
        { name: 'data sent, vs OpenSSH', unit: '%', better: 'higher', samples: m('writeRatio') },
        { name: '50 MiB: last WRITE → CLOSE acknowledged', unit: 's', better: 'lower', samples: m('closeSec') },
        { name: '50 MiB file: received → registered', unit: 's', better: 'lower', samples: m('bigProcessSec') },
        { name: `small files (${SESSIONS} sessions)`, unit: 'files/s', better: 'higher', samples: m('filesPerSec') },
        { name: 'small file: upload open → close acknowledged p50', unit: 'ms', better: 'lower', samples: m('uploadP50') },
        { name: 'small file: close → registered p50', unit: 'ms', better: 'lower', samples: m('latP50') },
        { name: 'small file: close → registered p99', unit: 'ms', better: 'lower', samples: m('latP99') },
        { name: 'small file: close → registered max', unit: 'ms', better: 'lower', samples: m('latMax') },
        { name: 'small file: received → registered p50 (service log)', unit: 'ms', better: 'lower', samples: m('svcP50') },
        { name: 'small file: received → registered p99 (service log)', unit: 'ms', better: 'lower', samples: m('svcP99') },
      ];
      notes.push('close → registered runs from the client seeing the acknowledgement to the service logging the order registered, '
        + 'both in epoch ms on this machine: at or below 0 means the order was registered before the client had read the acknowledgement');
      notes.push('OpenSSH sftp-server writes to the page cache and answers the close without fsync; the service answers it after '
        + 'the file is fsynced and its submission committed, so the ratio compares a durable upload with a non-durable one');
      return {
        settings: {
          bigFile: { bytes: bigBytes, orders: bigOrders, linesPerOrder: BIG_LINES_PER_ORDER }, smallFile: { format: 'CSV', lines: SMALL_LINES },
          sessions: SESSIONS, warmupSec: ctx.warmupSec, durationSec: ctx.durationSec,
          client: protocol === 'sftp' ? 'ssh2 (64 writes of 32 KiB in flight for the big file; writeFile for small ones)' : 'basic-ftp, passive mode',
          reference: sshd ? `${sshd.version}, sftp-server, key login, same ssh2 client` : 'none', store: 'SQLite (synchronous=FULL)',
          freshDatabaseEachRun: true,
        },
        durability: 'the service acknowledges an upload (SFTP close status, FTP 226) after the file is fsynced and its submission committed '
          + '(SQLite WAL, synchronous=FULL); the order is registered after, in the background',
        // FTP has no point between data sent and upload closed, and without OpenSSH there is no reference.
        metrics: metrics.filter((x) => x.samples.length > 0),
        notes,
        details,
      };
    },
  };
}
