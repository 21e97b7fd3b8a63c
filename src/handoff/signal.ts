/**
 * Wakes long polls of the event feed when this process commits events, so a waiting ERP hears of a local order at
 * once instead of at the next poll. Events committed elsewhere (another instance, the CLI) are found by the poll.
 */
export interface EventSignal {
  /** Something may have been committed: every waiter wakes and reads again. */
  notify(): void;
  /** Resolves at the next notify, after `ms`, or when `abort` fires, whichever is first. Never rejects. */
  wait(ms: number, abort?: AbortSignal): Promise<void>;
}

export function createEventSignal(): EventSignal {
  let waiters = new Set<() => void>();
  return {
    notify() {
      const woken = waiters;
      waiters = new Set();
      for (const wake of woken) wake();
    },
    wait(ms, abort) {
      return new Promise<void>((resolve) => {
        if (abort?.aborted) return resolve();
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          abort?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        waiters.add(done);
        abort?.addEventListener('abort', done, { once: true });
      });
    },
  };
}
