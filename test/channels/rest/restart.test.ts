import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { spawnServe, stopServe, waitForLine } from '../../helpers/child.ts';
import { order, startTestService, tempDir, waitFor } from '../../helpers/service.ts';

// The newcomer's path (`serve` on an empty data directory prints a curl command that works) is
// test/cli/serve-banner.test.ts.
describe('durability across restarts', () => {
  it('a submission received but not processed before the stop is processed at the next start', async () => {
    const dir = tempDir();
    const first = await startTestService({}, dir);
    const c = await first.customer('C001');
    const principal = { customerId: (await first.service.store.getCustomerByCode('C001'))!.id, customerCode: 'C001' };
    // receive() only: the state a crash right after the acknowledgement leaves behind.
    const s = await first.service.intake.receive({
      principal, channel: 'rest', mediaType: 'application/json', raw: Buffer.from(JSON.stringify(order('C001', 'R-1'))), singleOrder: true,
    });
    await first.service.stop();
    const second = await startTestService({}, dir);
    try {
      const done = await waitFor(async () => {
        const got = await second.service.store.getSubmission(s.id);
        return got?.state === 'processed' ? got : undefined;
      }, 10_000, 'the pending submission to be processed');
      assert.equal(done.outcome?.esito, 'ok');
      const res = await fetch(`${second.url}/api/v1/ordini/${s.reservedOrderId}`, { headers: { 'x-api-key': c.apiKey } });
      assert.equal(((await res.json()) as { stato: string }).stato, 'registrato');
    } finally {
      await second.close();
    }
  });

  it('SIGKILL after acknowledging async submissions loses none: all are registered once after restart', async () => {
    const dir = tempDir();
    let p = await spawnServe(dir);
    try {
      const [, key] = await waitForLine(p, /API key:\s+(\S+)/);
      const base = () => `http://127.0.0.1:${p.httpPort}`;
      const N = 40;
      const acks = await Promise.all(Array.from({ length: N }, async (_, i) => {
        const res = await fetch(`${base()}/api/v1/ordini`, {
          method: 'POST', body: JSON.stringify(order('DEMO', `K-${i}`, { righe: [{ codice_articolo: 'BV-STD', quantita: i + 1, unita_misura: 'PZ' }] })),
          headers: { 'content-type': 'application/json', 'x-api-key': key!, prefer: 'respond-async' },
        });
        assert.equal(res.status, 202);
        return ((await res.json()) as { id_ordine: string }).id_ordine;
      }));
      await stopServe(p, 'SIGKILL');
      p = await spawnServe(dir);
      const numbers = await Promise.all(acks.map((id) => waitFor(async () => {
        const res = await fetch(`${base()}/api/v1/ordini/${id}`, { headers: { 'x-api-key': key! } });
        const v = (await res.json()) as { stato: string; numero_ordine?: string };
        return v.stato === 'registrato' ? v.numero_ordine : undefined;
      }, 20_000, `order ${id} to be registered`)));
      assert.equal(new Set(numbers).size, N, 'every acknowledged order has its own number');
    } finally {
      await stopServe(p);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
