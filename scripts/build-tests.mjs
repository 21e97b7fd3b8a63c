// Turns the TypeScript of src/, test/, bench/ and scripts/ into plain JavaScript under .test-build/, so that the test
// files and the `serve` children they start run on Node alone instead of through tsx's loader.
//
// Why: under tsx every test process paid 2.4–2.7 s of CPU before its first test (its loader thread compiling and
// resolving the service's module graph), and so did every child and every SQLite write thread; with ~150 test files
// on two cores that start-up alone filled most of a three-minute budget (docs/development/tests.md, "Speed").
// esbuild strips the types of all ~700 files in about a second; the type check stays `tsc --noEmit`, run beside
// the tests by scripts/test.mjs, so nothing is checked less.
//
// The tree under .test-build/ mirrors the repository: each .ts file has its .js next to a link to the .ts itself
// (tests that read source text find it), every other file and every other top-level entry (package.json,
// node_modules, docs, fixtures, migrations, views) is a symbolic link to the original, so paths computed from
// import.meta.dirname land on the same files as they do from source. Relative imports written with `.ts` are
// rewritten to `.js`, as `tsc` does with rewriteRelativeImportExtensions for dist/.
//
// Only what changed since the last build is written again (mtime), so a second run costs a few hundred ms.
import { transform } from 'esbuild';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const OUT = join(root, '.test-build');
/** The folders that hold TypeScript; everything else at the top is linked as it is. */
const COMPILED = new Set(['src', 'test', 'bench', 'scripts']);
/** Never mirrored: the mirror itself, git's data, and what tests write and must keep in the repository. */
const SKIPPED = new Set(['.test-build', '.git']);

// verbatimModuleSyntax as in tsconfig.json: an import is dropped only when written `import type`, so a module
// imported for its side effects is still imported.
const TSCONFIG = { compilerOptions: { verbatimModuleSyntax: true, target: 'es2022' } };
/** `from "./x.ts"`, `import("./x.ts")`, `import "./x.ts"` as esbuild prints them (always double quotes). */
const TS_SPECIFIER = /((?:\bfrom|\bimport)\s*\(?\s*)"(\.{1,2}\/[^"\n]*?)\.ts"/g;

/** A symbolic link at `at` to `target`, unless one that points there is already in place. */
function link(target, at) {
  const rel = relative(join(at, '..'), target);
  try {
    if (readlinkSync(at) === rel) return;
    rmSync(at, { recursive: true, force: true });
  } catch (e) {
    if (e.code === 'EINVAL') rmSync(at, { recursive: true, force: true }); // a real file or folder from before
    else if (e.code !== 'ENOENT') throw e;
  }
  symlinkSync(rel, at);
}

function newer(src, out) {
  try {
    return statSync(src).mtimeMs > statSync(out).mtimeMs;
  } catch {
    return true;
  }
}

async function mirror(dir, out, jobs) {
  if (existsSync(out) && lstatSync(out).isSymbolicLink()) rmSync(out);
  mkdirSync(out, { recursive: true });
  const entries = readdirSync(dir, { withFileTypes: true });
  // What the source no longer has goes from the mirror too: a deleted test must not run on from its old .js.
  const kept = new Set(entries.flatMap((e) => (e.name.endsWith('.ts') ? [e.name, e.name.slice(0, -3) + '.js'] : [e.name])));
  for (const name of readdirSync(out)) if (!kept.has(name)) rmSync(join(out, name), { recursive: true, force: true });
  for (const entry of entries) {
    const src = join(dir, entry.name);
    const dst = join(out, entry.name);
    if (entry.isDirectory()) {
      await mirror(src, dst, jobs);
      continue;
    }
    link(src, dst);
    if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      const js = dst.slice(0, -3) + '.js';
      if (newer(src, js)) jobs.push(compile(src, js));
    }
  }
}

async function compile(src, js) {
  const code = readFileSync(src, 'utf8');
  const out = await transform(code, { loader: 'ts', format: 'esm', target: 'node20', tsconfigRaw: TSCONFIG, sourcefile: src });
  writeFileSync(js, out.code.replace(TS_SPECIFIER, '$1"$2.js"'));
}

export async function buildTests() {
  mkdirSync(OUT, { recursive: true });
  const jobs = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const src = join(root, entry.name);
    if (COMPILED.has(entry.name) && entry.isDirectory()) await mirror(src, join(OUT, entry.name), jobs);
    else link(src, join(OUT, entry.name));
  }
  // Screenshots and other test output go to the repository's own folder, which must exist to be linked to.
  mkdirSync(join(root, 'test-results'), { recursive: true });
  link(join(root, 'test-results'), join(OUT, 'test-results'));
  await Promise.all(jobs);
  return jobs.length;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const n = await buildTests();
  process.stderr.write(`test build: ${n} files compiled in ${Date.now() - started} ms\n`);
}
