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

  it('SIGKILL amid acknowledged changes and cancellations loses none and repeats no version', async () => {
    const dir = tempDir();
    let p = await spawnServe(dir);
    try {
      const [, key] = await waitForLine(p, /API key:\s+(\S+)/);
      const base = () => `http://127.0.0.1:${p.httpPort}`;
      const call = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => fetch(`${base()}${path}`, {
        method, body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-api-key': key!, ...headers },
      });
      const N = 24;
      const ids = await Promise.all(Array.from({ length: N }, async (_, i) => {
        const res = await call('POST', '/api/v1/ordini', order('DEMO', `KC-${i}`));
        assert.equal(res.status, 201);
        return ((await res.json()) as { id_ordine: string }).id_ordine;
      }));
      const changed = (i: number) => order('DEMO', `KC-${i}`, { righe: [{ codice_articolo: 'BV-STD', quantita: 1000 + i, unita_misura: 'PZ' }] });
      // A third each: a change answered with its outcome, a change acknowledged at once (judged later), a cancellation.
      const acked: { i: number; kind: 'sync' | 'async' | 'cancel' }[] = [];
      let killed = false;
      const sends = ids.map(async (id, i) => {
        const kind = i % 3 === 0 ? 'sync' : i % 3 === 1 ? 'async' : 'cancel';
        try {
          const res = kind === 'sync' ? await call('PUT', `/api/v1/ordini/${id}`, changed(i))
            : kind === 'async' ? await call('POST', '/api/v1/ordini', { ...changed(i), azione: 'modifica' }, { prefer: 'respond-async' })
              : await call('POST', `/api/v1/ordini/${id}/annulla`, { motivo: 'prova' });
          if (!killed && res.status === (kind === 'async' ? 202 : 200)) acked.push({ i, kind });
        } catch { /* cut by the kill: not acknowledged, may or may not have been applied */ }
      });
      await waitFor(() => (acked.length >= 6 ? true : undefined), 20_000, 'some acknowledgements');
      await stopServe(p, 'SIGKILL');
      killed = true;
      await Promise.all(sends);
      p = await spawnServe(dir);
      for (const { i, kind } of acked) {
        const v = await waitFor(async () => {
          const res = await fetch(`${base()}/api/v1/ordini/${ids[i]}`, { headers: { 'x-api-key': key! } });
          const view = (await res.json()) as { stato: string; versione: number; righe: { quantita: number }[]; versioni: { versione: number }[] };
          return (kind === 'cancel' ? view.stato === 'annullato' : view.versione >= 2) ? view : undefined;
        }, 20_000, `the ${kind} change of order ${i}`);
        if (kind !== 'cancel') {
          assert.equal(v.versione, 2, 'one change, one version, whatever was retried after the restart');
          assert.deepEqual(v.righe.map((r) => r.quantita), [1000 + i]);
          assert.deepEqual(v.versioni.map((x) => x.versione), [1, 2]);
        }
      }
    } finally {
      await stopServe(p);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
