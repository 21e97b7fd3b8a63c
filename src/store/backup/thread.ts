/**
 * One scheduled backup on a thread of its own: the copy is made in one step (sqlite.ts), which holds the thread for
 * as long as the database takes to copy; the service's event loop goes on meanwhile.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { backupSqlite } from './sqlite.ts';

export interface BackupThreadData { source: string; to: string; keySource?: string }

const data = workerData as BackupThreadData;
backupSqlite(data.source, data.to, data.keySource).then(
  (result) => parentPort!.postMessage({ ok: true, result }),
  (err: unknown) => parentPort!.postMessage({ ok: false, message: (err as Error).message ?? String(err) }),
);
