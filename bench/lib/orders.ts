/**
 * Order documents the benchmarks send: valid orders of the seeded DEMO customer using the demo catalog, so every
 * one is accepted and registered; each has its own riferimento_ordine so each registers a new order.
 */
import type { RefOrder } from './types.ts';
import { DEMO_ARTICLES, DEMO_CUSTOMER } from '../../src/seed/demo.ts';

const CUSTOMER = DEMO_CUSTOMER.code;
const ORDER_DATE = '2026-01-15';
const DELIVERY_DATE = '2026-02-02';

function article(i: number) {
  return DEMO_ARTICLES[i % DEMO_ARTICLES.length]!;
}

function quantity(i: number): number {
  return 100 + ((i * 37) % 900);
}

/**
 * A JSON order of `lines` lines as a string, built by concatenation: the load generator must spend its CPU on
 * sending, and the reference is the only part that changes.
 */
export function jsonOrder(ref: string, lines: number): string {
  const righe: string[] = [];
  for (let i = 0; i < lines; i++) {
    const a = article(i);
    righe.push(`{"codice_articolo":"${a.codice_articolo}","quantita":${quantity(i)},"unita_misura":"${a.unita_misura}"}`);
  }
  return `{"codice_cliente":"${CUSTOMER}","riferimento_ordine":"${ref}","data_ordine":"${ORDER_DATE}",`
    + `"data_consegna":"${DELIVERY_DATE}","righe":[${righe.join(',')}]}`;
}

export function xmlOrder(ref: string, lines: number): string {
  const righe: string[] = [];
  for (let i = 0; i < lines; i++) {
    const a = article(i);
    righe.push(`    <riga><codice_articolo>${a.codice_articolo}</codice_articolo><quantita>${quantity(i)}</quantita>`
      + `<unita_misura>${a.unita_misura}</unita_misura></riga>`);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<ordine>\n  <codice_cliente>${CUSTOMER}</codice_cliente>\n`
    + `  <riferimento_ordine>${ref}</riferimento_ordine>\n  <data_ordine>${ORDER_DATE}</data_ordine>\n`
    + `  <data_consegna>${DELIVERY_DATE}</data_consegna>\n  <righe>\n${righe.join('\n')}\n  </righe>\n</ordine>\n`;
}

export const CSV_HEADER = 'codice_cliente;riferimento_ordine;data_ordine;data_consegna;codice_articolo;quantita;unita_misura\n';

/** The CSV rows of one order (no header), with the Italian decimal comma on some quantities as Excel writes them. */
export function csvRows(ref: string, lines: number): string {
  let out = '';
  for (let i = 0; i < lines; i++) {
    const a = article(i);
    const q = i % 4 === 3 ? `${quantity(i)},5` : String(quantity(i));
    out += `${CUSTOMER};${ref};${ORDER_DATE};${DELIVERY_DATE};${a.codice_articolo};${q};${a.unita_misura}\n`;
  }
  return out;
}

export function csvOrder(ref: string, lines: number): string {
  return CSV_HEADER + csvRows(ref, lines);
}

/** The `--refs` option's value, checked: a misspelt order must not quietly measure the default. */
export function refOrder(raw: unknown): RefOrder {
  if (raw === undefined) return 'sequence';
  if (raw === 'sequence' || raw === 'scattered') return raw;
  throw new Error(`--refs must be sequence or scattered, got "${String(raw)}"`);
}

/**
 * The reference of the n-th order. In sequence, every reference-keyed index of the store grows at its right edge, as
 * for one customer numbering its orders; scattered, a multiplicative scramble of n put before it (n stays, so each
 * reference is still new) sends consecutive orders far apart in those indexes, as orders from many customers would.
 */
export function reference(spec: { refPrefix: string; refs?: RefOrder }, n: number): string {
  if (spec.refs !== 'scattered') return `${spec.refPrefix}-${n}`;
  const k = Math.imul(n, 0x9e3779b1) >>> 0;
  return `${spec.refPrefix}-${k.toString(36).padStart(7, '0')}-${n}`;
}
