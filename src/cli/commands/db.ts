import path from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { loadConfig } from '../../config.ts';
import { IntakeError } from '../../domain/errors.ts';
import { copySqliteToPostgres, type CopyProgress } from '../../store/copy/copy.ts';
import { openEngine, SQLITE_FILE_NAME } from '../../store/open.ts';
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
  const db = program.command('db').description('the database: migrations, and moving from SQLite to PostgreSQL');

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
}
