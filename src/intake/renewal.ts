/**
 * The periodic renewal of an instance's claims (submissions in claims.ts, e-mail messages in the mail pipeline):
 * runs `renew` every `everyMs` while something is held, and never starts a round while the last one is still
 * running.
 *
 * Why one at a time: a renewal is a statement on a pool connection. When it waits (a long lock on the tables, a
 * database that stopped answering), a timer that starts another round each period piles statements up, each holding
 * a connection, until the connections the pool keeps for storing new work are gone: e-mail was refused `451` at RCPT
 * under a SHARE lock on orders (test/multi/instances.test.ts, on a slow machine). A round skipped is harmless: the
 * next one renews everything still held, and the period is a third of the lease.
 */
import type { Logger } from '../log.ts';

export interface Renewal {
  /** Called after what is held changed: starts the timer when something is held, stops it when nothing is. */
  track(holding: boolean): void;
}

export function createRenewal(everyMs: number, renew: () => Promise<void>, log: Logger, failure: string): Renewal {
  let timer: NodeJS.Timeout | undefined;
  let running = false;

  function round(): void {
    if (running) return;
    running = true;
    renew()
      .catch((err: unknown) => log.warn({ err }, failure))
      .finally(() => {
        running = false;
      });
  }

  return {
    track(holding) {
      if (holding && !timer) {
        timer = setInterval(round, Math.max(1, everyMs));
        timer.unref();
      } else if (!holding && timer) {
        clearInterval(timer);
        timer = undefined;
      }
    },
  };
}
