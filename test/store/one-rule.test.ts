// One rule, one place: what the store refuses, and in which words, is written once in src/store/common/refusals.ts
// (and the input checks beside it in store/common/); the engine folders only decide when a refusal applies. A refusal
// written again inside src/store/sqlite/ or src/store/postgres/ would let the engines drift apart, so this fails.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ENGINES = ['src/store/sqlite', 'src/store/postgres'];
const REFUSALS = 'src/store/common/refusals.ts';

function sources(folder: string): { file: string; text: string }[] {
  return readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ file: path.join(folder, f), text: readFileSync(path.join(ROOT, folder, f), 'utf8') }));
}

/**
 * The messages of refusals.ts as patterns: each `${…}` in the template matches whatever an engine would interpolate
 * there, the rest must match literally, in any quotes.
 */
function refusalPatterns(): { message: string; pattern: RegExp }[] {
  const text = readFileSync(path.join(ROOT, REFUSALS), 'utf8');
  const found = [...text.matchAll(/new IntakeError\('[A-Z_]+', (?:`([^`]*)`|'([^']*)')\)/g)].map((m) => m[1] ?? m[2]!);
  return found.map((message) => {
    const parts = message.split(/\$\{[^}]*\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    return { message, pattern: new RegExp(`[\`'"]${parts.join('\\$\\{[^}]*\\}')}[\`'"]`) };
  });
}

void describe('the store writes each refusal once', () => {
  void it('finds the refusals it guards (the scan would pass vacuously otherwise)', () => {
    const patterns = refusalPatterns();
    assert.ok(patterns.length >= 20, `only ${patterns.length} messages read from ${REFUSALS}`);
    assert.ok(patterns.some((p) => p.pattern.test('`customer ${c.customerId} not found`')), 'a pattern matches a rewritten message');
  });

  for (const folder of ENGINES) {
    void it(`${folder} builds no IntakeError of its own`, () => {
      const files = sources(folder);
      assert.ok(files.length > 10, `${folder} has its sources`);
      const offenders = files.filter(({ text }) => /\bnew IntakeError\s*\(|import\s*\{[^}]*(?<!type )\bIntakeError\b[^}]*\}/.test(text));
      assert.deepEqual(offenders.map((f) => f.file), [], 'use notFound / alreadyExists / invalid from store/common/refusals.ts');
    });

    void it(`${folder} writes none of the refusals' messages again`, () => {
      const patterns = refusalPatterns();
      const again = sources(folder).flatMap(({ file, text }) =>
        patterns.filter((p) => p.pattern.test(text)).map((p) => `${file}: ${p.message}`));
      assert.deepEqual(again, [], 'a refusal is written in store/common/refusals.ts only');
    });
  }
});
