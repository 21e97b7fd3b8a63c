// A test reporter for Node's runner that prints, at the end, the slowest test files: the sum of each file's
// top-level tests, slowest first. `INTAKE_TEST_DURATIONS=1 node scripts/run-tests.mjs` adds it (on stderr) to the
// usual spec output. On a machine shared with other work the figures move a lot; compare files with each other.
export default async function* durations(source) {
  const perFile = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { nesting, file, details } = event.data;
    if (nesting !== 0 || !file) continue;
    perFile.set(file, (perFile.get(file) ?? 0) + (details?.duration_ms ?? 0));
  }
  const rows = [...perFile].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((s, [, ms]) => s + ms, 0);
  const root = process.cwd() + '/';
  yield `\nslowest test files (sum of their top-level tests; ${rows.length} files, ${(total / 1000).toFixed(0)} s in all):\n`;
  // Compiled runs report .test-build/…/x.js: named by their source, which is what a reader opens.
  const named = (file) => file.replace(root, '').replace(/^\.test-build\//, '').replace(/\.js$/, '.ts');
  for (const [file, ms] of rows.slice(0, 25)) yield `${(ms / 1000).toFixed(1).padStart(8)} s  ${named(file)}\n`;
}
