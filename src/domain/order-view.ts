/**
 * The view of one order a customer gets: the body of `GET /api/v1/ordini/{id}`, SOAP `StatoOrdine`'s content, and
 * the `data` of every order event (src/domain/order-events.ts). One builder, so the feed, webhooks and REST never
 * disagree about what an order looks like. Pure: no store, no channel.
 *
 * States (the spec names none; these are ours): `ricevuto` (received, not judged yet), `registrato` (accepted, has
 * its numero_ordine), `rifiutato` (judged and refused; the errors say why), `annullato` (registered, then cancelled by
 * the customer or by production). Production's own progress is apart, in
 * `stato_produzione` and `storico_produzione`, present once an integration has reported something.
 */
import { withoutUndefined } from './objects.ts';
import type { FieldError, OrderLine, OrderOutcome, ProductionState, ProductionStep, RegisteredOrder, RequestKind, RequestState } from './types.ts';

export type OrderState = 'ricevuto' | 'registrato' | 'rifiutato' | 'annullato';

/** One version in `versioni` (src/intake/lifecycle.ts). */
export interface VersionEntry {
  versione: number;
  ricevuto_il: string;
  canale: string;
  azione: 'nuovo' | 'modifica';
}

/** One request in `richieste`: a change or cancellation production decides. */
export interface RequestEntry {
  id_richiesta: string;
  tipo: RequestKind;
  stato_richiesta: RequestState;
  motivo?: string;
  nota?: string;
  ricevuta_il: string;
  decisa_il?: string;
}

export interface OrderStatus {
  stato: OrderState;
  id_ordine?: string;
  numero_ordine?: string;
  codice_cliente?: string;
  riferimento_ordine?: string;
  data_ordine?: string;
  data_consegna?: string;
  note?: string;
  righe?: OrderLine[];
  sito_produzione?: string;
  canale: string;
  ricevuto_il?: string;
  registrato_il?: string;
  stato_produzione?: ProductionState;
  storico_produzione?: ProductionStep[];
  /** The current version of a registered order (1 until a change is applied). */
  versione?: number;
  /** Every version and every request: only in GET's view (src/intake/lifecycle.ts), not in events. */
  versioni?: VersionEntry[];
  richieste?: RequestEntry[];
  /** Stage A messages of a refused order. */
  message?: string[];
  /** Stage B errors of a refused order. */
  errori?: FieldError[];
  /** What the UBL document the order came as says beyond the order (GET's view only: src/intake/status.ts). */
  documento?: unknown;
}

/** The keys in the order a view shows them; a view read back from a store that does not keep key order is put back in it. */
export const VIEW_KEYS: readonly (keyof OrderStatus)[] = [
  'stato', 'id_ordine', 'numero_ordine', 'codice_cliente', 'riferimento_ordine', 'data_ordine', 'data_consegna', 'note', 'righe',
  'sito_produzione', 'canale', 'ricevuto_il', 'registrato_il', 'stato_produzione', 'storico_produzione', 'versione', 'versioni',
  'richieste', 'message', 'errori', 'documento',
];

/**
 * Built key by key in VIEW_KEYS order, an optional key added only when it has a value: every registration builds one
 * for its outbox event on the SQLite write thread (which bounds REST throughput there), and deleting undefined keys
 * afterwards made that object slow to build, copy and serialise (issue 17: the outbox's cost).
 */
/**
 * Built key by key in VIEW_KEYS order, an optional key only when it has a value, rather than built whole and its
 * undefined keys deleted: every registration builds one for its outbox event on the SQLite write thread (which
 * bounds REST throughput there), and an object with deleted keys is slow to copy and to serialise (issue 17).
 */
export function registeredView(o: RegisteredOrder): OrderStatus {
  const v: Partial<OrderStatus> = {
    stato: o.productionState === 'annullato' ? 'annullato' : 'registrato', id_ordine: o.id_ordine, numero_ordine: o.numero_ordine,
    codice_cliente: o.codice_cliente, riferimento_ordine: o.riferimento_ordine, data_ordine: o.data_ordine,
  };
  if (o.data_consegna !== undefined) v.data_consegna = o.data_consegna;
  if (o.note !== undefined) v.note = o.note;
  v.righe = o.righe.map((r) => ({ codice_articolo: r.codice_articolo, quantita: r.quantita, unita_misura: r.unita_misura }));
  if (o.sito_produzione !== undefined) v.sito_produzione = o.sito_produzione;
  v.canale = o.channel;
  v.registrato_il = o.registeredAt;
  if (o.productionState !== undefined) {
    v.stato_produzione = o.productionState;
    v.storico_produzione = (o.productionHistory ?? []).map((h) => withoutUndefined({ ...h }));
  }
  v.versione = o.versione;
  return v as OrderStatus;
}

export function refusedView(o: OrderOutcome | undefined, channel: string, receivedAt: string, fileMessage?: string[]): OrderStatus {
  return withoutUndefined<OrderStatus>({
    stato: 'rifiutato', codice_cliente: o?.codice_cliente, riferimento_ordine: o?.riferimento_ordine,
    canale: channel, ricevuto_il: receivedAt,
    message: o?.message ?? fileMessage, errori: o?.errori,
  });
}

/** `v` with its keys in VIEW_KEYS order (unknown keys last, as they were). */
export function inViewOrder(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of VIEW_KEYS) if (k in v) out[k] = v[k];
  for (const k of Object.keys(v)) if (!(k in out)) out[k] = v[k];
  return out;
}
