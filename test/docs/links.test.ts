// Links in the README and docs/ must lead somewhere: every relative link names a file of the repository, and the
// development pages link only inside it (the next engineers read them offline, from a checkout).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');

function pages(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? pages(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []);
}

const ALL = [path.join(ROOT, 'README.md'), ...pages(path.join(ROOT, 'docs'))];

function links(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

void describe('documentation links', () => {
  it('finds the pages', () => {
    assert.ok(ALL.length > 10, `only ${ALL.length} pages found`);
  });

  it('every relative link names an existing file', () => {
    const broken: string[] = [];
    for (const file of ALL) {
      for (const link of links(file)) {
        if (/^[a-z]+:/i.test(link) || link.startsWith('#')) continue;
        const target = path.resolve(path.dirname(file), link.split('#')[0]!);
        if (!existsSync(target)) broken.push(`${path.relative(ROOT, file)} → ${link}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('development pages link only inside the repository', () => {
    const outside = pages(path.join(ROOT, 'docs/development')).flatMap((file) =>
      links(file).filter((l) => /^[a-z]+:/i.test(l)).map((l) => `${path.relative(ROOT, file)} → ${l}`));
    assert.deepEqual(outside, []);
  });
});
