// Metrics of the e-mail channel with a real SMTP client (swaks): the 250 counted as an SMTP acknowledgement, the
// submission and its order counted under "email", and the reply that cannot leave (no relay configured) seen as
// a pending reply in the queue depth.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, it } from 'node:test';
import { request } from 'undici';
import { order, startTestService, waitFor, type TestService } from '../helpers/service.ts';
import { parsePrometheus, sample, type Samples } from '../helpers/prometheus.ts';

const run = promisify(execFile);
let t: TestService;

before(async () => {
  t = await startTestService({ INTAKE_SMTP_PORT: '0', INTAKE_METRICS_PORT: '0' });
});
after(() => t.close());

async function scrape(): Promise<Samples> {
  const res = await request(`http://127.0.0.1:${t.service.ports.metrics}/metrics`);
  assert.equal(res.statusCode, 200);
  return parsePrometheus(await res.body.text());
}

void it('an order e-mailed with swaks moves the SMTP acknowledgement, the email counters and the pending replies', async () => {
  const c = await t.customer('C001');
  const before = await scrape();
  assert.equal(sample(before, 'intake_queue_depth', { queue: 'replies_pending' }), 0);
  const file = path.join(t.dataDir, 'ordine.json');
  writeFileSync(file, JSON.stringify(order('C001', 'MAIL-1')));
  const { stdout } = await run('swaks', [
    '--server', `127.0.0.1:${t.service.ports.smtp}`, '--from', 'acquisti@cliente.example', '--to', c.mailbox,
    '--header', 'Subject: Ordine MAIL-1', '--attach-type', 'application/json', '--attach-name', 'ordine.json', '--attach', `@${file}`,
  ]);
  assert.match(stdout, /<- {2}250 /);
  await waitFor(async () => ((await t.service.store.listReplies({ state: 'pending' })).length === 1 ? true : undefined), 15_000, 'the reply to be queued');

  const after = await scrape();
  const d = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
  assert.equal(d('intake_ack_seconds_count', { channel: 'smtp' }), 1);
  assert.equal(d('intake_store_write_seconds_count', { operation: 'saveMailMessages' }), 1);
  assert.equal(d('intake_submissions_total', { channel: 'email', outcome: 'ok' }), 1);
  assert.equal(d('intake_orders_total', { channel: 'email', outcome: 'accepted' }), 1);
  assert.equal(sample(after, 'intake_queue_depth', { queue: 'replies_pending' }), 1, 'no relay: the reply waits');
  assert.equal(sample(after, 'intake_queue_depth', { queue: 'mail_received' }), 0);
  assert.ok(after.has('intake_open_connections{channel="smtp"}'), 'the SMTP connection gauge exists');
  await waitFor(async () => (sample(await scrape(), 'intake_open_connections', { channel: 'smtp' }) === 0 ? true : undefined), 5_000, 'swaks\'s connection to be counted as closed');
});
