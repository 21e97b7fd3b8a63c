/**
 * What the service tells Prometheus, behind one narrow interface of ours (prom-client stays inside src/metrics/).
 *
 * Every service instance gets its own Registry from createMetrics(): no module-level state, so two services in
 * one test process never see each other's numbers. Parts that are not given a Metrics use noopMetrics.
 *
 * Glossary of the metric families (names are the contract with dashboards and alerts: docs/operators/metrics.md):
 * - intake_submissions_total{channel,outcome}   submissions judged; outcome ok | errore (the file-level esito)
 * - intake_orders_total{channel,outcome}         orders judged; outcome accepted | duplicate | rejected
 * - intake_ack_seconds{channel}                  from holding a whole submission to acknowledging it
 * - intake_queue_depth{queue}                    work waiting, counted in the store at scrape time (addQueue)
 * - intake_lockout_refusals_total                password logins refused because a user or address is locked
 * - intake_mail_held_total{reason}               e-mail messages held by the sender checks (mail-trust)
 * - intake_open_connections{channel}             TCP connections open now
 * - intake_store_write_seconds{operation}        commit latency of the store's writes, as the caller waits for it
 * plus prom-client's default process metrics (CPU, memory, event loop lag, …).
 */
import type { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { WriterConnections } from '../domain/store/stats.ts';

/** The outcome of a judged submission, as much as the counters need: its verdict and its orders counted. */
export interface JudgedOutcome {
  esito: 'ok' | 'errore';
  accepted: number;
  duplicate: number;
  rejected: number;
}

export interface Metrics {
  /** A submission was judged and its outcome recorded (the intake core calls this once per judgement). */
  decided(channel: string, outcome: JudgedOutcome): void;
  /**
   * Run `ack`, the work between holding a whole submission and acknowledging it (commit and, for synchronous
   * channels, judging), and observe how long it took; its result and errors pass through. Failures are not observed:
   * nothing was acknowledged.
   */
  timeAck<T>(channel: string, ack: () => Promise<T>): Promise<T>;
  /** Observe an acknowledgement that left `seconds` after the channel held the whole submission. */
  acknowledged(channel: string, seconds: number): void;
  /** A password login was refused because its user name or address is locked out. */
  lockoutRefusal(): void;
  /** An e-mail message was held (not registered, not answered): dmarc-fail, not-allowed, not-authenticated, dns. */
  mailHeld(reason: string): void;
  /**
   * Count the open connections of a server: `server` emits 'connection' with something that emits 'close' once
   * (net.Server and its sockets; an ssh2 Server and its clients).
   */
  trackConnections(channel: string, server: EventEmitter): void;
  /** Time one store write (operation: the store method's name). */
  timeStoreWrite<T>(operation: string, write: () => Promise<T>): Promise<T>;
  /**
   * A queue whose depth is read at every scrape (e.g. received submissions not yet judged). Adding one more queue is
   * one call; `count` should be one indexed query.
   */
  addQueue(name: string, count: () => Promise<number>): void;
  /** The store's connections for registrations, read at every scrape (no series when `read` gives undefined). */
  addWriterConnections(read: () => WriterConnections | undefined): void;
  /** The Prometheus text exposition of everything above. */
  render(): Promise<{ contentType: string; body: string }>;
}

/**
 * Acknowledgement buckets: a durable commit takes milliseconds, a synchronous judgement of a large order a second
 * or more, and anything past 10 s is already a timeout for most clients.
 */
const ACK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Store commits: an fsync is 0.1-10 ms on SSDs; a PostgreSQL round trip adds about as much. */
const STORE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  // Process metrics (memory, CPU, event loop lag) come from prom-client; tests that start many services skip them.
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const submissions = new Counter({ name: 'intake_submissions_total', help: 'Submissions judged, by channel and outcome (ok | errore).', labelNames: ['channel', 'outcome'], registers });
  const orders = new Counter({ name: 'intake_orders_total', help: 'Orders judged, by channel and outcome (accepted | duplicate | rejected).', labelNames: ['channel', 'outcome'], registers });
  const ack = new Histogram({ name: 'intake_ack_seconds', help: 'Seconds from holding a whole submission to acknowledging it, by channel.', labelNames: ['channel'], buckets: ACK_BUCKETS, registers });
  const lockouts = new Counter({ name: 'intake_lockout_refusals_total', help: 'Password logins (FTP/SFTP) refused because the user name or the address is locked out.', registers });
  const held = new Counter({ name: 'intake_mail_held_total', help: 'E-mail messages held by the sender checks, by reason (dmarc-fail | not-allowed | not-authenticated | dns).', labelNames: ['reason'], registers });
  const connections = new Gauge({ name: 'intake_open_connections', help: 'TCP connections open now, by channel.', labelNames: ['channel'], registers });
  const storeWrites = new Histogram({ name: 'intake_store_write_seconds', help: 'Seconds a store write takes until committed, by operation.', labelNames: ['operation'], buckets: STORE_BUCKETS, registers });
  const queues = new Map<string, () => Promise<number>>();
  let writerConnections: () => WriterConnections | undefined = () => undefined;
  new Gauge({
    name: 'intake_store_writer_connections',
    help: 'PostgreSQL connections registrations may hold (allowed), hold now (in_use), and registrations waiting for one (waiting).',
    labelNames: ['state'], registers,
    collect() {
      const use = writerConnections();
      if (!use) return;
      this.set({ state: 'allowed' }, use.allowed);
      this.set({ state: 'in_use' }, use.inUse);
      this.set({ state: 'waiting' }, use.waiting);
    },
  });
  new Gauge({
    name: 'intake_queue_depth', help: 'Work waiting, by queue (read from the store at each scrape).', labelNames: ['queue'], registers,
    async collect() {
      // One failing count (database down) must not hide the others; it is left out of this scrape.
      await Promise.all([...queues].map(async ([name, count]) => {
        try {
          this.set({ queue: name }, await count());
        } catch {
          this.remove({ queue: name });
        }
      }));
    },
  });

  return {
    decided(channel, outcome) {
      submissions.inc({ channel, outcome: outcome.esito });
      // Counters that were never incremented are not shown, as when each order was counted one by one.
      for (const kind of ['accepted', 'duplicate', 'rejected'] as const) if (outcome[kind] > 0) orders.inc({ channel, outcome: kind }, outcome[kind]);
    },
    async timeAck(channel, work) {
      const start = performance.now();
      const result = await work();
      ack.observe({ channel }, (performance.now() - start) / 1000);
      return result;
    },
    acknowledged(channel, seconds) {
      ack.observe({ channel }, seconds);
    },
    lockoutRefusal() {
      lockouts.inc();
    },
    mailHeld(reason) {
      held.inc({ reason });
    },
    trackConnections(channel, server) {
      connections.inc({ channel }, 0); // the series exists (at 0) from the start, so a dashboard shows it
      server.on('connection', (conn: EventEmitter) => {
        connections.inc({ channel });
        conn.once('close', () => connections.dec({ channel }));
      });
    },
    async timeStoreWrite(operation, write) {
      const start = performance.now();
      const result = await write();
      storeWrites.observe({ operation }, (performance.now() - start) / 1000);
      return result;
    },
    addQueue(name, count) {
      queues.set(name, count);
    },
    addWriterConnections(read) {
      writerConnections = read;
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** For parts started without metrics (CLI commands, tests of one part): every call does nothing. */
export const noopMetrics: Metrics = {
  decided() {},
  timeAck: (_channel, work) => work(),
  acknowledged() {},
  lockoutRefusal() {},
  mailHeld() {},
  trackConnections() {},
  timeStoreWrite: (_operation, write) => write(),
  addQueue() {},
  addWriterConnections() {},
  async render() {
    return { contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '' };
  },
};
