// Each part of the store port has a file of the same name in both engine folders (docs/development/architecture.md):
// a method of the port (src/domain/store/) that both engines implement is found in a file of the same name in
// src/store/sqlite/ and src/store/postgres/, so that a reader comparing the engines opens the same file in each.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');

function read(folder: string): { name: string; text: string }[] {
  return readdirSync(path.join(ROOT, folder)).filter((f) => f.endsWith('.ts'))
    .map((name) => ({ name, text: readFileSync(path.join(ROOT, folder, name), 'utf8') }));
}

/** The methods of the port's interfaces (Store and its parts, the *Store interfaces). */
function portMethods(): string[] {
  const names = new Set<string>();
  for (const { text } of read('src/domain/store')) {
    for (const body of text.matchAll(/^export interface (?:\w+Store|Store)\b[^{]*\{([\s\S]*?)^\}/gm)) {
      for (const m of body[1]!.matchAll(/^ {2}(?:readonly )?(\w+)\??\(/gm)) names.add(m[1]!);
    }
  }
  return [...names].sort();
}

/** The files of an engine folder that implement `method`: an object member `async method(` or `method: …`. */
function filesOf(files: { name: string; text: string }[], method: string): string[] {
  const member = new RegExp(`^ {4,6}(?:async )?${method}\\s*[(:]`, 'm');
  return files.filter((f) => member.test(f.text)).map((f) => f.name);
}

void describe('the engines implement each part of the port in files of the same name', () => {
  const methods = portMethods();
  const sqlite = read('src/store/sqlite');
  const postgres = read('src/store/postgres');

  void it('reads the port (the check would pass vacuously otherwise)', () => {
    assert.ok(methods.length > 100, `only ${methods.length} methods read from src/domain/store/`);
    assert.deepEqual(filesOf(sqlite, 'getCustomerByCode'), ['customers.ts']);
  });

  void it('finds every method both engines implement in a file of the same name in each', () => {
    const apart: string[] = [];
    for (const method of methods) {
      const a = filesOf(sqlite, method);
      const b = filesOf(postgres, method);
      if (a.length === 0 || b.length === 0) continue;
      if (!a.some((f) => b.includes(f))) apart.push(`${method}: sqlite/${a.join(', ')} but postgres/${b.join(', ')}`);
    }
    assert.deepEqual(apart, [], 'move the method so that both engines hold it in a file of the same name');
  });
});
