/**
 * The order attempts of large files on PostgreSQL (src/store/common/outcome-form.ts): written batch by batch while a
 * file is judged (Store.recordAttempts), the verdict recorded after them, and a compact outcome read back with its
 * attempts in one snapshot.
 *
 * Why one snapshot: the verdict (submissions.outcome) and the attempts are two reads. Read by two statements at READ
 * COMMITTED, a re-judgement committing between them (another instance reprocessing the file) paired the old verdict
 * with the new attempts. A compact outcome is therefore read again, with its attempts, in one REPEATABLE READ
 * transaction; a whole outcome (every REST/SOAP call, most files) needs no second read and costs no transaction.
 */
import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import type { OrderOutcome, Outcome, SubmissionState } from '../../domain/types.ts';
import { refusals } from '../common/events.ts';
import { expandOutcome, isCompact, outcomeJson, positionsWithoutAttempt } from '../common/outcome-form.ts';
import { isoIn, optIsoOut, recordedAttemptRows } from '../common/rows.ts';
import { jsonOut } from '../common/rows.ts';
import type { CompleteCall } from './complete-batch.ts';
import { withTransaction } from './tx.ts';

/** What a compact outcome's submission is, read in the snapshot that also reads its attempts. */
export interface OutcomeInSnapshot {
  state: SubmissionState;
  processedAt?: string;
  /** Undefined when the submission has no outcome any more (reset for a re-judgement since the first read). */
  outcome?: Outcome;
}

export interface PgAttempts {
  record(submissionId: string, orders: readonly OrderOutcome[], durable: boolean): Promise<void>;
  /** completeSubmission with `{ attemptsRecorded: true }`; false when there is no such submission. */
  completeRecorded(call: CompleteCall): Promise<boolean>;
  /** The submission's state and whole outcome, read with its attempts in one snapshot (called for a compact one). */
  readCompact(id: string): Promise<OutcomeInSnapshot>;
}

export function pgAttempts(pool: pg.Pool, outbox: boolean): PgAttempts {
  return {
    async record(submissionId, orders, durable) {
      const rows = [...recordedAttemptRows(orders)];
      if (rows.length === 0) return;
      await withTransaction(pool, async (c) => {
        // Nothing is acknowledged before completeSubmission's durable commit, which covers this one (WriteOptions).
        if (!durable) await c.query('SET LOCAL synchronous_commit = off');
        const { rowCount } = await c.query({
          name: 'record-attempts',
          text: `INSERT INTO order_attempts (submission_id, idx, customer_id, riferimento_ordine, esito, outcome, received_at, channel)
            SELECT s.id, t.idx, COALESCE(t.customer, s.customer_id), t.ref, t.esito, t.outcome::json, s.received_at, s.channel
            FROM submissions s, unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[]) AS t(idx, ref, esito, outcome, customer)
            WHERE s.id = $1
            ON CONFLICT (submission_id, idx) DO UPDATE SET customer_id = excluded.customer_id,
              riferimento_ordine = excluded.riferimento_ordine, esito = excluded.esito, outcome = excluded.outcome,
              received_at = excluded.received_at, channel = excluded.channel`,
          values: [submissionId, rows.map((a) => a.idx), rows.map((a) => a.riferimento), rows.map((a) => a.esito),
            rows.map((a) => a.json), rows.map((a) => a.customer ?? null)],
        });
        if (rowCount === 0) throw new Error(`submission ${submissionId} not found`);
      });
    },

    async completeRecorded({ id, state, outcome, processedAt }) {
      const refused = outbox ? refusals(outcome) : [];
      // Always compact (outcomeJson beyond 0 orders): its orders with a reference are only in the attempts.
      // As completeAlone (store.ts), without the attempts: this judgement's are written; an earlier one's rows that
      // it did not overwrite (past its orders, or where its orders have no reference) are deleted.
      const { rows } = await pool.query<{ id: string }>({
        name: 'complete-recorded',
        text: `WITH upd AS (
           UPDATE submissions SET state = $2, outcome = $3, processed_at = $4, attempts = attempts + 1,
             claimed_by = NULL, lease_until = NULL WHERE id = $1
           RETURNING id, customer_id, customer_code, received_at, channel, reserved_order_id
         ), del AS (
           DELETE FROM order_attempts WHERE submission_id = $1 AND (idx >= $5 OR idx = ANY ($6::int[]))
         ), ev AS (
           INSERT INTO order_events (id, type, time, order_id, customer_id, data)
           SELECT t.id, 'ordine.rifiutato', $4, upd.reserved_order_id, upd.customer_id,
             jsonb_build_object('codice_cliente', upd.customer_code) || t.data || jsonb_strip_nulls(jsonb_build_object(
               'canale', upd.channel,
               'ricevuto_il', to_char(upd.received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'id_ordine', upd.reserved_order_id))
           FROM upd, unnest($7::text[], $8::jsonb[]) WITH ORDINALITY AS t(id, data, i) ORDER BY t.i
         )
         SELECT id FROM upd`,
        values: [id, state, outcomeJson(outcome, 0), isoIn(processedAt, 'processedAt'), outcome.orders.length,
          positionsWithoutAttempt(outcome), refused.map(() => uuidv7()), refused.map((r) => JSON.stringify(r))],
      });
      return rows.length > 0;
    },

    async readCompact(id) {
      const c = await pool.connect();
      let broken = false;
      try {
        // The snapshot is taken at the first statement and serves both reads; read-only, it never waits for writers.
        await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const { rows: [sub] } = await c.query<{ state: SubmissionState; processed_at: unknown; outcome: unknown }>(
          'SELECT state, processed_at, outcome FROM submissions WHERE id = $1', [id]);
        const stored = sub?.outcome == null ? undefined : jsonOut<Outcome>(sub.outcome);
        const found: OutcomeInSnapshot = { state: sub?.state ?? 'received', processedAt: optIsoOut(sub?.processed_at) };
        if (stored && !isCompact(stored)) found.outcome = stored;
        else if (stored) {
          const { rows } = await c.query<{ idx: number; outcome: unknown }>('SELECT idx, outcome FROM order_attempts WHERE submission_id = $1', [id]);
          found.outcome = expandOutcome(stored, () => rows.map((r) => ({ idx: r.idx, outcome: jsonOut<OrderOutcome>(r.outcome) })));
        }
        await c.query('COMMIT');
        return found;
      } catch (e) {
        await c.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw e;
      } finally {
        c.release(broken);
      }
    },
  };
}
