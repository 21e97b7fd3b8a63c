/**
 * Scheduled backups of the embedded store while `serve` runs (INTAKE_BACKUP_DIR, INTAKE_BACKUP_EVERY,
 * INTAKE_BACKUP_KEEP): each a file `intake-<UTC time>.sqlite` (and its `.secret.key` when the data directory has a key
 * file), made by src/store/backup/sqlite.ts on a thread of its own. The next backup is due one period after the newest one in the
 * folder, so a restart neither takes an extra backup nor resets the clock; the oldest beyond the number kept are
 * deleted after each success.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { extname } from 'node:path';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../log.ts';
import { BACKUP_KEY_SUFFIX, type BackupResult } from '../store/backup/sqlite.ts';
import type { BackupThreadData } from '../store/backup/thread.ts';

export interface BackupSchedule {
  /** Stops the timer; a backup under way is abandoned and its partial file removed. */
  close(): Promise<void>;
}

export interface BackupScheduleOptions {
  source: string;
  keySource: string;
  dir: string;
  everyMs: number;
  keep: number;
  log: Logger;
}

const NAME = /^intake-(\d{8}T\d{6}Z)\.sqlite$/;

/** `intake-20261128T130501Z.sqlite`: sorts by time, and the time is read back from it. */
export function backupFileName(at: Date): string {
  return `intake-${at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}.sqlite`;
}

function timeOf(name: string): number | undefined {
  const m = NAME.exec(name);
  if (!m) return undefined;
  const s = m[1]!;
  return Date.parse(`${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${s.slice(11, 13)}:${s.slice(13, 15)}Z`);
}

/** The scheduled backups in `dir`, oldest first (files of other names are not ours and are left alone). */
async function listBackups(dir: string): Promise<{ name: string; at: number }[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.flatMap((name) => {
    const at = timeOf(name);
    return at === undefined ? [] : [{ name, at }];
  }).sort((a, b) => a.at - b.at);
}

function startThread(data: BackupThreadData): Worker {
  const ext = extname(fileURLToPath(import.meta.url));
  const url = new URL(`../store/backup/thread${ext}`, import.meta.url);
  if (ext !== '.ts') return new Worker(url, { workerData: data });
  // Under tsx (running from source) a worker does not inherit the loader in Node 20: registered first (as offload.ts).
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(url.href)}); })`,
    { eval: true, workerData: data });
}

export async function startBackupSchedule(o: BackupScheduleOptions): Promise<BackupSchedule> {
  await mkdir(o.dir, { recursive: true });
  let timer: NodeJS.Timeout | undefined;
  let running: { worker: Worker; done: Promise<void> } | undefined;
  let closed = false;

  const runOnce = (): Promise<void> => {
    const to = path.join(o.dir, backupFileName(new Date()));
    const started = Date.now();
    const worker = startThread({ source: o.source, to, keySource: o.keySource });
    const done = new Promise<void>((resolve) => {
      let answered = false;
      worker.once('message', (m: { ok: true; result: BackupResult } | { ok: false; message: string }) => {
        answered = true;
        if (m.ok) o.log.info({ file: m.result.file, bytes: m.result.bytes, keyFile: m.result.keyFile, ms: Date.now() - started }, 'backup written');
        else o.log.error({ file: to, error: m.message }, 'scheduled backup failed; the next is tried at its time');
        void worker.terminate();
      });
      worker.once('error', (err) => {
        answered = true;
        o.log.error({ err, file: to }, 'scheduled backup failed; the next is tried at its time');
      });
      worker.once('exit', () => {
        if (!answered && !closed) o.log.error({ file: to }, 'scheduled backup thread ended without an answer');
        resolve();
      });
    });
    running = { worker, done };
    return done.then(async () => {
      running = undefined;
      await prune();
    });
  };

  const prune = async () => {
    const list = await listBackups(o.dir);
    for (const b of list.slice(0, Math.max(0, list.length - o.keep))) {
      await rm(path.join(o.dir, b.name), { force: true });
      await rm(path.join(o.dir, b.name + BACKUP_KEY_SUFFIX), { force: true });
      o.log.info({ file: path.join(o.dir, b.name) }, 'old backup deleted');
    }
  };

  const schedule = async () => {
    if (closed) return;
    const newest = (await listBackups(o.dir)).at(-1);
    const wait = newest ? Math.max(0, newest.at + o.everyMs - Date.now()) : 0;
    // setTimeout holds at most ~24.8 days; a longer wait is taken in steps.
    timer = setTimeout(() => {
      timer = undefined;
      if (closed) return;
      const newestNow = newest ? newest.at + o.everyMs : 0;
      if (Date.now() < newestNow) return void schedule();
      void runOnce().then(schedule, (err: unknown) => {
        o.log.error({ err }, 'scheduled backup failed');
        void schedule();
      });
    }, Math.min(wait, 2 ** 31 - 1));
  };
  o.log.info({ dir: o.dir, everyMs: o.everyMs, keep: o.keep }, 'scheduled backups on');
  await schedule();

  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const r = running;
      if (r) {
        await r.worker.terminate();
        await r.done;
        // A partial file is named after its process; another file of that process is only ever this one.
        for (const name of await readdir(o.dir).catch(() => [] as string[])) {
          if (name.includes(`.partial-${process.pid}`)) await rm(path.join(o.dir, name), { force: true });
        }
      }
    },
  };
}
