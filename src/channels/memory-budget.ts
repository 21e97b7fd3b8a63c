/**
 * A budget of memory shared by every customer's large work at once (issue 19, item 11): an upload, once its bytes
 * are on disk, is read, stored and judged in memory, which costs a few times its size; six 100 MB uploads at once
 * took 1.1 GB. Each such job first takes its estimated cost from the budget and gives it back when judged; a job
 * that does not fit waits (first come, first served) until others finish, and after `waitMs` gets a clear temporary
 * refusal instead. A job larger than the whole budget still runs, alone, so no file within the size limit can never
 * be processed.
 */

export interface MemoryBudget {
  /** Take `bytes`; resolves with the function that gives them back, or undefined after waiting `waitMs` in vain. */
  acquire(bytes: number, waitMs: number): Promise<(() => void) | undefined>;
  /** Bytes taken now (tests, metrics). */
  inUse(): number;
  /** Jobs waiting now. */
  waiting(): number;
  /** Most bytes ever taken at once (tests: proof that jobs were held back, whatever their timing). */
  peak(): number;
}

interface Waiter {
  bytes: number;
  grant: (release: () => void) => void;
}

export function createMemoryBudget(totalBytes: number): MemoryBudget {
  let used = 0;
  let peak = 0;
  const queue: Waiter[] = [];

  const fits = (bytes: number) => used === 0 || used + bytes <= totalBytes;

  function releaser(bytes: number): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      used -= bytes;
      // First come, first served: a large job at the head is not overtaken by small ones for ever.
      while (queue.length > 0 && fits(queue[0]!.bytes)) {
        const w = queue.shift()!;
        used += w.bytes;
        peak = Math.max(peak, used);
        w.grant(releaser(w.bytes));
      }
    };
  }

  return {
    acquire(bytes, waitMs) {
      if (queue.length === 0 && fits(bytes)) {
        used += bytes;
        peak = Math.max(peak, used);
        return Promise.resolve(releaser(bytes));
      }
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          const i = queue.indexOf(w);
          if (i >= 0) queue.splice(i, 1);
          resolve(undefined);
        }, waitMs);
        const w: Waiter = {
          bytes,
          grant: (release) => {
            clearTimeout(timer);
            resolve(release);
          },
        };
        queue.push(w);
      });
    },
    inUse: () => used,
    waiting: () => queue.length,
    peak: () => peak,
  };
}
