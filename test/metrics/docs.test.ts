// docs/operators/metrics.md and https.md against the code: every metric the page names (in its table, its queries
// and its alert rules) exists in a live scrape with the documented type, every intake_ metric scraped is documented,
// and every setting the pages list is one src/config.ts reads.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { request } from 'undici';
import { TIMED_WRITES } from '../../src/metrics/store-timing.ts';
import { QUEUE_NAMES } from '../../src/domain/store/stats.ts';
import { startTestService } from '../helpers/service.ts';

const root = path.resolve(import.meta.dirname, '../..');
const metricsDoc = readFileSync(path.join(root, 'docs/operators/metrics.md'), 'utf8');
const httpsDoc = readFileSync(path.join(root, 'docs/operators/https.md'), 'utf8');

void it('the metrics page names exactly the intake_ metrics a scrape shows, with their types, queues and operations', async () => {
  const t = await startTestService({ INTAKE_METRICS_PORT: '0' });
  let text: string;
  try {
    const res = await request(`http://127.0.0.1:${t.service.ports.metrics}/metrics`);
    text = await res.body.text();
  } finally {
    await t.close();
  }
  const scraped = new Map([...text.matchAll(/^# TYPE (intake_\w+) (\w+)$/gm)].map((m) => [m[1]!, m[2]!]));
  assert.ok(scraped.size >= 7, text);
  const documented = new Map([...metricsDoc.matchAll(/^\| `(intake_\w+)` \| (\w+) \|/gm)].map((m) => [m[1]!, m[2]!]));
  assert.deepEqual([...documented].sort(), [...scraped].sort(), 'the table lists every metric with its type');
  // Names in queries and alert rules, without the histogram series suffixes.
  for (const [, name] of metricsDoc.matchAll(/\b(intake_\w+)/g)) {
    const family = name!.replace(/_(bucket|count|sum)$/, '');
    assert.ok(scraped.has(family), `${name} in the docs is not a metric`);
  }
  for (const q of QUEUE_NAMES) assert.match(metricsDoc, new RegExp(`\`${q}\``), `queue ${q} documented`);
  for (const op of TIMED_WRITES) assert.match(metricsDoc, new RegExp(`\`${op}\``), `operation ${op} documented`);
});

void it('every setting the operator pages list is read by src/config.ts', () => {
  const config = readFileSync(path.join(root, 'src/config.ts'), 'utf8');
  const names = new Set([...`${metricsDoc}\n${httpsDoc}`.matchAll(/`(INTAKE_[A-Z_]+)/g)].map((m) => m[1]!));
  assert.ok(names.size >= 8);
  for (const n of names) assert.match(config, new RegExp(`\\b${n}\\b`), `${n} is not a setting`);
});
