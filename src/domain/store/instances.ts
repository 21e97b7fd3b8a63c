/**
 * The instance part of the store port (src/domain/store/store.ts extends it): which service processes are alive, so that
 * what a dead one held (claims on submissions and messages, replies being sent, named leases) is free at once
 * rather than when its leases lapse. See docs/development/claims.md.
 *
 * What must stay true in every implementation:
 * - an instance is alive from startInstance until stopInstance, or until its process dies: its liveness is tied to
 *   something the process holds (PostgreSQL: a session-level advisory lock on a dedicated connection; SQLite: its
 *   process id on this host), never to a clock;
 * - reapInstances frees only what was held by instances found dead, and holders that never registered (tools, tests)
 *   are left to their leases;
 * - a live instance is never found dead while its session is open, so nothing it holds is taken from it.
 */

/** What one reap found: the instances found gone and how much of their work it freed. */
export interface FreedWork {
  instances: string[];
  submissions: number;
  messages: number;
  replies: number;
  leases: number;
}

export interface InstanceStore {
  /**
   * Register this process as a live instance named `holder` (the name it puts on every claim and lease) and keep it
   * alive until stopInstance or the process ends. Also reaps, so a restarted instance frees its predecessor's work.
   */
  startInstance(holder: string): Promise<void>;
  /** Free the claims and leases of every registered instance that is gone; cheap enough for every sweep. */
  reapInstances(): Promise<FreedWork>;
  /** Graceful stop: the instance is no longer registered (give its claims back first). */
  stopInstance(holder: string): Promise<void>;
}

export const NOTHING_FREED: FreedWork = Object.freeze({ instances: [], submissions: 0, messages: 0, replies: 0, leases: 0 }) as FreedWork;

/** A registered instance found gone is kept (marked) this long before its row goes: see migration 006. */
export const GONE_ROW_KEEP_MS = 10 * 60_000;
