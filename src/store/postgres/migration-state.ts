/**
 * Which migrations a PostgreSQL database has, for `order-intake db check`: read only, one connection, none of the
 * store's pool or listeners.
 */
import pg from 'pg';
import { migrationsDir, readMigrations } from '../common/migrate.ts';

export interface MigrationState {
  applied: string[];
  /** Known to this version and not applied yet: `serve` or `db migrate` applies them. */
  pending: string[];
  /** Applied and not known to this version: the database was migrated by a newer release. */
  unknown: number[];
}

export async function postgresMigrationState(url: string): Promise<MigrationState> {
  const known = await readMigrations(migrationsDir('postgres'));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const exists = (await client.query(`SELECT to_regclass('schema_migrations') IS NOT NULL AS e`)).rows[0] as { e: boolean };
    const rows = exists.e
      ? (await client.query('SELECT version, name FROM schema_migrations ORDER BY version')).rows as { version: number; name: string }[]
      : [];
    const versions = new Set(rows.map((r) => r.version));
    const knownVersions = new Set(known.map((m) => m.version));
    return {
      applied: rows.map((r) => r.name),
      pending: known.filter((m) => !versions.has(m.version)).map((m) => m.name),
      unknown: rows.filter((r) => !knownVersions.has(r.version)).map((r) => r.version),
    };
  } finally {
    await client.end();
  }
}
