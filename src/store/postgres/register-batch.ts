/**
 * Group registration on PostgreSQL: single-order registrations (the REST/SOAP path, one order per request) that
 * arrive while others are running are sent together as ONE statement, one round trip and one transaction for
 * many orders, instead of one each (groups.ts). That is what lets the store go past the one-row-per-request
 * ceiling of PostgreSQL (issue 16): the per-statement costs (round trip, executor start, commit record) are shared.
 *
 * - The rules are registerAlone's, per order: a repeated identity takes no number; two orders of one group with
 *   the same identity, or one that another instance committed after the statement's snapshot, insert nothing
 *   (ON CONFLICT DO NOTHING) and the caller reads the winner.
 * - A group whose statement fails (an order naming a submission that is not stored, say) is not allowed to take the
 *   others down: each of its orders is then registered on its own, and only the faulty one fails.
 *
 * A REST/SOAP order does not come here: it is written with its submission and outcome by single-batch.ts.
 */
import type { OrderWriters } from './order-writers.ts';
import { grouped } from './groups.ts';
import { numeroOrdineSql } from './numbering.ts';
import type { RegisterItem } from '../../domain/store/store.ts';
import { isoIn, type ExistingOrder } from '../common/rows.ts';
import type { NewEvent } from '../../domain/store/events.ts';

export interface GroupRow extends ExistingOrder {
  created: boolean;
}

interface Waiting {
  item: RegisterItem;
  event?: NewEvent;
  seqName: string;
  /** The claim holder the registration is fenced by (RegisterOptions.heldBy), if any. */
  holder?: string;
}

/** A group's answer for an order whose fence failed: its submission is no longer its holder's (nothing written). */
export const FENCED = 'fenced';
export type GroupAnswer = GroupRow | undefined | typeof FENCED;

/**
 * PLANS. The group statements are prepared (named) once per connection, and after five runs PostgreSQL keeps one
 * generic plan for them, made with the table statistics of that moment and an assumed 10 rows per array. Made while
 * a table was small (every fresh database, every bench), a join of the input against `orders` was planned as a hash
 * join over a sequential scan of the whole table, and that plan stayed: every group read every order, a cost that
 * grew with the table until an ANALYZE invalidated the plan (measured with auto_explain, 2026-11-26). A lookup
 * written as a LATERAL subquery with LIMIT cannot be turned into that join: it is one index probe per row, in any
 * plan (test/store/group-plans-postgres.test.ts).
 *
 * The group statement: `input` has one row per order (k = its position), lines are flattened with their order's id.
 * Answers one row per order, in order: the existing or inserted order, or NULLs when the insert did nothing.
 */
export function registerGroupSql(outbox: boolean): string {
  return `WITH lazy_commit AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true)),
    input AS (
      SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::date[], $6::int[], $7::date[], $8::text[],
        $9::text[], $10::text[], $11::text[], $12::timestamptz[], $13::text[], $14::text[], $15::jsonb[], $21::text[], $22::text[])
        WITH ORDINALITY AS t(id, customer_id, codice, ref, data_ordine, year, data_consegna, hash, submission_id, channel,
          site, registered_at, seq_name, event_id, event_data, holder, note, k)
    ), held AS MATERIALIZED (
      -- The fence (RegisterOptions.heldBy): an order under a claim is registered only while its submission is received
      -- and claimed by no other holder. FOR SHARE orders this statement with a takeover's claim (an UPDATE of the row):
      -- whichever commits second sees the other. The foreign key's check would lock the row anyway (FOR KEY SHARE).
      -- One key lookup per order, the conditions checked on the row as locked. LIMIT keeps them from being pushed
      -- inside, where the plan made on a fresh database scanned the partial index of every received submission for
      -- each order (see PLANS above).
      SELECT i.k FROM input i CROSS JOIN LATERAL (
        SELECT s.state, s.claimed_by FROM submissions s WHERE s.id = i.submission_id LIMIT 1 FOR SHARE
      ) AS s
      WHERE i.holder IS NOT NULL AND s.state = 'received' AND (s.claimed_by IS NULL OR s.claimed_by = i.holder)
    ), fenced AS (
      SELECT i.k FROM input i WHERE i.holder IS NOT NULL AND NOT EXISTS (SELECT 1 FROM held h WHERE h.k = i.k)
    ), found AS (
      -- One index lookup per order, whatever the table's size when the plan was made (see PLANS above).
      SELECT i.k, o.id, o.numero_ordine, o.submission_id, o.content_hash
      FROM input i CROSS JOIN LATERAL (
        SELECT id, numero_ordine, submission_id, content_hash FROM orders
        WHERE codice_cliente = i.codice AND riferimento_ordine = i.ref LIMIT 1
      ) AS o
    ), numbered AS MATERIALIZED (
      SELECT i.*, nextval(i.seq_name::regclass)::int AS last FROM input i, lazy_commit
      WHERE NOT EXISTS (SELECT 1 FROM found f WHERE f.k = i.k) AND NOT EXISTS (SELECT 1 FROM fenced x WHERE x.k = i.k)
      ORDER BY i.k
    ), ins AS (
      INSERT INTO orders (id, customer_id, codice_cliente, riferimento_ordine, numero_ordine, year, seq, data_ordine,
        data_consegna, content_hash, submission_id, channel, site, registered_at, note)
      SELECT n.id, n.customer_id, n.codice, n.ref, ${numeroOrdineSql('n.year', 'n.last')}, n.year, n.last,
        n.data_ordine, n.data_consegna, n.hash, n.submission_id, n.channel, n.site, n.registered_at, n.note
      FROM numbered n ORDER BY n.k
      ON CONFLICT ON CONSTRAINT orders_identity DO NOTHING RETURNING id, numero_ordine
    ), lines AS (
      INSERT INTO order_lines (order_id, idx, codice_articolo, quantita, unita_misura)
      SELECT l.order_id, l.idx, l.a, l.q, l.u
      FROM unnest($16::text[], $17::int[], $18::text[], $19::float8[], $20::text[]) AS l(order_id, idx, a, q, u)
      JOIN ins ON ins.id = l.order_id
    )${outbox ? `, ev AS (
      INSERT INTO order_events (id, type, time, order_id, customer_id, data)
      SELECT n.event_id, 'ordine.registrato', n.registered_at, ins.id, n.customer_id,
        n.event_data || jsonb_build_object('numero_ordine', ins.numero_ordine)
      FROM ins JOIN numbered n ON n.id = ins.id ORDER BY n.k
    )` : ''}
    SELECT i.k, x.id, x.numero_ordine, x.submission_id, x.content_hash, coalesce(x.created, false) AS created,
      EXISTS (SELECT 1 FROM fenced y WHERE y.k = i.k) AS fenced
    FROM input i LEFT JOIN (
      SELECT k, id, numero_ordine, submission_id, content_hash, false AS created FROM found
      UNION ALL SELECT n.k, ins.id, ins.numero_ordine, NULL, NULL, true FROM ins JOIN numbered n ON n.id = ins.id
    ) AS x ON x.k = i.k ORDER BY i.k`;
}

export interface RegisterGroups {
  /**
   * Queue one order (checked already) for the next group; resolves with its row, undefined when the insert did
   * nothing, FENCED when `holder` no longer holds its submission.
   */
  register(item: RegisterItem, event: NewEvent | undefined, seqName: string, holder?: string): Promise<GroupAnswer>;
}

/**
 * `alone` registers one order by itself (registerAlone's statement, fenced like the group when `holder` is set): used
 * for the orders of a group that failed. Only lazy registrations (durable: false) are grouped: the statement turns
 * synchronous_commit off for itself.
 */
export function registerGroups(
  writers: OrderWriters,
  outbox: boolean,
  alone: (item: RegisterItem, holder: string | undefined) => Promise<GroupAnswer>,
): RegisterGroups {
  const text = registerGroupSql(outbox);
  const groups = grouped<Waiting, GroupAnswer>(
    (w) => alone(w.item, w.holder),
    async (group) => {
      const { rows } = await writers.query<GroupRow & { k: string; fenced: boolean }>({ name: `register-group-${outbox ? 'events' : 'no-events'}`, text, values: values(group) });
      return group.map((_, i) => {
        const row = rows[i];
        if (row?.fenced) return FENCED;
        return row?.id ? { id: row.id, numero_ordine: row.numero_ordine, submission_id: row.submission_id, content_hash: row.content_hash, created: row.created } : undefined;
      });
    },
  );
  return {
    register: (item, event, seqName, holder) => groups.run({ item, event, seqName, ...(holder === undefined ? {} : { holder }) }),
  };
}

/**
 * The lines of `items`' orders as the group statements' five line arrays (order id, position, article, quantity,
 * unit), flattened in order: what `unnest(...) AS l(order_id, idx, a, q, u)` reads.
 */
export function lineColumns(items: readonly RegisterItem[]): [string[], number[], string[], number[], string[]] {
  const cols: [string[], number[], string[], number[], string[]] = [[], [], [], [], []];
  for (const item of items) {
    item.order.righe.forEach((r, i) => {
      cols[0].push(item.id);
      cols[1].push(i);
      cols[2].push(r.codice_articolo);
      cols[3].push(r.quantita);
      cols[4].push(r.unita_misura);
    });
  }
  return cols;
}

function values(group: readonly Waiting[]): unknown[] {
  const col = <T>(f: (w: Waiting) => T): T[] => group.map(f);
  return [
    col((w) => w.item.id), col((w) => w.item.customerId), col((w) => w.item.order.codice_cliente),
    col((w) => w.item.order.riferimento_ordine), col((w) => w.item.order.data_ordine), col((w) => w.item.year),
    col((w) => w.item.order.data_consegna ?? null), col((w) => w.item.contentHash), col((w) => w.item.submissionId),
    col((w) => w.item.channel), col((w) => w.item.site ?? null), col((w) => isoIn(w.item.registeredAt, 'registeredAt')),
    col((w) => w.seqName), col((w) => w.event?.id ?? null), col((w) => (w.event ? JSON.stringify(w.event.data) : null)),
    ...lineColumns(group.map((w) => w.item)), col((w) => w.holder ?? null), col((w) => w.item.order.note ?? null),
  ];
}
