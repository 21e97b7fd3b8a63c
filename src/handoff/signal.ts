/**
 * Told whenever this process commits order events (a processed submission, a production status report by REST or
 * JMF): wakes long polls of the event feed, so a waiting ERP hears of a local order at once instead of at the next
 * poll, and the listeners (the hand-off dispatcher, which rings the other instances' bell on PostgreSQL). Events
 * committed elsewhere (another instance, the CLI) are found by the poll or the bell.
 */
export interface EventSignal {
  /** Something may have been committed: every waiter wakes and reads again, every listener is told. */
  notify(): void;
  /** Call `fn` at every notify (for the life of the process: the composition root wires it once). */
  listen(fn: () => void): void;
  /** Resolves at the next notify, after `ms`, or when `abort` fires, whichever is first. Never rejects. */
  wait(ms: number, abort?: AbortSignal): Promise<void>;
}

export function createEventSignal(): EventSignal {
  let waiters = new Set<() => void>();
  const listeners: (() => void)[] = [];
  return {
    notify() {
      const woken = waiters;
      waiters = new Set();
      for (const wake of woken) wake();
      for (const fn of listeners) fn();
    },
    listen(fn) {
      listeners.push(fn);
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
