// A large file's outcome on PostgreSQL is two reads, its verdict (submissions.outcome) and its orders (order_attempts):
// a re-judgement committing between them must not pair the old verdict with the new orders. The test makes that
// happen deterministically: a second connection holds order_attempts locked, so the reader stops before its read of
// the attempts (after the verdict's), commits the re-judgement there, and lets the reader go on.
// Skipped, visibly, without INTAKE_TEST_DATABASE_URL (fails in CI).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import type { Store } from '../../src/domain/store/store.ts';
import type { OrderOutcome, Outcome } from '../../src/domain/types.ts';
import { COMPACT_OUTCOME_ORDERS, outcomeJson } from '../../src/store/common/outcome-form.ts';
import { addCustomer, addSubmission, at } from './fixtures.ts';
import { PG_SKIP, withPgInstances } from './pg-schema.ts';
import { waitFor } from '../helpers/service.ts';

const ORDERS = COMPACT_OUTCOME_ORDERS + 5;

function accepted(submissionId: string): Outcome {
  const orders = Array.from({ length: ORDERS }, (_, i): OrderOutcome => ({
    index: i, codice_cliente: 'A001', riferimento_ordine: `R-${i}`, esito: 'ok', duplicate: false,
    id_ordine: `id-${i}`, numero_ordine: `2025-${String(i + 1).padStart(6, '0')}`,
  }));
  return { submissionId, esito: 'ok', orders };
}

/** The same orders refused: what a re-judgement after the catalogue lost its articles would record. */
function refused(submissionId: string): Outcome {
  const orders = Array.from({ length: ORDERS }, (_, i): OrderOutcome => ({
    index: i, codice_cliente: 'A001', riferimento_ordine: `R-${i}`, esito: 'errore', code: 'BUSINESS',
    errori: [{ campo: 'righe[0].codice_articolo', messaggio: 'Articolo "X" non presente in anagrafica' }],
  }));
  return { submissionId, esito: 'errore', orders };
}

const READERS: [string, (store: Store, customerId: string, id: string) => Promise<Outcome | undefined>][] = [
  ['getSubmission', async (store, _c, id) => (await store.getSubmission(id))?.outcome],
  ['getSubmissionOutcomes', async (store, c, id) => (await store.getSubmissionOutcomes(c, [id])).get(id)],
  ['findSubmissionByReservedOrderId', async (store, c) => (await store.findSubmissionByReservedOrderId(c, 'reserved-1'))?.outcome],
];

void describe('a compact outcome read while it is judged again, on PostgreSQL', { skip: PG_SKIP }, () => {
  for (const [name, read] of READERS) {
    void it(`${name} gives the verdict and the orders of one judgement`, () => withPgInstances(1, async ([store], schema) => {
      const a = await addCustomer(store!, 'A001');
      const id = await addSubmission(store!, a, { receivedAt: at(1), reservedOrderId: 'reserved-1' });
      const before = accepted(id);
      await store!.completeSubmission(id, 'processed', before, at(2));
      const after = refused(id);

      const holder = new pg.Client({ connectionString: schema.url });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE order_attempts IN ACCESS EXCLUSIVE MODE');
        const reading = read(store!, a.id, id);
        await waitFor(async () => (await holder.query(
          `SELECT 1 FROM pg_locks WHERE relation = 'order_attempts'::regclass AND NOT granted`)).rowCount === 1 || undefined,
        10_000, 'the reader to wait for the attempts, its verdict read');
        // The re-judgement, committed between the reader's two reads: a new verdict and new attempts.
        await holder.query('UPDATE submissions SET outcome = $2::json, processed_at = $3 WHERE id = $1', [id, outcomeJson(after), at(3)]);
        await holder.query(`UPDATE order_attempts SET esito = 'errore', outcome = $2::json->(idx) WHERE submission_id = $1`,
          [id, JSON.stringify(after.orders)]);
        await holder.query('COMMIT');
        const got = await reading;
        assert.equal(got?.esito, 'ok', 'the verdict read first');
        assert.equal(JSON.stringify(got), JSON.stringify(before), 'the orders of the same judgement as the verdict');
        assert.equal(JSON.stringify(await read(store!, a.id, id)), JSON.stringify(after), 'the re-judgement, read afterwards');
      } finally {
        await holder.query('ROLLBACK').catch(() => undefined);
        await holder.end();
      }
    }));
  }
});
