import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveClientPath, MAX_NAME_BYTES, MAX_PATH_NAME_BYTES, newNameProblem } from '../../../src/channels/files/paths.ts';

test('hostile paths are refused or stay inside the customer root', () => {
  // [cwd, input, expected path or null when refused]
  const table: [string, string | null, string | null][] = [
    ['/', '../etc/passwd', null],
    ['/', '..', null],
    ['/ordini', '../../etc/passwd', null],
    ['/ordini', '../..', null],
    ['/', '/../etc/passwd', null],
    ['/', '/ordini/../../x', null],
    ['/', '..\\..\\etc\\passwd', null],
    ['/', 'ordini\\x.csv', null],
    ['/', '/ordini/a\u0000b.csv', null],
    ['/', '/ordini/a\nb.csv', null],
    ['/', '/ordini/a\rb.csv', null],
    ['/', '/ordini/\u001b[31mred', null],
    ['/', '/ordini/a\u007fb', null],
    ['/', `/ordini/${'a'.repeat(MAX_PATH_NAME_BYTES + 1)}`, null],
    // Two-byte letters: one byte too many although only half as many characters.
    ['/', `/ordini/${'è'.repeat(Math.ceil((MAX_PATH_NAME_BYTES + 1) / 2))}`, null],
    ['/', `/${'a/'.repeat(3000)}`, null],
    // Absolute paths are paths of the virtual tree, not of the server's disk.
    ['/ordini', '/etc/passwd', '/etc/passwd'],
    ['/', '', '/'],
    [ '/ordini', null, '/ordini'],
    ['/ordini', '.', '/ordini'],
    ['/ordini', '..', '/'],
    ['/ordini', 'x.csv', '/ordini/x.csv'],
    ['/', '//ordini///x.csv', '/ordini/x.csv'],
    ['/', '/ordini/./elaborati/../x.csv', '/ordini/x.csv'],
    ['/', '/ordini/elaborati/..', '/ordini'],
    // No decoding: percent-encoded dots are a literal name.
    ['/', '/ordini/%2e%2e/%2e%2e/etc', '/ordini/%2e%2e/%2e%2e/etc'],
    ['/', '/ordini/..%2f..%2fetc', '/ordini/..%2f..%2fetc'],
    ['/', '/ordini/...', '/ordini/...'],
    ['/', '/ordini/ordine è.csv', '/ordini/ordine è.csv'],
    ['/', `/ordini/${'a'.repeat(MAX_NAME_BYTES)}`, `/ordini/${'a'.repeat(MAX_NAME_BYTES)}`],
    // The outcome file of a name of the longest length is longer than it, and can be asked for.
    ['/', `/ordini/esiti/${'a'.repeat(MAX_NAME_BYTES)}.esito.json`, `/ordini/esiti/${'a'.repeat(MAX_NAME_BYTES)}.esito.json`],
  ];
  for (const [cwd, input, expected] of table) {
    const r = resolveClientPath(cwd, input);
    if (expected === null) {
      assert.equal(r.ok, false, `${JSON.stringify(input)} from ${cwd} must be refused`);
      if (!r.ok) assert.ok(r.reason.length > 0);
    } else {
      assert.deepEqual(r.ok && r.path, expected, `${JSON.stringify(input)} from ${cwd}`);
    }
  }
});

test('a new file\'s name is held to MAX_NAME_BYTES, counted in bytes', () => {
  assert.equal(newNameProblem('a'.repeat(MAX_NAME_BYTES)), undefined);
  assert.match(newNameProblem('a'.repeat(MAX_NAME_BYTES + 1)) ?? '', /nome troppo lungo \(al massimo 255 byte\)/);
  // 128 two-byte letters: 256 bytes, one too many although only 128 characters.
  assert.ok(newNameProblem('è'.repeat(128)));
});

test('every accepted path is absolute, normalised and free of dot segments', () => {
  for (const input of ['a/b/../c', './a/./b', '/a//b/', 'a/b/c/../../d']) {
    const r = resolveClientPath('/', input);
    assert.ok(r.ok);
    assert.match(r.path, /^\/(?:[^/]+(?:\/[^/]+)*)?$/);
    assert.ok(!r.segments.includes('..') && !r.segments.includes('.'));
  }
});
