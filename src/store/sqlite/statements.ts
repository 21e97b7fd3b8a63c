/**
 * Prepared statements of the SQLite store, prepared on first use (tables exist only after migrate) and kept for
 * the life of the store: preparing costs more than running, and the hot paths (receive, claim, register) run
 * the same few statements for every order.
 */
import type Database from 'better-sqlite3';

export function statementCache(db: Database.Database): (sql: string) => Database.Statement {
  const prepared = new Map<string, Database.Statement>();
  return (sql) => {
    let s = prepared.get(sql);
    if (!s) {
      s = db.prepare(sql);
      prepared.set(sql, s);
    }
    return s;
  };
}

/** Whether `e` is SQLite's refusal of a write by a constraint of that kind. */
export function constraint(e: unknown, kind: 'UNIQUE' | 'PRIMARYKEY' | 'FOREIGNKEY'): boolean {
  return (e as { code?: unknown }).code === `SQLITE_CONSTRAINT_${kind}`;
}
