/**
 * The orphan sweep of streamed uploads: pieces copied into the store while an upload arrived (upload-stager.ts) that
 * no submission adopted, because the upload's connection or instance died before its end (kill -9, a crash: the
 * tree deletes the pieces of an upload that ends unstored). Every instance sweeps; on a shared database the deletes
 * are the same whoever runs them, and an upload the sweep took for dead is refused at its end, never stored with a
 * hole (the store's adoption checks its pieces).
 */
import type { Store } from '../../domain/store/store.ts';
import type { Logger } from '../../log.ts';
import { LIMITS } from './limits.ts';

export function startStagedSweep(store: Pick<Store, 'sweepStagedUploads'>, log: Logger, now: () => number = Date.now): { stop(): void } {
  const sweep = () => {
    store.sweepStagedUploads(new Date(now() - LIMITS.stagedUploadGraceMs).toISOString()).then((n) => {
      if (n > 0) log.warn({ uploads: n }, 'deleted the pieces of uploads cut before their end (never acknowledged)');
    }, (err: unknown) => log.error({ err }, 'could not sweep the pieces of cut uploads'));
  };
  sweep();
  const timer = setInterval(sweep, LIMITS.stagedSweepEveryMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
