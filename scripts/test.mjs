// `npm test`: the type check, the linter and every test file, started together rather than one after the other.
// The test files spend much of their time waiting (on sockets, child processes, PostgreSQL), so the checks' CPU
// fits in that waiting instead of adding its own minute or more in front of it. The tests' output goes straight
// through; each check's output is held and printed when it ends (at once if it failed), so the two do not mix.
// Exit status: 0 only if all three succeeded. Arguments are passed to scripts/run-tests.mjs.
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (p) => fileURLToPath(new URL(`../node_modules/${p}`, import.meta.url));

function run(name, args, inherit) {
  const started = Date.now();
  const child = spawn(process.execPath, args, { cwd: root, stdio: inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
  // The checks are pure CPU and finish well inside the tests' time; the tests are mostly waiting, and each wait ends
  // sooner when their processes get a core at once. So the checks take what the tests leave (nice 10).
  if (!inherit) {
    try {
      setPriority(child.pid, 10);
    } catch { /* a system that refuses: the checks just compete as before */ }
  }
  let output = '';
  if (!inherit) {
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
  }
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      const ok = code === 0;
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      const line = `${name}: ${ok ? 'ok' : `failed (${signal ?? `exit ${code}`})`} in ${seconds} s`;
      if (!inherit && !ok) process.stderr.write(`\n---- ${name} ----\n${output}\n`);
      resolve({ ok, line });
    });
  });
}

const results = await Promise.all([
  run('typecheck', [bin('typescript/bin/tsc'), '--noEmit'], false),
  run('lint', [bin('eslint/bin/eslint.js'), '.'], false),
  run('tests', [fileURLToPath(new URL('./run-tests.mjs', import.meta.url)), ...process.argv.slice(2)], true),
]);
process.stderr.write(`\n${results.map((r) => r.line).join('\n')}\n`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
