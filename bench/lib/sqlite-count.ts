/** Orders in a stopped service's SQLite file: what the benchmark checks against what it sent (nothing lost). */
import path from 'node:path';
import Database from 'better-sqlite3';

export function countSqliteOrders(dataDir: string): number {
  const db = new Database(path.join(dataDir, 'intake.sqlite'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM orders').get() as { n: number }).n;
  } finally {
    db.close();
  }
}
