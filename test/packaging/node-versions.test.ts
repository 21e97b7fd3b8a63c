// Which Node releases the service supports, said the same way everywhere it is said: package.json's engines (what npm
// checks), the machine CI runs on, the second release CI runs the unit and store tests on (.ci/run), and the image.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

const root = realpathSync(path.resolve(import.meta.dirname, '../..'));
const read = (f: string) => readFileSync(path.join(root, f), 'utf8');

/** The `^A.B.C` ranges of an engines string: the major and the lowest minor.patch of each. */
function ranges(engines: string): { major: number; minor: number; patch: number }[] {
  return engines.split('||').map((r) => {
    const m = /^\s*\^(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(r);
    assert.ok(m, `"${r.trim()}" is a caret range`);
    return { major: Number(m[1]), minor: Number(m[2] ?? 0), patch: Number(m[3] ?? 0) };
  });
}

function admits(engines: string, version: string): boolean {
  const [major, minor, patch] = version.replace(/^v/, '').split('.').map(Number) as [number, number, number];
  return ranges(engines).some((r) => r.major === major && (minor > r.minor || (minor === r.minor && patch >= r.patch)));
}

describe('supported Node releases', () => {
  const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;

  it('engines names the LTS lines 20 (from 20.19, which soap and html-to-text need), 22 and 24, and admits this Node', () => {
    assert.deepEqual(ranges(engines).map((r) => r.major), [20, 22, 24]);
    assert.ok(!admits(engines, '20.18.3') && admits(engines, '20.19.0') && admits(engines, '22.0.0') && admits(engines, '24.11.1'));
    assert.ok(!admits(engines, '21.7.3') && !admits(engines, '23.0.0') && !admits(engines, '25.0.0'), 'odd releases are not tested');
    assert.ok(admits(engines, process.version), `this Node (${process.version}) is one the package supports`);
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node?: string } }> };
    assert.equal(lock.packages['']!.engines?.node, engines, 'package-lock.json agrees (npm install rewrites it)');
  });

  it('CI runs the unit and store tests on Node 22 after the full suite, and fails when they fail', () => {
    const ci = read('.ci/run');
    assert.match(ci, /^set -euo pipefail$/m);
    const step = /^scripts\/other-node\.sh 22(.*)$/m.exec(ci);
    assert.ok(step, '.ci/run calls scripts/other-node.sh 22 on a line of its own');
    assert.equal(step[1]!.trim(), '', 'its exit status is not ignored (no "|| true", no pipe)');
    assert.ok(ci.indexOf('npm test') < step.index, 'after the main suite');
    assert.match(read('scripts/other-node.sh'), /^exit "\$status"$/m, 'the script exits with the tests\' status');
  });

  it('the image runs a supported release', () => {
    const from = [...read('Dockerfile').matchAll(/^FROM node:(\d+)-/gm)].map((m) => Number(m[1]));
    assert.ok(from.length > 0 && from.every((major) => ranges(engines).some((r) => r.major === major)));
  });
});
