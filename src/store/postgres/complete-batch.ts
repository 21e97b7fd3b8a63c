/**
 * Group completion on PostgreSQL: outcomes recorded while others are being recorded go together, as ONE statement
 * and one durable commit for many submissions (groups.ts), instead of one commit each: a file's registrations
 * commit lazily and its outcome's commit is the durable one, so with many files judged at once (an SFTP burst, a
 * sweep taking work over) a group here spreads one WAL flush over them. A REST/SOAP order's outcome is written with
 * its submission instead (single-batch.ts).
 *
 * Same rules as the single statement (store.ts completeSubmission): state, outcome and time recorded, the claim
 * cleared, the attempts of an earlier judgement replaced (rows past the new count deleted, the others
 * overwritten), one `ordine.rifiutato` event per refused order, in the outcome's order. The DELETE and the upsert
 * touch disjoint rows, as two parts of one statement must (they share one snapshot). The same submission twice in
 * one group would make the upsert touch a row twice: that statement fails and each call is then run alone.
 */
import type { OrderWriters } from './order-writers.ts';
import { uuidv7 } from '../../domain/uuid7.ts';
import type { Outcome, SubmissionState } from '../../domain/types.ts';
import { refusals } from '../common/events.ts';
import { attemptRows, isoIn } from '../common/rows.ts';
import { outcomeJson } from '../common/outcome-form.ts';
import { attemptArrays, attemptColumns, pushAttempt } from './attempt-columns.ts';
import { grouped } from './groups.ts';

export interface CompleteCall {
  id: string;
  state: SubmissionState;
  outcome: Outcome;
  processedAt: string;
  /** CompleteOptions.heldBy: written only while no other holder has claimed the submission. */
  holder?: string;
}

/** The refusal events' data is completed from the submission row exactly as the single statement does. */
export function completeGroupSql(): string {
  return `WITH input AS (
      SELECT * FROM unnest($1::text[], $2::text[], $3::json[], $4::timestamptz[], $14::text[]) AS t(id, state, outcome, processed_at, holder)
    ), upd AS (
      -- The fence (CompleteOptions.heldBy), checked on the row as updated: a takeover's claim (an UPDATE of the row)
      -- that commits first is seen here, and one that comes after finds the submission processed.
      UPDATE submissions s SET state = i.state, outcome = i.outcome, processed_at = i.processed_at,
        attempts = s.attempts + 1, claimed_by = NULL, lease_until = NULL
      FROM input i WHERE s.id = i.id AND s.state = 'received' AND (i.holder IS NULL OR s.claimed_by IS NULL OR s.claimed_by = i.holder)
      RETURNING s.id, s.customer_id, s.customer_code, s.received_at, s.channel, s.reserved_order_id, i.processed_at
    ), att AS (
      SELECT * FROM unnest($5::text[], $6::int[], $7::text[], $8::text[], $9::text[], $10::text[])
        AS a(sid, idx, ref, esito, outcome, customer)
    ), del AS (
      -- The earlier judgement's rows found by one index probe per submission and deleted by their row address: a
      -- join of input against the table was planned, while the table was small, as a sequential scan of every
      -- attempt, and the prepared statement kept that plan (register-batch.ts, PLANS). The submissions' claims keep
      -- another completion of the same submission from updating these rows meanwhile. Only the submissions
      -- updated: one no longer received keeps the outcome recorded and its attempts.
      DELETE FROM order_attempts d USING (
        SELECT x.tid FROM upd i CROSS JOIN LATERAL (
          SELECT ctid AS tid, idx FROM order_attempts WHERE submission_id = i.id OFFSET 0
        ) AS x
        WHERE NOT EXISTS (SELECT 1 FROM att WHERE att.sid = i.id AND att.idx = x.idx)
      ) AS old
      WHERE d.ctid = old.tid
    ), ins AS (
      INSERT INTO order_attempts (submission_id, idx, customer_id, riferimento_ordine, esito, outcome, received_at, channel)
      SELECT upd.id, a.idx, COALESCE(a.customer, upd.customer_id), a.ref, a.esito, a.outcome::json, upd.received_at, upd.channel
      FROM att a JOIN upd ON upd.id = a.sid
      ON CONFLICT (submission_id, idx) DO UPDATE SET customer_id = excluded.customer_id,
        riferimento_ordine = excluded.riferimento_ordine, esito = excluded.esito, outcome = excluded.outcome,
        received_at = excluded.received_at, channel = excluded.channel
    ), ev AS (
      INSERT INTO order_events (id, type, time, order_id, customer_id, data)
      SELECT e.id, 'ordine.rifiutato', upd.processed_at, upd.reserved_order_id, upd.customer_id,
        jsonb_build_object('codice_cliente', upd.customer_code) || e.data || jsonb_strip_nulls(jsonb_build_object(
          'canale', upd.channel,
          'ricevuto_il', to_char(upd.received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'id_ordine', upd.reserved_order_id))
      FROM unnest($11::text[], $12::text[], $13::jsonb[]) WITH ORDINALITY AS e(sid, id, data, n) JOIN upd ON upd.id = e.sid
      ORDER BY e.n
    )
    SELECT id FROM upd`;
}

export interface CompleteGroups {
  /**
   * Record one outcome with the next group; resolves with false when there is no such submission still received (or,
   * under `holder`, none this holder may still complete).
   */
  complete(call: CompleteCall): Promise<boolean>;
}

/** `alone` records one outcome with the single statement: groups of one, and the calls of a group that failed. */
export function completeGroups(writers: OrderWriters, outbox: boolean, alone: (call: CompleteCall) => Promise<boolean>): CompleteGroups {
  const text = completeGroupSql();
  const groups = grouped<CompleteCall, boolean>(alone, async (calls) => {
    const { rows } = await writers.query<{ id: string }>({ name: 'complete-group', text, values: values(calls, outbox) });
    const found = new Set(rows.map((r) => r.id));
    return calls.map((c) => found.has(c.id));
  });
  return { complete: (call) => groups.run(call) };
}

function values(calls: readonly CompleteCall[], outbox: boolean): unknown[][] {
  const sids: string[] = [];
  const att = attemptColumns();
  const ev = { sid: [] as string[], id: [] as string[], data: [] as string[] };
  for (const c of calls) {
    for (const a of attemptRows(c.outcome)) {
      sids.push(c.id);
      pushAttempt(att, a);
    }
    if (!outbox) continue;
    for (const r of refusals(c.outcome)) {
      ev.sid.push(c.id);
      ev.id.push(uuidv7());
      ev.data.push(JSON.stringify(r));
    }
  }
  return [
    calls.map((c) => c.id), calls.map((c) => c.state), calls.map((c) => outcomeJson(c.outcome)),
    calls.map((c) => isoIn(c.processedAt, 'processedAt')),
    sids, ...attemptArrays(att), ev.sid, ev.id, ev.data, calls.map((c) => c.holder ?? null),
  ];
}
