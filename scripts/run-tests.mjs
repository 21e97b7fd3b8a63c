// Runs every test file under test/ (recursively, *.test.ts) with Node's own test runner, from the plain JavaScript
// that scripts/build-tests.mjs writes under .test-build/ (a second or more of tsx start-up saved per file and per
// child; see that script). INTAKE_TEST_TSX=1 runs the TypeScript through tsx instead, as before.
// Node 20's --test does not expand globs for .ts files, hence this small finder.
// Extra arguments are passed on: `node scripts/run-tests.mjs test/intake` runs only that folder.
// INTAKE_TEST_CONCURRENCY sets how many files run at once (default 4, on two cores: most of a file's time is waiting
// on sockets, children and PostgreSQL, and compiled tests leave the cores idle at 2; see docs/development/tests.md).
// Every file is independent (ports 0, its own data directories and PostgreSQL schemas).
// INTAKE_TEST_DURATIONS=1 adds, on stderr, the slowest files at the end (scripts/test-durations.mjs).
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { OUT, buildTests } from './build-tests.mjs';

function find(dir) {
  const st = statSync(dir);
  if (st.isFile()) return dir.endsWith('.test.ts') ? [dir] : [];
  return readdirSync(dir).sort().flatMap((name) => find(join(dir, name)));
}

function concurrency() {
  const set = process.env.INTAKE_TEST_CONCURRENCY?.trim();
  if (!set) return 4;
  const n = Number(set);
  if (!Number.isInteger(n) || n < 1 || n > 64) {
    console.error(`INTAKE_TEST_CONCURRENCY must be a whole number from 1 to 64, not "${set}"`);
    process.exit(2);
  }
  return n;
}

const roots = process.argv.slice(2);
const files = (roots.length ? roots : ['test', 'bench/test']).flatMap(find);
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const fromSource = process.env.INTAKE_TEST_TSX === '1';
if (!fromSource) await buildTests();
const root = fileURLToPath(new URL('..', import.meta.url));
/** A test file as the runner is given it: its compiled twin, unless the run is from source. */
const runnable = (f) => (fromSource ? f : join(OUT, relative(root, f)).replace(/\.ts$/, '.js'));
const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout'];
if (process.env.INTAKE_TEST_DURATIONS === '1') {
  reporters.push(`--test-reporter=${new URL('./test-durations.mjs', import.meta.url).pathname}`, '--test-reporter-destination=stderr');
}
const res = spawnSync(
  process.execPath,
  [...(fromSource ? ['--import', 'tsx'] : []), '--test', `--test-concurrency=${concurrency()}`, ...reporters, ...files.map(runnable)],
  {
    stdio: 'inherit',
    // Four files at once may each run three instances on PostgreSQL: at the default pool of 10 connections each
    // they passed the server's 100 (max_connections) and tests failed with "too many clients". Tests need few.
    env: { INTAKE_DATABASE_POOL: '4', ...process.env, NODE_ENV: 'test' },
  },
);
process.exit(res.status ?? 1);
