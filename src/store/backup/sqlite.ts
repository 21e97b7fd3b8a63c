/**
 * Backups of the embedded store while the service writes, their check, and putting one back.
 *
 * A backup is SQLite's online backup (better-sqlite3's `backup()`) of the live file from a connection of its own, with
 * every page copied in one step: that step is one read transaction, so the copy is the database as of one commit
 * (WAL readers do not block the service's writers, nor they it). Copied in small steps instead, each commit of the
 * service between two steps would restart the copy from the first page, and under a steady stream of orders it might
 * never finish. The copy is written beside its destination, checked (`quick_check`), set to a rollback journal so
 * that it is one self-contained file, fsynced, and only then renamed to its name: a file under that name is always a
 * whole backup.
 *
 * The secret key file (src/auth/secret-key-file.ts) seals what the database keeps of webhook secrets and IMAP
 * passwords; a backup without it restores a database whose sealed secrets cannot be opened, so it is copied beside
 * the backup as `<backup>.secret.key`, and put back with it.
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { access, chmod, copyFile, mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { IntakeError } from '../../domain/errors.ts';
import { migrationsDir, readMigrations } from '../common/migrate.ts';
import { processAlive } from '../sqlite/instances.ts';

/** Beside a backup file: the secret key file that was in the data directory when it was taken. */
export const BACKUP_KEY_SUFFIX = '.secret.key';

/** better-sqlite3 caps a step at this many pages: in effect "all the rest", one read transaction. */
const ALL_PAGES = 0x7fffffff;

export interface BackupResult {
  file: string;
  bytes: number;
  pages: number;
  /** The copy of the secret key file written beside the backup, when the data directory has one. */
  keyFile?: string;
}

function fsyncPath(p: string, flags = 'r'): void {
  const fd = openSync(p, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const exists = (p: string) => access(p).then(() => true, () => false);

/** A copy of `from` at `to`, fsynced, mode 0600 (a key, or a database holding customers' data), renamed into place. */
async function durableCopy(from: string, to: string): Promise<void> {
  const part = `${to}.partial-${process.pid}`;
  await copyFile(from, part);
  await chmod(part, 0o600);
  fsyncPath(part);
  await rename(part, to);
  fsyncPath(path.dirname(to));
}

/**
 * Back up the SQLite database `source` (which the service may be writing) to `to`; `keySource` is the secret key
 * file to copy beside it, when there is one.
 */
export async function backupSqlite(source: string, to: string, keySource?: string): Promise<BackupResult> {
  if (!(await exists(source))) throw new IntakeError('VALIDATION', `there is no database at ${source} to back up`);
  const dest = path.resolve(to);
  if (dest === path.resolve(source)) throw new IntakeError('VALIDATION', 'the backup cannot be the database itself');
  if (!(await exists(path.dirname(dest)))) throw new IntakeError('VALIDATION', `the folder ${path.dirname(dest)} does not exist`);
  const part = `${dest}.partial-${process.pid}`;
  await rm(part, { force: true });
  // Not read-only: a read-only connection cannot rebuild the WAL index of a file no one else has open.
  const db = new Database(source, { fileMustExist: true, timeout: 10_000 });
  let pages: number;
  try {
    pages = (await db.backup(part, { progress: () => ALL_PAGES })).totalPages;
  } catch (e) {
    await rm(part, { force: true });
    throw e;
  } finally {
    db.close();
  }
  try {
    const copy = new Database(part, { fileMustExist: true });
    try {
      const problems = quickCheck(copy);
      if (problems.length > 0) throw new Error(`the copy of ${source} fails SQLite's check: ${problems.slice(0, 3).join('; ')}`);
      // The page header says WAL, as the source's did; a backup is easier to keep as one file. The service sets WAL
      // again when it opens a restored copy.
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    await chmod(part, 0o600);
    fsyncPath(part);
    await rename(part, dest);
    fsyncPath(path.dirname(dest));
  } catch (e) {
    await rm(part, { force: true });
    throw e;
  }
  let keyFile: string | undefined;
  if (keySource && (await exists(keySource))) {
    keyFile = `${dest}${BACKUP_KEY_SUFFIX}`;
    await durableCopy(keySource, keyFile);
  }
  return { file: dest, bytes: (await stat(dest)).size, pages, ...(keyFile ? { keyFile } : {}) };
}

function quickCheck(db: Database.Database): string[] {
  return (db.pragma('quick_check') as { quick_check: string }[]).map((r) => r.quick_check).filter((m) => m !== 'ok');
}

export interface SqliteCheck {
  /** SQLite's integrity_check messages; empty when the file is sound. */
  problems: string[];
  /** Rows whose foreign keys point nowhere, by table. */
  foreignKeyProblems: number;
  applied: string[];
  /** Known to this version and not applied yet: `serve` or `db migrate` applies them. */
  pending: string[];
  /** Applied and not known to this version: the file comes from a newer release. */
  unknown: number[];
}

/** integrity_check, foreign_key_check and the migrations of the SQLite file `file`, which must exist. */
export async function checkSqlite(file: string): Promise<SqliteCheck> {
  if (!(await exists(file))) throw new IntakeError('VALIDATION', `there is no database at ${file}`);
  const known = await readMigrations(migrationsDir('sqlite'));
  const db = new Database(file, { fileMustExist: true, timeout: 10_000 });
  try {
    const problems = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).filter((m) => m !== 'ok');
    const foreignKeyProblems = (db.pragma('foreign_key_check') as unknown[]).length;
    const hasTable = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).get() !== undefined;
    const rows = hasTable ? db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as { version: number; name: string }[] : [];
    const versions = new Set(rows.map((r) => r.version));
    const knownVersions = new Set(known.map((m) => m.version));
    return {
      problems, foreignKeyProblems,
      applied: rows.map((r) => r.name),
      pending: known.filter((m) => !versions.has(m.version)).map((m) => m.name),
      unknown: rows.filter((r) => !knownVersions.has(r.version)).map((r) => r.version),
    };
  } finally {
    db.close();
  }
}

/**
 * Why the database `file` must not be replaced now, or undefined when nothing uses it: a service registered in it
 * from this host whose process still runs, or any connection open on it (every connection to a WAL database holds a
 * shared lock on the file, which an exclusive lock attempt runs into: a service on another host sharing the folder, a
 * CLI command, `sqlite3`).
 */
export function sqliteInUse(file: string): string | undefined {
  const db = new Database(file, { fileMustExist: true, timeout: 0 });
  try {
    const hasInstances = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'instances'`).get() !== undefined;
    if (hasInstances) {
      const live = (db.prepare('SELECT id, pid FROM instances WHERE host = ?').all(hostname()) as { id: string; pid: number }[])
        .filter((r) => Number(r.pid) !== process.pid && processAlive(Number(r.pid)));
      if (live.length > 0) return `the service is running on it (process ${live.map((r) => r.pid).join(', ')}): stop it first`;
    }
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('ROLLBACK');
    return undefined;
  } catch (e) {
    const code = (e as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'another process has it open (the service, or a command still running): stop it first';
    // A file SQLite cannot read (the reason for restoring, often) is no database anyone serves from.
    if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) return undefined;
    throw e;
  } finally {
    db.close();
  }
}

/** `name`, or `name-2`, `name-3`…: two restores in one second must not put one kept file over the other. */
async function unusedName(name: string): Promise<string> {
  let candidate = name;
  for (let n = 2; await exists(candidate) || await exists(`${candidate}-wal`); n++) candidate = `${name}-${n}`;
  return candidate;
}

export interface RestoreResult {
  database: string;
  /** Where the database that was there before went, when there was one. */
  previous?: string;
  /** The secret key file put back from beside the backup. */
  keyFile?: string;
  /** Where the key file that was there before went, when it differed. */
  previousKey?: string;
  check: SqliteCheck;
}

/**
 * Put the backup `from` in place of the SQLite database `target`. Refused while anything uses the target, and for a
 * backup that fails SQLite's check or comes from a newer release. Nothing is deleted: a database (and a differing key
 * file) already there is renamed aside with `.before-restore-<time>`.
 */
export async function restoreSqlite(from: string, target: string): Promise<RestoreResult> {
  const source = path.resolve(from);
  if (!(await exists(source))) throw new IntakeError('VALIDATION', `there is no backup at ${source}`);
  let check: SqliteCheck;
  try {
    check = await checkSqlite(source);
  } catch (e) {
    if (e instanceof IntakeError) throw e;
    throw new IntakeError('VALIDATION', `${source} is not a SQLite database this service can use: ${(e as Error).message}`);
  }
  if (check.problems.length > 0) throw new IntakeError('VALIDATION', `${source} fails SQLite's integrity check (${check.problems.slice(0, 3).join('; ')}): not restored`);
  if (check.applied.length === 0) throw new IntakeError('VALIDATION', `${source} is not a backup of this service (it has no migrations table): not restored`);
  if (check.unknown.length > 0) throw new IntakeError('VALIDATION', `${source} comes from a newer release (migrations ${check.unknown.join(', ')}): run that release to restore it`);

  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  let previous: string | undefined;
  if (await exists(target)) {
    const why = sqliteInUse(target);
    if (why) throw new IntakeError('CONFLICT', `${target} is in use, not restored: ${why}`);
    // sqliteInUse's connection was the last one and has closed: SQLite checkpointed and removed the WAL. One left by
    // a crash of a process that is gone belongs to the old file and would be replayed into the restored one.
    previous = await unusedName(`${target}.before-restore-${stamp}`);
    await rename(target, previous);
    for (const side of ['-wal', '-shm']) {
      if (await exists(target + side)) await rename(target + side, previous + side);
    }
  }
  await mkdir(path.dirname(target), { recursive: true });
  await durableCopy(source, target);

  let keyFile: string | undefined;
  let previousKey: string | undefined;
  const keyBackup = `${source}${BACKUP_KEY_SUFFIX}`;
  if (await exists(keyBackup)) {
    keyFile = path.join(path.dirname(target), 'secret.key');
    if (await exists(keyFile)) {
      if ((await readFile(keyFile, 'utf8')).trim() !== (await readFile(keyBackup, 'utf8')).trim()) {
        previousKey = await unusedName(`${keyFile}.before-restore-${stamp}`);
        await rename(keyFile, previousKey);
      }
    }
    await durableCopy(keyBackup, keyFile);
  }
  return { database: target, ...(previous ? { previous } : {}), ...(keyFile ? { keyFile } : {}), ...(previousKey ? { previousKey } : {}), check };
}
