/**
 * The recap of registered lines: for each accepted order, every line as the store holds it — article code,
 * the catalog's description, the quantity as registered and the unit — so that a quantity the service read otherwise
 * than the customer meant (1.500 taken for 1.5, say) is seen at once. Gathered here once for every renderer: outcome
 * files, reply e-mails, the portal's and the console's result pages.
 *
 * The lines are read back from the store, not taken from the file: what the customer is shown is what was registered.
 * Duplicates (an order already registered) show the lines of the order they point to. A change shows the lines of the
 * version it made and a registration those of version 1, even once later versions replaced them; a cancellation and a
 * request production has still to decide registered no lines, and show none.
 *
 * Quantities are written one way everywhere: integers without a thousands separator ("1500"), decimals with a comma
 * ("2,5"). A separator would bring back the very ambiguity the recap is there to catch.
 */
import type { Order, OrderOutcome } from '../domain/types.ts';
import type { Store } from '../domain/store/store.ts';

/**
 * What gathering reads: orders by id and descriptions by code, both scoped by the caller's customer; the superseded
 * versions of an order when it has moved on since the outcome (without orderVersions, the current lines are shown).
 */
export type RecapPort = Pick<Store, 'getOrders' | 'articleDescriptions'> & Partial<Pick<Store, 'orderVersions'>>;

export interface RecapLine {
  codice_articolo: string;
  /** Absent when the catalog no longer has the article. */
  descrizione?: string;
  quantita: number;
  /** The quantity as people read it (quantityText). */
  quantita_testo: string;
  unita_misura: string;
}

export interface OrderRecap {
  righe: RecapLine[];
  /** Lines of the order left out of the recap (its budget of lines ran out). */
  altre: number;
}

export interface Recap {
  /**
   * By recapKey (id_ordine, and the version for a change): read it with recapOf. An accepted order missing here was
   * left out (see omittedOrders), or registered no lines (a cancellation, a request).
   */
  byOrder: ReadonlyMap<string, OrderRecap>;
  /** Accepted orders (distinct ids) that got no recap because the budget ran out. */
  omittedOrders: number;
}

export interface RecapLimits {
  orders: number;
  lines: number;
}

/**
 * How much one rendering recaps. The recap is held in memory while its text is built, and a file may hold 100,000
 * orders (MAX_ORDERS_PER_FILE):
 * - mail: a reply is read by a person and passes relays with size limits (text and HTML both carry it): a few
 *   hundred lines are what anyone checks by eye; beyond, the outcome file and the portal have the rest.
 * - file: an outcome file is rendered whole in memory on every download (and once more for its size in listings):
 *   20,000 lines are about 1.5 MB of text, the size of the JSON outcome of a few thousand orders.
 * - page: a web page with a table per order; a form holds at most 200 lines (MAX_FORM_LINES), an upload many more.
 */
export const RECAP_LIMITS = {
  mail: { orders: 50, lines: 500 },
  file: { orders: 5_000, lines: 20_000 },
  page: { orders: 100, lines: 1_000 },
} as const satisfies Record<string, RecapLimits>;

/** Orders read from the store per query: bounds what one read holds besides the recap itself. */
const ORDERS_PER_READ = 100;

export const EMPTY_RECAP: Recap = { byOrder: new Map(), omittedOrders: 0 };

/** A quantity as people read it: "1500", "2,5" (never a thousands separator). */
export function quantityText(n: number): string {
  return String(n).replace('.', ',');
}

/** The version whose lines an outcome shows: undefined for the current one, 0 for none. */
function shownVersion(o: OrderOutcome): number | undefined {
  if (o.azione === 'annulla' || o.id_richiesta !== undefined) return 0;
  if (o.azione === 'modifica') return o.versione;
  return o.duplicate ? undefined : 1;
}

/** Where an outcome's recap is kept: a change by its order and version (one file may register an order and change it). */
export function recapKey(o: Pick<OrderOutcome, 'id_ordine' | 'azione' | 'versione'>): string {
  return o.azione === 'modifica' && o.versione !== undefined ? `${o.id_ordine}@${o.versione}` : o.id_ordine ?? '';
}

/** The recap of one accepted outcome, when it has one. */
export function recapOf(recap: Recap | undefined, o: OrderOutcome): OrderRecap | undefined {
  return o.esito === 'ok' && o.id_ordine ? recap?.byOrder.get(recapKey(o)) : undefined;
}

/**
 * The recap of the accepted orders among `orders` (of one or more outcomes, in the order shown), within `limits`.
 * `customerId` scopes every read: an id of another customer's order is never read.
 */
export async function gatherRecap(port: RecapPort, customerId: string, orders: Iterable<OrderOutcome | undefined>, limits: RecapLimits): Promise<Recap> {
  const ids: { key: string; id: string; version?: number }[] = [];
  const seen = new Set<string>();
  for (const o of orders) {
    if (o?.esito !== 'ok' || !o.id_ordine) continue;
    const version = shownVersion(o);
    const key = recapKey(o);
    if (version === 0 || seen.has(key)) continue;
    seen.add(key);
    ids.push({ key, id: o.id_ordine, ...(version !== undefined ? { version } : {}) });
  }
  if (ids.length === 0) return EMPTY_RECAP;
  const byOrder = new Map<string, OrderRecap>();
  let linesLeft = limits.lines;
  let taken = 0;
  const wanted = ids.slice(0, limits.orders);
  for (let i = 0; i < wanted.length && linesLeft > 0; i += ORDERS_PER_READ) {
    const part = wanted.slice(i, i + ORDERS_PER_READ);
    const found = new Map((await port.getOrders(customerId, [...new Set(part.map((w) => w.id))])).map((o) => [o.id_ordine, o]));
    const lines = new Map<string, Order['righe']>();
    for (const w of part) {
      const o = found.get(w.id);
      if (!o) continue;
      if (w.version === undefined || w.version === o.versione || !port.orderVersions) lines.set(w.key, o.righe);
      else {
        const old = (await port.orderVersions(w.id)).find((v) => v.versione === w.version);
        lines.set(w.key, old ? old.order.righe : o.righe);
      }
    }
    const codes = new Set<string>();
    for (const righe of lines.values()) for (const r of righe) codes.add(r.codice_articolo);
    const descriptions = await port.articleDescriptions([...codes]);
    for (const { key: id } of part) {
      const o = lines.has(id) ? { righe: lines.get(id)! } : undefined;
      if (!o || linesLeft <= 0) continue;
      const shown = o.righe.slice(0, linesLeft);
      linesLeft -= shown.length;
      taken++;
      byOrder.set(id, {
        righe: shown.map((r) => {
          const descrizione = descriptions.get(r.codice_articolo);
          return {
            codice_articolo: r.codice_articolo, ...(descrizione !== undefined ? { descrizione } : {}),
            quantita: r.quantita, quantita_testo: quantityText(r.quantita), unita_misura: r.unita_misura,
          };
        }),
        altre: o.righe.length - shown.length,
      });
    }
  }
  return { byOrder, omittedOrders: ids.length - taken };
}

/** The recap of one order as indented plain-text lines (outcome files, reply e-mails). */
export function recapTextLines(r: OrderRecap): string[] {
  const lines = r.righe.map((l) => `    ${l.codice_articolo}${l.descrizione ? ` (${oneLine(l.descrizione)})` : ''}: ${l.quantita_testo} ${l.unita_misura}`);
  if (r.altre > 0) lines.push(`    … e ${r.altre === 1 ? 'un\'altra riga' : `altre ${r.altre} righe`}`);
  return lines;
}

/** The sentence closing a text whose recap left orders out. */
export function omittedText(n: number): string {
  return n === 1
    ? "Il riepilogo delle righe non è riportato per un altro ordine accettato: lo trova nel portale, tra i Suoi ordini."
    : `Il riepilogo delle righe non è riportato per altri ${n} ordini accettati: li trova nel portale, tra i Suoi ordini.`;
}

/** The recap of one order as JSON for programs (outcome files, the reply's esito.json): quantities as numbers. */
export function recapJson(r: OrderRecap): Record<string, unknown> {
  return {
    righe_registrate: r.righe.map((l) => ({
      codice_articolo: l.codice_articolo, ...(l.descrizione !== undefined ? { descrizione: l.descrizione } : {}),
      quantita: l.quantita, unita_misura: l.unita_misura,
    })),
    ...(r.altre > 0 ? { altre_righe: r.altre } : {}),
  };
}

/** A catalog description on one line of a text file (imports may carry line breaks). */
function oneLine(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\x00-\x1f\x7f\u2028\u2029]+/g, ' ').trim();
}
