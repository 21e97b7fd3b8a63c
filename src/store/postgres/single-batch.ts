/**
 * Store.saveSingleOrder on PostgreSQL (REST, SOAP, the portal's form: one order, answered with its outcome): the
 * submission written once, already processed, by ONE statement shared with the requests in flight (groups.ts): one
 * round trip and one durable commit per group. It was two grouped statements, the registration (the row inserted
 * claimed, lazily committed) then the outcome (the row rewritten, every index of `submissions` moved again).
 *
 * The outcome depends on what the statement finds or allocates (a new order, a duplicate, a conflict, with the
 * order's id and number), so JavaScript builds it for the answers it may get, with singleOrderOutcome and the event
 * builders as SQLite and judging do, as JSON text with holes for the id and the number (json-holes.ts); the
 * statement picks the text of the answer it got and fills the holes. With the outcome go the order_attempts rows and
 * the outbox events its builders make (an `ordine.registrato` for a new order, an `ordine.rifiutato` for a conflict
 * or a refused outcome given as it stands).
 *
 * - A call's first run carries the texts of a new order only (FIRST_RUN: almost every call's answer). A statement
 *   whose answer for a call has no texts (a repeat, a conflict) writes nothing of that call, which runs again with
 *   the texts of all three answers: one more round trip for a repeat, a third of the texts built and sent for the
 *   rest.
 *
 * - An order whose insert did nothing (another instance, or another call of the same group, committed the same
 *   identity after the statement's snapshot: ON CONFLICT DO NOTHING, the winner invisible to the statement) has no
 *   answer: nothing of its call is written and the call is run again by a later statement, which sees the winner.
 *   The number its first statement took is a gap (docs/development/numbering.md).
 * - A group whose statement fails is not allowed to take the others down: each call then runs the statement alone
 *   and only the faulty one fails (groups.ts). A statement is one transaction: a failed call leaves nothing.
 * - The commit is durable (the server's synchronous_commit): the caller answers once this resolves.
 * - The existing order is found as registerAlone finds it, by one index probe per call (register-batch.ts, PLANS).
 */
import type { OrderWriters } from './order-writers.ts';
import { grouped } from './groups.ts';
import { numeroOrdineSql } from './numbering.ts';
import { ATTEMPT_RECORD_COLUMNS, attemptRecord } from './attempt-columns.ts';
import { lineColumns } from './register-batch.ts';
import { fillHolesSql, mayHoldStandIns, withHoles } from './json-holes.ts';
import { singleOrderOutcome } from '../../domain/registered-outcome.ts';
import type { RegisterItem, RegisterResult, SavedSingleOrder, SingleJudged } from '../../domain/store/store.ts';
import type { NewEvent } from '../../domain/store/events.ts';
import type { Outcome } from '../../domain/types.ts';
import { registeredEvent, refusalEvents, type JudgedSubmission } from '../common/events.ts';
import { outcomeJson } from '../common/outcome-form.ts';
import { attemptRows, isoIn, type AttemptInsert, type SubmissionRow } from '../common/rows.ts';

/** The answers the statement can give an order; `given`: an outcome recorded as it stands (no order). */
type Answer = RegisterResult['status'] | 'given';
const ANSWERS_TO_AN_ORDER = ['created', 'duplicate', 'conflict'] as const;

export interface SingleCall {
  /** The submission's row (newSubmissionRow); saved processed. */
  row: SubmissionRow & { raw: Buffer };
  /** ISO 8601, normalised. */
  processedAt: string;
  judged: SingleJudged;
  /** The sequence of the item's year (numbering.ts), ready. */
  seqName?: string;
}

/** What is written for one answer: the outcome, its attempt rows and its events, their texts with holes. */
interface Written {
  answer: Answer;
  outcome: string;
  attempts: AttemptInsert[];
  events: { event: NewEvent; data: string }[];
}

/** The statement's answer for one call; undefined when its order's insert did nothing (run it again). */
interface Row {
  answer: Answer;
  id: string;
  numero: string;
}

/**
 * `input`: one row per call (k), its submission and its order (NULLs for an outcome given as it stands); `lines`:
 * the orders' lines; `cases`, `atts`, `evs`: what each possible answer of each call writes, each a JSON array of
 * records (values()). Answers one row per call, in order, its answer NULL when the order's insert did nothing.
 */
export function singleGroupSql(): string {
  const fill = (template: string): string => fillHolesSql(template, 'r.id', 'r.numero');
  return `WITH input AS (
      SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bytea[],
        $9::json[], $10::boolean[], $11::text[], $12::json[], $13::text[], $14::text[], $15::text[], $16::timestamptz[],
        $17::timestamptz[], $18::text[], $19::text[], $20::text[], $21::text[], $22::date[], $23::int[], $24::date[],
        $25::text[], $26::text[], $27::text[], $28::timestamptz[], $29::text[], $38::text[])
        WITH ORDINALITY AS t(id, customer_id, customer_code, channel, file_name, media_type, charset, raw, meta,
          single_order, site, sites, connector_id, reserved_order_id, sha256, received_at, processed_at, order_id,
          order_customer_id, codice, ref, data_ordine, year, data_consegna, hash, order_channel, order_site,
          registered_at, seq_name, note, k)
    ), found AS (
      -- One index lookup per order, whatever the table's size when the plan was made (register-batch.ts, PLANS).
      SELECT i.k, o.id, o.numero_ordine, o.content_hash
      FROM input i CROSS JOIN LATERAL (
        SELECT id, numero_ordine, content_hash FROM orders
        WHERE codice_cliente = i.codice AND riferimento_ordine = i.ref LIMIT 1
      ) AS o
    ), numbered AS MATERIALIZED (
      -- A repeat takes no number.
      SELECT i.k, i.order_id, nextval(i.seq_name::regclass)::int AS last FROM input i
      WHERE i.order_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM found f WHERE f.k = i.k) ORDER BY i.k
    ), ins AS (
      INSERT INTO orders (id, customer_id, codice_cliente, riferimento_ordine, numero_ordine, year, seq, data_ordine,
        data_consegna, content_hash, submission_id, channel, site, registered_at, note)
      SELECT i.order_id, i.order_customer_id, i.codice, i.ref, ${numeroOrdineSql('i.year', 'n.last')}, i.year,
        n.last, i.data_ordine, i.data_consegna, i.hash, i.id, i.order_channel, i.order_site, i.registered_at, i.note
      FROM numbered n JOIN input i ON i.k = n.k ORDER BY n.k
      ON CONFLICT ON CONSTRAINT orders_identity DO NOTHING RETURNING id, numero_ordine
    ), lines AS (
      INSERT INTO order_lines (order_id, idx, codice_articolo, quantita, unita_misura)
      SELECT l.order_id, l.idx, l.a, l.q, l.u
      FROM unnest($30::text[], $31::int[], $32::text[], $33::float8[], $34::text[]) AS l(order_id, idx, a, q, u)
      JOIN ins ON ins.id = l.order_id
    ), resolved AS (
      -- decide() (common/rows.ts) for the order found: its submission cannot be this call's, which is inserted now.
      SELECT i.k, CASE
          WHEN i.order_id IS NULL THEN 'given'
          WHEN x.id IS NOT NULL THEN 'created'
          WHEN f.id IS NULL THEN NULL
          WHEN f.content_hash IS DISTINCT FROM i.hash THEN 'conflict'
          ELSE 'duplicate' END AS answer,
        coalesce(x.id, f.id, '') AS id, coalesce(x.numero_ordine, f.numero_ordine, '') AS numero
      FROM input i LEFT JOIN found f ON f.k = i.k
      LEFT JOIN (SELECT n.k, ins.id, ins.numero_ordine FROM ins JOIN numbered n ON n.order_id = ins.id) AS x ON x.k = i.k
    ), cases AS (
      SELECT * FROM json_to_recordset($35::json) AS c(k int, answer text, outcome text)
    ), subs AS (
      -- Inserted processed: never received in the table, nothing for a sweeper or a claim to take. The orders of
      -- this statement reference these rows: the foreign key is checked at the end of the statement.
      INSERT INTO submissions (id, customer_id, customer_code, channel, file_name, media_type, charset, raw, meta,
        single_order, site, sites, connector_id, reserved_order_id, sha256, received_at, state, outcome, processed_at,
        attempts)
      SELECT i.id, i.customer_id, i.customer_code, i.channel, i.file_name, i.media_type, i.charset, i.raw, i.meta,
        i.single_order, i.site, i.sites, i.connector_id, i.reserved_order_id, i.sha256, i.received_at, 'processed',
        ${fill('c.outcome')}::json, i.processed_at, 1
      FROM input i JOIN resolved r ON r.k = i.k JOIN cases c ON c.k = r.k AND c.answer = r.answer
      ORDER BY i.k
    ), atts AS (
      INSERT INTO order_attempts (submission_id, idx, customer_id, riferimento_ordine, esito, outcome, received_at, channel)
      SELECT i.id, a.idx, coalesce(a.customer, i.customer_id), a.ref, a.esito, ${fill('a.outcome')}::json, i.received_at,
        i.channel
      FROM json_to_recordset($36::json) AS a(k int, answer text, ${ATTEMPT_RECORD_COLUMNS})
      JOIN resolved r ON r.k = a.k AND r.answer = a.answer JOIN input i ON i.k = a.k
    ), evs AS (
      INSERT INTO order_events (id, type, time, order_id, customer_id, data)
      SELECT e.id, e.type, e.time, e.order_id, e.customer_id, ${fill('e.data')}::jsonb
      FROM ROWS FROM (json_to_recordset($37::json) AS (k int, answer text, id text, type text, time timestamptz,
        order_id text, customer_id text, data text)) WITH ORDINALITY AS e(k, answer, id, type, time, order_id, customer_id, data, n)
      JOIN resolved r ON r.k = e.k AND r.answer = e.answer
      ORDER BY e.n
    )
    SELECT r.answer, r.id, r.numero FROM resolved r ORDER BY r.k`;
}

export interface SingleGroups {
  /** Save one call with the next group; when its order lost a race, again with a later one. */
  save(call: SingleCall): Promise<SavedSingleOrder>;
}

/**
 * A call whose order keeps losing races is a fault, not bad luck: the winner is always seen by the next run, which
 * has every answer's texts (the first may have had a new order's only: FIRST_RUN).
 */
const MAX_RUNS = 3;
/** The answers whose texts a call's first run carries (save). */
const FIRST_RUN = ['created'] as const;

export function singleOrderGroups(writers: OrderWriters, outbox: boolean): SingleGroups {
  const text = singleGroupSql();
  const run = async (calls: readonly Prepared[]): Promise<(Row | undefined)[]> => {
    const { rows } = await writers.query<{ answer: Answer | null; id: string; numero: string }>({ name: 'single-order-group', text, values: values(calls) });
    return calls.map((_, i) => {
      const r = rows[i];
      return r?.answer ? { answer: r.answer, id: r.id, numero: r.numero } : undefined;
    });
  };
  // Alone, a call runs the same statement (a group of one): one round trip either way.
  const groups = grouped<Prepared, Row | undefined>(async (p) => (await run([p]))[0], run, { oneRunsGroup: true });

  return {
    async save(call) {
      // First with the texts of a new order only: the answer almost every call gets, a third of the building and of
      // the texts sent. A repeat or a conflict then writes nothing (its answer has no texts) and runs again, with
      // the texts of every answer, as an order that lost a race does.
      let prepared: Prepared = { ...call, written: written(call, outbox, FIRST_RUN) };
      for (let runs = 1; ; runs++) {
        const row = await groups.run(prepared);
        if (row && prepared.written.some((w) => w.answer === row.answer)) return saved(call, row);
        if (runs === MAX_RUNS) {
          const o = 'item' in call.judged ? call.judged.item.order : undefined;
          throw new Error(`order ${o?.codice_cliente}/${o?.riferimento_ordine} conflicted but cannot be read`);
        }
        if (runs === 1) prepared = { ...call, written: written(call, outbox, ANSWERS_TO_AN_ORDER) };
      }
    },
  };
}

interface Prepared extends SingleCall {
  written: Written[];
}

/** The answer to the caller: the registration's result and the outcome, the one the statement stored. */
function saved(call: SingleCall, row: Row): SavedSingleOrder {
  if (!('item' in call.judged)) return { results: [], outcome: call.judged.outcome };
  const result = { status: row.answer, id_ordine: row.id, numero_ordine: row.numero } as RegisterResult;
  return { results: [result], outcome: singleOrderOutcome(call.judged.item, result) };
}

/**
 * What each of `answers` writes (for an order; an outcome given as it stands has one answer), built by the builders
 * every other path uses.
 */
function written(call: SingleCall, outbox: boolean, answers: readonly (typeof ANSWERS_TO_AN_ORDER)[number][]): Written[] {
  const sub: JudgedSubmission = {
    customerId: call.row.customer_id, customerCode: call.row.customer_code, channel: call.row.channel as JudgedSubmission['channel'],
    receivedAt: call.row.received_at as string, ...(call.row.reserved_order_id ? { reservedOrderId: call.row.reserved_order_id } : {}),
  };
  const refused = (outcome: Outcome): NewEvent[] => (outbox ? refusalEvents(outcome, sub, call.processedAt) : []);
  if (!('item' in call.judged)) {
    const outcome = call.judged.outcome;
    return [{
      answer: 'given', outcome: outcomeJson(outcome), attempts: attemptRows(outcome),
      events: refused(outcome).map((event) => ({ event, data: JSON.stringify(event.data) })),
    }];
  }
  const item = call.judged.item;
  const registeredAt = isoIn(item.registeredAt, 'registeredAt');
  // Everything the builders read besides the id and the number: one build per answer unless it holds a stand-in.
  const twice = mayHoldStandIns([item, sub]);
  return answers.map((answer) => {
    let first: { attempts: AttemptInsert[]; events: NewEvent[] } | undefined;
    const texts = withHoles((id, numero) => {
      const outcome = singleOrderOutcome(item, { status: answer, id_ordine: id, numero_ordine: numero });
      const attempts = attemptRows(outcome);
      const events = [...(outbox && answer === 'created' ? [registeredEvent(item, numero, registeredAt)] : []), ...refused(outcome)];
      first ??= { attempts, events };
      return [outcomeJson(outcome), ...attempts.map((a) => a.json), ...events.map((e) => JSON.stringify(e.data))];
    }, twice);
    const { attempts, events } = first!;
    return {
      answer, outcome: texts[0]!,
      attempts: attempts.map((a, i) => ({ ...a, json: texts[1 + i]! })),
      events: events.map((event, i) => ({ event, data: texts[1 + attempts.length + i]! })),
    };
  });
}

function values(calls: readonly Prepared[]): unknown[] {
  const col = <T>(f: (c: Prepared) => T): T[] => calls.map(f);
  const item = (c: Prepared): RegisterItem | undefined => ('item' in c.judged ? c.judged.item : undefined);
  // What each answer writes goes as three JSON parameters, not as eighteen arrays: the texts are JSON, full of quotes,
  // and `pg` escapes every array element in JavaScript, where JSON.stringify escapes them all natively (performance-history.md).
  const cases: { k: number; answer: Answer; outcome: string }[] = [];
  const atts: ({ k: number; answer: Answer } & ReturnType<typeof attemptRecord>)[] = [];
  const evs: { k: number; answer: Answer; id: string; type: string; time: string; order_id: string | null; customer_id: string; data: string }[] = [];
  calls.forEach((c, i) => {
    const k = i + 1; // WITH ORDINALITY counts from 1
    for (const w of c.written) {
      const answer = w.answer;
      cases.push({ k, answer, outcome: w.outcome });
      for (const a of w.attempts) atts.push({ k, answer, ...attemptRecord(a) });
      for (const { event: e, data } of w.events) {
        evs.push({ k, answer, id: e.id, type: e.type, time: isoIn(e.time, 'time'), order_id: e.orderId ?? null, customer_id: e.customerId, data });
      }
    }
  });
  const r = (c: Prepared): SingleCall['row'] => c.row;
  return [
    col((c) => r(c).id), col((c) => r(c).customer_id), col((c) => r(c).customer_code), col((c) => r(c).channel),
    col((c) => r(c).file_name), col((c) => r(c).media_type), col((c) => r(c).charset), col((c) => r(c).raw),
    col((c) => r(c).meta), col((c) => r(c).single_order), col((c) => r(c).site), col((c) => r(c).sites),
    col((c) => r(c).connector_id), col((c) => r(c).reserved_order_id), col((c) => r(c).sha256),
    col((c) => r(c).received_at), col((c) => c.processedAt),
    col((c) => item(c)?.id ?? null), col((c) => item(c)?.customerId ?? null), col((c) => item(c)?.order.codice_cliente ?? null),
    col((c) => item(c)?.order.riferimento_ordine ?? null), col((c) => item(c)?.order.data_ordine ?? null),
    col((c) => item(c)?.year ?? null), col((c) => item(c)?.order.data_consegna ?? null), col((c) => item(c)?.contentHash ?? null),
    col((c) => item(c)?.channel ?? null), col((c) => item(c)?.site ?? null),
    col((c) => { const it = item(c); return it ? isoIn(it.registeredAt, 'registeredAt') : null; }), col((c) => c.seqName ?? null),
    ...lineColumns(calls.flatMap((c) => item(c) ?? [])),
    JSON.stringify(cases), JSON.stringify(atts), JSON.stringify(evs),
    col((c) => item(c)?.order.note ?? null),
  ];
}
