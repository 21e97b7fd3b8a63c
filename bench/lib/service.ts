/**
 * The service under test, started the way an operator starts it (`order-intake serve`) in its own process with a
 * fresh data directory. On a fresh database it seeds the DEMO customer and prints its API key, which the
 * benchmarks use; channels not measured are turned off so they cost nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { ROOT, stopChild, track } from './children.ts';

export interface RunningService {
  proc: ChildProcess;
  ports: Record<string, number>;
  apiKey: string;
  /** Demo FTP/SFTP credentials, as printed on first start. */
  ftpUser?: string;
  ftpPassword?: string;
  /** Log lines seen so far (only the last few are kept). */
  recentLines(): string[];
  /** Number of `submission processed` log lines seen: the count of submissions the service finished. */
  processedCount(): number;
  /**
   * With trackFiles: for each uploaded file name, when the service logged it received and processed (epoch ms,
   * the service's clock, which is this machine's).
   */
  fileTimes(name: string): { receivedAt?: number; processedAt?: number } | undefined;
  stop(): Promise<number | null>;
}

export interface ServiceOptions {
  dataDir: string;
  /** Extra environment (INTAKE_DATABASE_URL, ports). */
  env?: Record<string, string>;
  /** Folder for `node --cpu-prof` output; unset runs without the profiler. */
  cpuProfDir?: string;
  /** Run the compiled service (dist/, what `order-intake serve` runs; `npm run build` first) instead of src/ under tsx. */
  compiled?: boolean;
  /** More node options for the service process (e.g. --trace-gc). */
  nodeArgs?: string[];
  /** Every line of the service's stdout that is not a JSON log line (e.g. --trace-gc's), as it comes. */
  onOtherLine?: (line: string) => void;
  /** Ports (by channel name as logged) that must be reported before the service counts as started. */
  waitForPorts?: string[];
  /** Keep the times of `file received` and `submission processed` per file name (file channel benchmarks). */
  trackFiles?: boolean;
  startTimeoutMs?: number;
  /**
   * Wait for the demo customer's API key, printed only when the service seeds an empty database (default true);
   * false for a service started on a database already seeded (a restart, a second instance): apiKey is then ''.
   */
  requireApiKey?: boolean;
}

/** Lines kept for a diagnostic when the service fails; the rest of the log is only counted. */
const KEPT_LINES = 50;
/** Files tracked at most: far more than a benchmark uploads, and a bound on this map if one runs away. */
const MAX_TRACKED_FILES = 1_000_000;

function tryJson(line: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null ? v as Record<string, unknown> : {};
  } catch {
    return {}; // a line that only looks like JSON
  }
}

export async function startService(opts: ServiceOptions): Promise<RunningService> {
  const execArgv = [...(opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : []), ...(opts.nodeArgs ?? [])];
  const proc = track(spawn(process.execPath, [...execArgv, ...(opts.compiled ? [path.join(ROOT, 'dist/cli/main.js')] : ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts')]), 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      INTAKE_DATA_DIR: opts.dataDir,
      INTAKE_HOST: '127.0.0.1',
      INTAKE_HTTP_PORT: '0',
      INTAKE_SFTP_PORT: 'off',
      INTAKE_FTP_PORT: 'off',
      INTAKE_SMTP_PORT: 'off',
      INTAKE_LOG_LEVEL: 'info',
      // PostgreSQL refuses to start without a sealing key (src/auth/secret-key-file.ts); a benchmark seals nothing it keeps.
      ...(opts.env?.INTAKE_DATABASE_URL ? { INTAKE_SECRET_KEY: Buffer.alloc(32, 5).toString('base64') } : {}),
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
  const lines: string[] = [];
  let processed = 0;
  const fileOf = new Map<string, string>();
  const files = new Map<string, { receivedAt?: number; processedAt?: number }>();
  const ports: Record<string, number> = {};
  let apiKey: string | undefined;
  let ftpUser: string | undefined;
  let ftpPassword: string | undefined;
  const keep = (l: string) => {
    lines.push(l);
    if (lines.length > KEPT_LINES) lines.shift();
  };
  proc.stderr!.setEncoding('utf8');
  createInterface({ input: proc.stderr! }).on('line', keep);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));

  const wanted = ['http', ...(opts.waitForPorts ?? [])];
  const ready = new Promise<void>((resolve, reject) => {
    const timeoutMs = opts.startTimeoutMs ?? 30_000;
    const fail = (why: string) => reject(new Error(`${why}\n--- last service output ---\n${lines.join('\n')}`));
    const timer = setTimeout(() => fail(`the service did not start within ${timeoutMs} ms`), timeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      fail(`the service exited with ${code} while starting`);
    });
    const check = () => {
      if ((apiKey || opts.requireApiKey === false) && wanted.every((c) => ports[c] !== undefined)) {
        clearTimeout(timer);
        resolve();
      }
    };
    // The whole log is read (a pipe nobody drains would block the service's synchronous log writes) but only
    // the start-up facts and the count of processed submissions are kept.
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      if (line.startsWith('{')) {
        if (line.includes('"submission processed"')) {
          processed++;
          if (opts.trackFiles) {
            const rec = tryJson(line);
            const name = typeof rec.submission === 'string' ? fileOf.get(rec.submission) : undefined;
            if (name && typeof rec.time === 'number') files.get(name)!.processedAt = rec.time;
          }
          return;
        }
        if (opts.trackFiles && line.includes('"file received"')) {
          const rec = tryJson(line);
          if (typeof rec.submission === 'string' && typeof rec.file === 'string' && typeof rec.time === 'number' && files.size < MAX_TRACKED_FILES) {
            fileOf.set(rec.submission, rec.file);
            files.set(rec.file, { receivedAt: rec.time });
          }
          return;
        }
        keep(line);
        const rec = tryJson(line);
        if (typeof rec.channel === 'string' && typeof rec.port === 'number') ports[rec.channel] = rec.port;
      } else {
        opts.onOtherLine?.(line);
        keep(line);
        const key = /^\s*API key:\s+(\S+)/.exec(line);
        if (key) apiKey = key[1];
        const ftp = /^\s*FTP\/SFTP user:\s+(\S+)\s+password:\s+(\S+)/.exec(line);
        if (ftp) [, ftpUser, ftpPassword] = ftp;
      }
      check();
    });
  });
  try {
    await ready;
  } catch (e) {
    await stopChild(proc);
    throw e;
  }
  return {
    proc,
    ports,
    apiKey: apiKey ?? '',
    ftpUser,
    ftpPassword,
    recentLines: () => [...lines],
    processedCount: () => processed,
    fileTimes: (name) => files.get(name),
    stop: () => stopChild(proc, 30_000),
  };
}
