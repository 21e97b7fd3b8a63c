/**
 * Benchmarks of channels that are not part of the service yet: they say so instead of measuring something else.
 * A channel counts as wired when its module exists and the composition root (src/main.ts) starts it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/children.ts';
import type { BenchResult } from '../lib/types.ts';

export function channelWired(module: string, starter: string): boolean {
  if (!existsSync(path.join(ROOT, module))) return false;
  return readFileSync(path.join(ROOT, 'src/main.ts'), 'utf8').includes(starter);
}

export function notYet(what: string, why: string): BenchResult {
  return { settings: {}, durability: 'n/a', metrics: [], notes: [], skipped: `not yet: ${what} (${why})` };
}
