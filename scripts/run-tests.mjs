// Runs every test file under test/ (recursively, *.test.ts) with Node's own test runner and tsx.
// Node 20's --test does not expand globs for .ts files, hence this small finder.
// Extra arguments are passed on: `node scripts/run-tests.mjs test/intake` runs only that folder.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function find(dir) {
  const st = statSync(dir);
  if (st.isFile()) return dir.endsWith('.test.ts') ? [dir] : [];
  return readdirSync(dir).sort().flatMap((name) => find(join(dir, name)));
}

const roots = process.argv.slice(2);
const files = (roots.length ? roots : ['test', 'bench/test']).flatMap(find);
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const res = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(res.status ?? 1);
