/**
 * What the mail and mixed benchmarks share: the reply sink child, the demo customer's order mailbox, and waiting for
 * the replies of what was accepted.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { ask, forkTs, nextMessage, stopChild } from '../lib/children.ts';
import type { RunningService } from '../lib/service.ts';
import type { SinkCollected, SinkCount } from './protocol.ts';

export interface RunningSink {
  port: number;
  /** smtp://127.0.0.1:port, for INTAKE_SMTP_RELAY. */
  url: string;
  count(): Promise<number>;
  /** Every reply received so far. */
  collect(): Promise<SinkCollected>;
  stop(): Promise<void>;
}

const IPC_TIMEOUT_MS = 30_000;

export async function startSink(): Promise<RunningSink> {
  const child = forkTs('bench/mail/sink.ts');
  let port: number;
  try {
    ({ port } = await nextMessage<{ port: number }>(child, 30_000));
  } catch (e) {
    await stopChild(child);
    throw e;
  }
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    count: async () => (await ask<SinkCount>(child, { cmd: 'count' }, IPC_TIMEOUT_MS)).count,
    collect: () => ask<SinkCollected>(child, { cmd: 'collect' }, IPC_TIMEOUT_MS),
    stop: async () => {
      await stopChild(child);
    },
  };
}

/**
 * The DEMO customer's order mailbox: `serve` prints it in its first-start banner (bench/lib/service.ts keeps the
 * last lines); if those lines have scrolled away, it is read from the database (WAL: a reader does not block the
 * service).
 */
export function demoMailbox(service: RunningService, dataDir: string): string {
  for (const line of service.recentLines()) {
    const m = /^\s*mailbox:\s+(\S+@\S+)/.exec(line);
    if (m) return m[1]!;
  }
  const db = new Database(path.join(dataDir, 'intake.sqlite'), { readonly: true });
  try {
    const row = db.prepare("SELECT mailbox FROM customers WHERE code = 'DEMO'").get() as { mailbox: string } | undefined;
    if (!row) throw new Error('the service seeded no DEMO customer');
    return row.mailbox;
  } finally {
    db.close();
  }
}

/**
 * Waits until the sink holds at least `expected` replies or `timeoutMs` has passed; resolves with the count. Polled:
 * the sink is another process, and a count a few hundred ms late costs nothing here (the timestamps are the sink's).
 */
export async function waitReplies(sink: RunningSink, expected: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = await sink.count();
    if (n >= expected || Date.now() > deadline) return n;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Same for the service's count of processed submissions (its `submission processed` log lines). */
export async function waitProcessed(service: RunningService, expected: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (service.processedCount() < expected && Date.now() <= deadline) await new Promise((r) => setTimeout(r, 200));
  return service.processedCount();
}
