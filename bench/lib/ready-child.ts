/**
 * Clients that announce `{ready:true}` once loaded (bench/mail/smtp-client.ts, bench/mixed/soap-client.ts): a
 * benchmark that starts several clients together waits until each is loaded before handing out the specs, so their
 * measured windows start together instead of a module-loading time apart.
 */
import type { ChildProcess } from 'node:child_process';
import { ask, forkTs, nextMessage, stopChild } from './children.ts';

/** Loading tsx and a client's modules takes a second or two; on a busy machine more, but not this. */
const LOAD_TIMEOUT_MS = 60_000;

export interface ReadyChild {
  child: ChildProcess;
  /** Sends the spec, waits for the one answer, and lets the child exit (stopping it if it does not). */
  run<T>(spec: unknown, timeoutMs: number): Promise<T>;
  stop(): Promise<void>;
}

export async function startReadyChild(file: string): Promise<ReadyChild> {
  const child = forkTs(file);
  try {
    await nextMessage<{ ready: true }>(child, LOAD_TIMEOUT_MS);
  } catch (e) {
    await stopChild(child);
    throw e;
  }
  return {
    child,
    async run<T>(spec: unknown, timeoutMs: number) {
      try {
        return await ask<T>(child, spec, timeoutMs);
      } finally {
        await stopChild(child, 10_000, 10_000);
      }
    },
    async stop() {
      await stopChild(child);
    },
  };
}
