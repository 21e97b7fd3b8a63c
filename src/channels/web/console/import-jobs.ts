/**
 * Catalog imports started from the console run in the background, so the page can show a progress bar while the
 * same import as `order-intake articles import` (src/catalog/import-articles.ts) reads the file. Jobs are kept in
 * this process's memory only: the progress page polls the instance that took the upload (behind a load balancer
 * without sticky sessions another instance answers "not found", and the catalog shows the result anyway).
 */
import { rm } from 'node:fs/promises';
import { uuidv7 } from '../../../domain/uuid7.ts';
import { importArticles } from '../../../catalog/import-articles.ts';
import type { CatalogImportStore } from '../../../domain/store/ports.ts';

export interface ImportJob {
  id: string;
  fileName: string;
  operator: string;
  state: 'running' | 'done' | 'failed';
  bytesRead: number;
  totalBytes: number;
  rows?: number;
  error?: string;
  startedAt: number;
}

/** Jobs remembered at once: a handful of operators importing now and then; the oldest finished one goes first. */
const MAX_JOBS = 20;
/** How long a finished job can still be looked at. */
const KEEP_MS = 60 * 60_000;

export interface ImportJobs {
  /** Starts importing `file` (deleted with `dir` when done); `onDone` records the outcome (audit). */
  start(store: CatalogImportStore, file: string, dir: string, fileName: string, operator: string, onDone: (job: ImportJob) => Promise<void>): ImportJob;
  get(id: string): ImportJob | undefined;
}

export function createImportJobs(now: () => number = Date.now): ImportJobs {
  const jobs = new Map<string, ImportJob>();

  function prune(): void {
    for (const [id, j] of jobs) if (j.state !== 'running' && now() - j.startedAt > KEEP_MS) jobs.delete(id);
    while (jobs.size >= MAX_JOBS) {
      const oldest = [...jobs.values()].find((j) => j.state !== 'running');
      if (!oldest) break;
      jobs.delete(oldest.id);
    }
  }

  return {
    start(store, file, dir, fileName, operator, onDone) {
      prune();
      const job: ImportJob = { id: uuidv7(), fileName, operator, state: 'running', bytesRead: 0, totalBytes: 0, startedAt: now() };
      jobs.set(job.id, job);
      void (async () => {
        let outcome: Partial<ImportJob>;
        try {
          const { rows } = await importArticles(store, file, {
            onProgress(read, total) {
              job.bytesRead = read;
              job.totalBytes = total;
            },
          });
          outcome = { state: 'done', rows, bytesRead: job.totalBytes };
        } catch (e) {
          // The import's messages name the line and the problem (in English, as the CLI prints them).
          // The temporary path means nothing to the operator (and is the server's business): his file's name instead.
          outcome = { state: 'failed', error: (e as Error).message.split(file).join(fileName).slice(0, 500) };
        }
        await rm(dir, { recursive: true, force: true }).catch(() => undefined);
        // The outcome is shown only once it is recorded, so whoever sees "done" finds it in the audit log.
        await onDone({ ...job, ...outcome }).catch(() => undefined);
        Object.assign(job, outcome);
      })();
      return job;
    },
    get(id) {
      return jobs.get(id);
    },
  };
}

/** What the progress page and its poll show: percent of the file read, and the outcome once there is one. */
export function jobView(j: ImportJob) {
  const percent = j.state === 'done' ? 100 : j.totalBytes > 0 ? Math.min(99, Math.floor((j.bytesRead / j.totalBytes) * 100)) : 0;
  return {
    state: j.state, percent, file: j.fileName, rows: j.rows ?? null,
    message: j.state === 'done' ? `Catalogo aggiornato: ${(j.rows ?? 0).toLocaleString('it-IT')} articoli importati da ${j.fileName}.`
      : j.state === 'failed' ? `Importazione non riuscita: ${j.error ?? ''}` : `Importazione di ${j.fileName} in corso: ${percent}%`,
  };
}
