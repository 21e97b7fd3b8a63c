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
import type { OrderWriters } from './order-writers.ts';
import { uuidv7 } from '../../domain/uuid7.ts';
import type { OrderOutcome, Outcome, SubmissionState } from '../../domain/types.ts';
import { refusals } from '../common/events.ts';
import { expandOutcome, isCompact, outcomeJson, positionsWithoutAttempt } from '../common/outcome-form.ts';
import { attemptRows, isoIn, jsonOut, optIsoOut, recordedAttemptRows } from '../common/rows.ts';
import { attemptArrays, attemptColumns } from './attempt-columns.ts';
import type { CompleteCall } from './complete-batch.ts';
import { ClaimLostError } from '../../domain/store/store.ts';
import { notFound } from '../common/refusals.ts';
import { withTransaction } from './tx.ts';

/** What a compact outcome's submission is, read in the snapshot that also reads its attempts. */
export interface OutcomeInSnapshot {
  state: SubmissionState;
  processedAt?: string;
  /** Undefined when the submission has no outcome any more (reset for a re-judgement since the first read). */
  outcome?: Outcome;
}

export interface PgAttempts {
  /** Fenced by `holder`'s claim when given (Store.recordAttempts): ClaimLostError when another holder has it now. */
  record(submissionId: string, orders: readonly OrderOutcome[], durable: boolean, holder?: string): Promise<void>;
  /** completeSubmission's single statement (groups of one, and the calls of a failed group: complete-batch.ts). */
  completeAlone(call: CompleteCall): Promise<boolean>;
  /** completeSubmission with `{ attemptsRecorded: true }`; false when there is no such submission still received. */
  completeRecorded(call: CompleteCall): Promise<boolean>;
  /** The submission's state and whole outcome, read with its attempts in one snapshot (called for a compact one). */
  readCompact(id: string): Promise<OutcomeInSnapshot>;
}

/** Writes through `writers` (the outbox's refusal events reference orders); reads take any connection of `pool`. */
export function pgAttempts(pool: pg.Pool, writers: OrderWriters, outbox: boolean): PgAttempts {
  /**
   * One outcome recorded by one statement (one round trip; it was BEGIN, three statements, COMMIT): the row, its
   * claim cleared, `attemptsSql` (CTEs on $7 onwards, `extra`), and the outbox's one ordine.rifiutato per refused
   * order, completed with what the submission row knows exactly as refusalEvents (events.ts) completes it on SQLite.
   */
  async function completeOne(name: string, attemptsSql: string, { id, state, outcome, processedAt, holder }: CompleteCall, stored: string,
    extra: unknown[]): Promise<boolean> {
    const refused = outbox ? refusals(outcome) : [];
    // The fence (CompleteOptions.heldBy) comes after `extra`'s parameters.
    const h = `$${7 + extra.length}::text`;
    const { rows } = await writers.query<{ id: string }>({
      name,
      text: `WITH upd AS (
         UPDATE submissions SET state = $2, outcome = $3, processed_at = $4, attempts = attempts + 1,
           claimed_by = NULL, lease_until = NULL WHERE id = $1 AND state = 'received'
           AND (${h} IS NULL OR claimed_by IS NULL OR claimed_by = ${h})
         RETURNING id, customer_id, customer_code, received_at, channel, reserved_order_id
       ), ${attemptsSql}, ev AS (
         INSERT INTO order_events (id, type, time, order_id, customer_id, data)
         SELECT t.id, 'ordine.rifiutato', $4, upd.reserved_order_id, upd.customer_id,
           jsonb_build_object('codice_cliente', upd.customer_code) || t.data || jsonb_strip_nulls(jsonb_build_object(
             'canale', upd.channel,
             'ricevuto_il', to_char(upd.received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'id_ordine', upd.reserved_order_id))
         FROM upd, unnest($5::text[], $6::jsonb[]) WITH ORDINALITY AS t(id, data, i) ORDER BY t.i
       )
       SELECT id FROM upd`,
      values: [id, state, stored, isoIn(processedAt, 'processedAt'), refused.map(() => uuidv7()), refused.map((r) => JSON.stringify(r)), ...extra,
        holder ?? null],
    });
    return rows.length > 0;
  }

  return {
    async record(submissionId, orders, durable, holder) {
      const rows = [...recordedAttemptRows(orders)];
      if (rows.length === 0) return;
      await withTransaction(writers, async (c) => {
        // Nothing is acknowledged before completeSubmission's durable commit, which covers this one (WriteOptions).
        if (!durable) await c.query('SET LOCAL synchronous_commit = off');
        const { rowCount } = await c.query({
          name: 'record-attempts',
          text: `INSERT INTO order_attempts (submission_id, idx, customer_id, riferimento_ordine, esito, outcome, received_at, channel)
            SELECT s.id, t.idx, COALESCE(t.customer, s.customer_id), t.ref, t.esito, t.outcome::json, s.received_at, s.channel
            FROM submissions s, unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[]) AS t(idx, ref, esito, outcome, customer)
            WHERE s.id = $1 AND s.state = 'received' AND ($7::text IS NULL OR s.claimed_by IS NULL OR s.claimed_by = $7)
            FOR SHARE OF s
            ON CONFLICT (submission_id, idx) DO UPDATE SET customer_id = excluded.customer_id,
              riferimento_ordine = excluded.riferimento_ordine, esito = excluded.esito, outcome = excluded.outcome,
              received_at = excluded.received_at, channel = excluded.channel`,
          values: [submissionId, ...attemptArrays(attemptColumns(rows)), holder ?? null],
        });
        // Nothing written: no such submission, or one whose outcome is recorded already, which stands (a late
        // judgement; its completeSubmission will find it so), or (fenced: FOR SHARE orders this with a takeover's
        // claim, as registration's fence does) one another holder has taken over.
        if (rowCount === 0) {
          const { rows: [sub] } = await c.query<{ state: string }>('SELECT state FROM submissions WHERE id = $1', [submissionId]);
          if (!sub) throw notFound.submission(submissionId);
          if (holder !== undefined && sub.state === 'received') throw new ClaimLostError([submissionId]);
        }
      });
    },

    async completeAlone({ id, state, outcome, processedAt, holder }) {
      // The attempts of an earlier judgement are replaced: rows past the new count deleted, the others overwritten.
      // The DELETE and the upsert touch disjoint rows, as two parts of one statement must (they share one snapshot).
      return completeOne('complete-submission', `del AS (
           DELETE FROM order_attempts WHERE submission_id = $1 AND idx <> ALL ($7::int[]) AND EXISTS (SELECT FROM upd)
         ), ins AS (
           INSERT INTO order_attempts (submission_id, idx, customer_id, riferimento_ordine, esito, outcome, received_at, channel)
           SELECT upd.id, t.idx, COALESCE(t.customer, upd.customer_id), t.ref, t.esito, t.outcome::json, upd.received_at, upd.channel
           FROM upd, unnest($7::int[], $8::text[], $9::text[], $10::text[], $11::text[]) AS t(idx, ref, esito, outcome, customer)
           ON CONFLICT (submission_id, idx) DO UPDATE SET customer_id = excluded.customer_id,
             riferimento_ordine = excluded.riferimento_ordine, esito = excluded.esito, outcome = excluded.outcome,
             received_at = excluded.received_at, channel = excluded.channel
         )`, { id, state, outcome, processedAt, holder }, outcomeJson(outcome), attemptArrays(attemptColumns(attemptRows(outcome))));
    },

    async completeRecorded(call) {
      // Always compact (outcomeJson beyond 0 orders): its orders with a reference are only in the attempts, which are
      // written: an earlier judgement's rows that this one did not overwrite (past its orders, or where its orders
      // have no reference) are deleted.
      return completeOne('complete-recorded', `del AS (
           DELETE FROM order_attempts WHERE submission_id = $1 AND (idx >= $7 OR idx = ANY ($8::int[])) AND EXISTS (SELECT FROM upd)
         )`, call, outcomeJson(call.outcome, 0), [call.outcome.orders.length, positionsWithoutAttempt(call.outcome)]);
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
