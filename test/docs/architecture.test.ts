// docs/development/architecture.md's table of narrow ports is checked against the code: every consumer it names
// uses the port it is listed with and takes no whole Store, so the table cannot drift from what modules can touch.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGE = readFileSync(path.join(ROOT, 'docs/development/architecture.md'), 'utf8');
const PORTS = readFileSync(path.join(ROOT, 'src/domain/store/ports.ts'), 'utf8');

interface Row { ports: string[]; consumers: string[] }

function table(): Row[] {
  const start = PAGE.indexOf('| Port | Consumer |');
  assert.ok(start >= 0, 'architecture.md has its table of ports');
  const rows: Row[] = [];
  for (const line of PAGE.slice(start).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const [, portCell = '', consumerCell = ''] = line.split('|');
    // A port's cell may explain it in parentheses: only the names before count.
    const ports = [...portCell.split('(')[0]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!);
    const consumers = [...consumerCell.matchAll(/`([\w./-]+)`/g)].map((m) => m[1]!);
    rows.push({ ports, consumers });
  }
  return rows;
}

/** The TypeScript files a consumer names: the file, or every file of the folder. */
function filesOf(consumer: string): string[] {
  const p = path.join(ROOT, 'src', consumer);
  if (!statSync(p).isDirectory()) return [p];
  return readdirSync(p).filter((f) => f.endsWith('.ts')).map((f) => path.join(p, f));
}

/** A module that takes the whole store: the Store type imported for its own use. */
const takesWholeStore = (text: string) => /import type \{[^}]*\bStore\b[^}]*\} from '[./]+domain\/store\/store\.ts'/.test(text)
  && /(:\s*Store\b(?!\w))|(<Store>)/.test(text);

void describe('architecture.md, the table of narrow ports', () => {
  void it('names ports that exist, and each consumer uses its port and takes no whole Store', () => {
    const rows = table();
    assert.ok(rows.length >= 15, 'the table lists the ports');
    for (const { ports, consumers } of rows) {
      assert.ok(ports.length > 0 && consumers.length > 0, JSON.stringify({ ports, consumers }));
      for (const port of ports) assert.match(PORTS, new RegExp(`export type ${port}\\b`), `${port} is declared in domain/store/ports.ts`);
      for (const consumer of consumers) {
        const texts = filesOf(consumer).map((f) => readFileSync(f, 'utf8'));
        for (const port of ports) assert.ok(texts.some((t) => new RegExp(`\\b${port}\\b`).test(t)), `${consumer} uses ${port}`);
        for (const [i, t] of texts.entries()) assert.ok(!takesWholeStore(t), `${filesOf(consumer)[i]} takes the whole Store`);
      }
    }
  });

  void it('no channel, nor http/, auth/ or the hand-off, takes the whole Store', () => {
    const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
    const whole = ['channels', 'http', 'auth', 'handoff'].flatMap((d) => walk(path.join(ROOT, 'src', d)))
      .filter((f) => takesWholeStore(readFileSync(f, 'utf8'))).map((f) => path.relative(ROOT, f));
    assert.deepEqual(whole, []);
  });
});
