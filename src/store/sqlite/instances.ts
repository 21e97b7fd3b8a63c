/**
 * Live instances on the embedded store (migration 006). SQLite serves one process, and that process keeps its claims
 * on submissions and messages in memory, so a restart (after a crash too) frees them by itself. What is kept in the
 * file are the named leases (reply sender, IMAP mailboxes): a restarted process recognises its predecessors among
 * the registered processes (same host, process gone, or the same pid as its own: a container restarted under pid 1)
 * and frees their leases at once instead of waiting them out.
 */
import type Database from 'better-sqlite3';
import { hostname } from 'node:os';
import { NOTHING_FREED, type FreedWork, type InstanceStore } from '../../domain/store/instances.ts';
import { statementCache } from './statements.ts';
import { checkLabel } from '../common/work.ts';

/** Whether a process with this id runs on this host (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function sqliteInstances(db: Database.Database, alive: (pid: number) => boolean = processAlive): InstanceStore {
  const q = statementCache(db);
  let own: string | undefined;

  const reap = db.transaction((): FreedWork => {
    const rows = q('SELECT id, pid FROM instances WHERE host = ?').all(hostname()) as { id: string; pid: number }[];
    // Another host's process cannot be checked from here: its leases wait out their time.
    const gone = rows.filter((r) => r.id !== own && (r.pid === process.pid || !alive(Number(r.pid)))).map((r) => r.id);
    if (gone.length === 0) return NOTHING_FREED;
    let leases = 0;
    for (const id of gone) {
      leases += q('DELETE FROM leases WHERE holder = ?').run(id).changes;
      q('DELETE FROM instances WHERE id = ?').run(id);
    }
    return { ...NOTHING_FREED, instances: gone, leases };
  });

  return {
    async startInstance(holder) {
      checkLabel(holder, 'holder');
      if (own !== undefined) throw new Error(`this store already runs instance ${own}`);
      q('INSERT INTO instances (id, host, pid, started_at) VALUES (?, ?, ?, ?)').run(holder, hostname(), process.pid, new Date().toISOString());
      own = holder;
      reap.immediate();
    },

    async reapInstances() {
      return reap.immediate();
    },

    async stopInstance(holder) {
      checkLabel(holder, 'holder');
      if (own !== holder) return;
      own = undefined;
      // Closed already (a failing database in tests): the next start recognises the row as its predecessor's.
      if (db.open) q('DELETE FROM instances WHERE id = ?').run(holder);
    },
  };
}
