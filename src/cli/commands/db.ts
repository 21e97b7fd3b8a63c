import path from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { loadConfig } from '../../config.ts';
import { IntakeError } from '../../domain/errors.ts';
import { copySqliteToPostgres, type CopyProgress } from '../../store/copy/copy.ts';
import { openEngine, SQLITE_FILE_NAME } from '../../store/open.ts';
import { SECRET_KEY_FILE } from '../../auth/secret-key-file.ts';
import { backupSqlite, checkSqlite, restoreSqlite } from '../../store/backup/sqlite.ts';
import { postgresMigrationState } from '../../store/postgres/migration-state.ts';
import { printJson, printTable, println } from '../output.ts';

/** Where the configured database is, for messages: never the password of a URL. */
function describe(databaseUrl: string | undefined, dataDir: string): string {
  if (!databaseUrl) return `SQLite ${path.join(dataDir, SQLITE_FILE_NAME)}`;
  const u = new URL(databaseUrl);
  return `PostgreSQL ${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
}

function progressBar(): { update(p: CopyProgress): void; stop(): void } {
  // The bar is for a person watching; in a pipe or a log file it would only be noise.
  if (!process.stderr.isTTY) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: 'copying |{bar}| {percentage}% | {value} of {total} rows | {table}', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(p) {
      if (!started) {
        bar.start(Math.max(p.total, 1), p.done, { table: p.table });
        started = true;
      } else {
        bar.update(p.done, { table: p.table });
      }
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}

export function registerDbCommands(program: Command): void {
  const db = program.command('db').description('the database: migrations, backups, checks, and moving from SQLite to PostgreSQL');

  db.command('migrate')
    .description('apply the pending migrations to the configured database (serve also does this at start)')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { json?: boolean }) => {
      const config = loadConfig();
      const store = await openEngine(config);
      try {
        const applied = await store.migrate();
        if (opts.json) return printJson({ database: store.kind, applied });
        const where = describe(config.databaseUrl, config.dataDir);
        println(applied.length === 0 ? `${where} is up to date` : `applied to ${where}: ${applied.join(', ')}`);
      } finally {
        await store.close();
      }
    });

  db.command('copy')
    .description('copy a SQLite installation into PostgreSQL; safe to run again (a later run copies only what is new)')
    .requiredOption('--from <file>', 'the SQLite database file (e.g. ./data/intake.sqlite)')
    .option('--to <url>', 'the PostgreSQL database (postgres://…); default INTAKE_DATABASE_URL')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { from: string; to?: string; json?: boolean }) => {
      const to = opts.to ?? loadConfig().databaseUrl;
      if (!to) throw new IntakeError('VALIDATION', 'say where to copy to: --to postgres://… (or set INTAKE_DATABASE_URL)');
      if (!/^postgres(ql)?:\/\//.test(to)) throw new IntakeError('VALIDATION', '--to must be a postgres:// URL');
      const bar = progressBar();
      let result;
      try {
        result = await copySqliteToPostgres({ from: path.resolve(opts.from), to, onProgress: (p) => bar.update(p) });
      } finally {
        bar.stop();
      }
      if (opts.json) return printJson(result);
      printTable(['table', 'rows in source', 'written now'], result.tables.map((t) => [t.table, t.rows, t.written]));
      println(`copied ${opts.from} to ${describe(to, '')}; run the same command again to copy what arrived since`);
    });

  db.command('backup')
    .description('copy the SQLite database while the service runs (consistent, fsynced), with the secret key file beside it')
    .requiredOption('--to <file>', 'the backup file to write (replaced if it exists)')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { to: string; json?: boolean }) => {
      const config = loadConfig();
      if (config.databaseUrl) throw new IntakeError('VALIDATION', 'the database is PostgreSQL: back it up with pg_dump (docs/operators/runbook.md, "Backups")');
      const result = await backupSqlite(path.join(config.dataDir, SQLITE_FILE_NAME), opts.to, path.join(config.dataDir, SECRET_KEY_FILE));
      if (opts.json) return printJson({ ...result, secretKeyFromEnvironment: Boolean(config.secretKey) });
      println(`backed up ${describe(undefined, config.dataDir)} to ${result.file} (${result.bytes} bytes)`);
      if (result.keyFile) println(`the secret key file is copied to ${result.keyFile}: keep the two together, the backup's webhook secrets and IMAP passwords open only with it`);
      if (config.secretKey) println('the secret key is INTAKE_SECRET_KEY: keep its value with the backup, the backup\'s webhook secrets and IMAP passwords open only with it');
    });

  db.command('restore')
    .description('put a backup made by "db backup" in place of the SQLite database (refused while the service runs on it)')
    .argument('<file>', 'the backup file')
    .option('--json', 'print the result as JSON')
    .action(async (file: string, opts: { json?: boolean }) => {
      const config = loadConfig();
      if (config.databaseUrl) throw new IntakeError('VALIDATION', 'the database is PostgreSQL: restore it with pg_restore (docs/operators/runbook.md, "Backups")');
      const r = await restoreSqlite(file, path.join(config.dataDir, SQLITE_FILE_NAME));
      if (opts.json) return printJson({ database: r.database, previous: r.previous, keyFile: r.keyFile, previousKey: r.previousKey, pending: r.check.pending });
      println(`restored ${path.resolve(file)} to ${r.database}`);
      if (r.previous) println(`the database that was there is kept as ${r.previous}`);
      if (r.keyFile) println(`the secret key file is restored to ${r.keyFile}${r.previousKey ? ` (the one that was there is kept as ${r.previousKey})` : ''}`);
      else println('no secret key file was beside the backup: the service needs the key the backup was taken with (the secret.key of that data directory, or INTAKE_SECRET_KEY) to open its webhook secrets and IMAP passwords');
      if (r.check.pending.length > 0) println(`the next start applies ${r.check.pending.length} migrations to it: ${r.check.pending.join(', ')}`);
    });

  db.command('check')
    .description('check the database: SQLite\'s integrity check, foreign keys, and which migrations are applied or pending')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { json?: boolean }) => {
      const config = loadConfig();
      const where = describe(config.databaseUrl, config.dataDir);
      if (config.databaseUrl) {
        const state = await postgresMigrationState(config.databaseUrl);
        if (opts.json) printJson({ database: 'postgres', ...state });
        else {
          println(`${where}: ${state.applied.length} migrations applied${state.pending.length ? `, pending: ${state.pending.join(', ')}` : ', none pending'}`);
          if (state.unknown.length) println(`applied by a newer release: ${state.unknown.join(', ')}`);
        }
        // PostgreSQL checks its own pages (data checksums, amcheck): nothing of that is this command's.
        if (state.unknown.length > 0) process.exitCode = 1;
        return;
      }
      const c = await checkSqlite(path.join(config.dataDir, SQLITE_FILE_NAME));
      const sound = c.problems.length === 0 && c.foreignKeyProblems === 0 && c.unknown.length === 0;
      if (opts.json) printJson({ database: 'sqlite', ok: sound, ...c });
      else {
        println(c.problems.length === 0 ? `${where}: integrity check ok` : `${where}: integrity check FAILED:\n  ${c.problems.join('\n  ')}`);
        if (c.foreignKeyProblems > 0) println(`${c.foreignKeyProblems} rows whose foreign keys point nowhere`);
        println(`${c.applied.length} migrations applied${c.pending.length ? `, pending (applied at the next start or by "db migrate"): ${c.pending.join(', ')}` : ', none pending'}`);
        if (c.unknown.length) println(`applied by a newer release: ${c.unknown.join(', ')}`);
      }
      if (!sound) process.exitCode = 1;
    });
}
