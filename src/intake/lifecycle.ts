/**
 * The order lifecycle: a customer changes (`modifica`) or cancels (`annulla`) an order registered already, on any
 * channel; production decides once it has started. One place for the rules, so every channel behaves the same:
 *
 * | production state              | modifica                   | annulla                    |
 * |-------------------------------|----------------------------|----------------------------|
 * | none reported yet             | new version at once        | cancelled at once          |
 * | in_lavorazione                | request production decides | request production decides |
 * | spedito, consegnato           | refused (ORDER_LOCKED)     | refused (ORDER_LOCKED)     |
 * | annullato                     | refused (ORDER_LOCKED)     | answered as done, no event |
 *
 * A change whose content equals the current version's makes no version and answers with the current one (a resent
 * change is the same change); a cancellation of a cancelled order answers as done. While a request waits, another
 * change or cancellation of that order is refused (REQUEST_PENDING): the customer waits for its outcome.
 *
 * Every write is a compare-and-set on the order's version and production state (src/domain/store/lifecycle.ts): when
 * another writer moved the order meanwhile, the rules are applied again to what it is now. With `ifMatch` (REST's
 * If-Match) a moved version is VERSION_MOVED instead: the caller asked not to overwrite what it has not seen.
 */
import { IntakeError, type ErrorCode } from '../domain/errors.ts';
import { registeredView, type OrderStatus, type RequestEntry, type VersionEntry } from '../domain/order-view.ts';
import { uuidv7 } from '../domain/uuid7.ts';
import type { NewEvent } from '../domain/store/events.ts';
import type { ChangeRequest, LifecycleStore, StoredVersion } from '../domain/store/lifecycle.ts';
import type { Store } from '../domain/store/store.ts';
import type { ChangeAction, Channel, Order, OrderLine, RegisteredOrder } from '../domain/types.ts';
import { canMove } from '../domain/production-moves.ts';
import { contentHash } from './register.ts';

/** What the lifecycle reads and writes. */
export type LifecyclePort = LifecycleStore & Pick<Store, 'getOrder' | 'getOrderByRef' | 'getOrderAnyCustomer'>;

export interface LifecycleDeps {
  store: LifecyclePort;
  now?: () => Date;
  /** Told after an event was committed (wakes the feed's long polls). */
  onEvent?: () => void;
}

/**
 * Writers that moved the order between our read and our write: each time the rules are applied again. Every lost
 * round is another writer's win, so a writer loses at most once per writer racing it; 32 covers any real burst of
 * changes to one order (a customer's system resending, an operator and the customer at once).
 */
const MAX_ATTEMPTS = 32;

export interface ChangeAsk {
  customerId: string;
  /** The order as validated (stage A and B for a change; only its identity for a cancellation). */
  order: Order;
  azione: ChangeAction;
  motivo?: string;
  channel: Channel;
  submissionId: string;
  /** The order by id (REST's PUT and /annulla); otherwise by the order's reference. */
  orderId?: string;
  /** REST's If-Match: the version the caller last saw. */
  ifMatch?: number;
  /** Who cancels, kept in the production history: `cliente` or `operatore:<name>`. */
  by?: string;
}

export type ChangeResult =
  /** A change: the order as it is now; `changed` false when the content was already the current version's. */
  | { kind: 'version'; order: RegisteredOrder; changed: boolean }
  | { kind: 'cancelled'; order: RegisteredOrder; changed: boolean }
  /** Production decides: the request (created now, or found: the same submission judged again). */
  | { kind: 'request'; order: RegisteredOrder; request: ChangeRequest }
  /** Refused: nothing written. `campo` names the field for shape B. */
  | { kind: 'refused'; code: ErrorCode; campo: string; messaggio: string; order?: RegisteredOrder };

const STATE_WORDS: Record<string, string> = { spedito: 'è già stato spedito', consegnato: 'è già stato consegnato', annullato: 'è annullato' };

function refused(code: ErrorCode, messaggio: string, order?: RegisteredOrder, campo = 'riferimento_ordine'): ChangeResult {
  return { kind: 'refused', code, campo, messaggio, ...(order ? { order } : {}) };
}

function event(type: NewEvent['type'], o: RegisteredOrder, at: string, data: Record<string, unknown>): NewEvent {
  return { id: uuidv7(), type, time: at, orderId: o.id_ordine, customerId: o.customerId, data };
}

export function requestEntry(r: ChangeRequest): RequestEntry {
  const e: RequestEntry = { id_richiesta: r.id_richiesta, tipo: r.tipo, stato_richiesta: r.stato_richiesta, ricevuta_il: r.createdAt };
  if (r.motivo !== undefined) e.motivo = r.motivo;
  if (r.nota !== undefined) e.nota = r.nota;
  if (r.decidedAt !== undefined) e.decisa_il = r.decidedAt;
  return e;
}

function requestData(o: RegisteredOrder, r: ChangeRequest): Record<string, unknown> {
  const richiesta: Record<string, unknown> = { ...requestEntry(r) };
  if (r.order) richiesta.righe = r.order.righe;
  return { ...registeredView(o), richiesta };
}

/** The order's current version, whole, as order_versions keeps it once it is superseded. */
function currentVersion(o: RegisteredOrder): StoredVersion {
  const order: Order = { codice_cliente: o.codice_cliente, riferimento_ordine: o.riferimento_ordine, data_ordine: o.data_ordine, righe: o.righe };
  if (o.data_consegna !== undefined) order.data_consegna = o.data_consegna;
  if (o.note !== undefined) order.note = o.note;
  return {
    versione: o.versione, ricevuto_il: o.versionAt ?? o.registeredAt, canale: o.versionChannel ?? o.channel,
    azione: o.versione === 1 ? 'nuovo' : 'modifica', order, submissionId: o.submissionId,
  };
}

/** The order after `content` became its next version (what the events and the answer show). */
function afterVersion(o: RegisteredOrder, content: Order, at: string, channel: Channel): RegisteredOrder {
  const next: RegisteredOrder = { ...o, data_ordine: content.data_ordine, righe: content.righe, versione: o.versione + 1, versionAt: at, versionChannel: channel };
  delete next.data_consegna;
  delete next.note;
  delete next.azione;
  delete next.motivo;
  if (content.data_consegna !== undefined) next.data_consegna = content.data_consegna;
  if (content.note !== undefined) next.note = content.note;
  return next;
}

function afterCancel(o: RegisteredOrder, at: string, motivo: string | undefined): RegisteredOrder {
  return {
    ...o, productionState: 'annullato',
    productionHistory: [...(o.productionHistory ?? []), { stato: 'annullato', aggiornato_il: at, ...(motivo ? { nota: motivo } : {}) }],
  };
}

function modifiedData(after: RegisteredOrder, before: readonly OrderLine[]): Record<string, unknown> {
  return { ...registeredView(after), versione_precedente: after.versione - 1, righe_precedenti: before };
}

/** A change or cancellation asked by the customer (or the order desk on its behalf). */
export async function applyChange(deps: LifecycleDeps, ask: ChangeAsk): Promise<ChangeResult> {
  const now = deps.now ?? (() => new Date());
  const told = (r: ChangeResult): ChangeResult => {
    if ((r.kind === 'version' || r.kind === 'cancelled') && r.changed) deps.onEvent?.();
    return r;
  };
  for (let attempt = 1; ; attempt++) {
    const o = ask.orderId !== undefined
      ? await deps.store.getOrder(ask.customerId, ask.orderId)
      : await deps.store.getOrderByRef(ask.customerId, ask.order.riferimento_ordine);
    if (!o) {
      if (ask.orderId !== undefined) return refused('ORDER_NOT_FOUND', `Ordine ${ask.orderId} non trovato`, undefined, 'id_ordine');
      return refused('BUSINESS', `L'ordine "${ask.order.riferimento_ordine}" non è mai stato registrato: non si può ${ask.azione === 'modifica' ? 'modificare' : 'annullare'}. Per registrarlo, inviarlo con azione "nuovo"`);
    }
    if (ask.orderId !== undefined && o.riferimento_ordine !== ask.order.riferimento_ordine) {
      return refused('BUSINESS', `Il riferimento "${ask.order.riferimento_ordine}" non è quello dell'ordine ${o.numero_ordine} ("${o.riferimento_ordine}"): il riferimento di un ordine non cambia`, o);
    }
    if (ask.ifMatch !== undefined && ask.ifMatch !== o.versione) {
      return refused('VERSION_MOVED', `L'ordine ${o.numero_ordine} è alla versione ${o.versione}, non alla ${ask.ifMatch} indicata in If-Match: rileggerlo e riprovare`, o);
    }
    const state = o.productionState;
    const at = now().toISOString();
    if (ask.azione === 'annulla' && state === 'annullato') return { kind: 'cancelled', order: o, changed: false };
    const hash = ask.azione === 'modifica' ? contentHash(ask.order) : undefined;
    if (hash !== undefined && state !== 'annullato' && hash === contentHash(o)) return { kind: 'version', order: o, changed: false };
    if (state === 'spedito' || state === 'consegnato' || state === 'annullato') {
      const what = ask.azione === 'modifica' ? 'modificato' : 'annullato';
      return refused('ORDER_LOCKED', `L'ordine ${o.numero_ordine} ${STATE_WORDS[state]}: non può più essere ${what}`, o);
    }
    if (state === 'in_lavorazione') {
      const asked: ChangeRequest = {
        id_richiesta: uuidv7(), orderId: o.id_ordine, customerId: o.customerId, tipo: ask.azione === 'modifica' ? 'modifica' : 'annullamento',
        stato_richiesta: 'in_attesa',
        ...(ask.motivo !== undefined ? { motivo: ask.motivo } : {}),
        ...(hash !== undefined ? { order: ask.order, contentHash: hash } : {}),
        baseVersion: o.versione, submissionId: ask.submissionId, channel: ask.channel, createdAt: at,
      };
      const { stato_richiesta: _waiting, ...write } = asked;
      const request = await deps.store.addRequest({ ...write, event: event('ordine.richiesta', o, at, requestData(o, asked)) });
      if (request.status === 'pending') {
        const kind = request.request.tipo === 'modifica' ? 'di modifica' : 'di annullamento';
        return refused('REQUEST_PENDING', `Per l'ordine ${o.numero_ordine} è già in attesa una richiesta ${kind} (${request.request.id_richiesta}): attendere la decisione della produzione`, o);
      }
      if (request.status === 'created') deps.onEvent?.();
      return { kind: 'request', order: o, request: request.request };
    }
    const written = ask.azione === 'modifica'
      ? await writeNewVersion(deps, o, ask.order, hash!, at, ask.channel, ask.submissionId)
      : await writeCancel(deps, o, at, ask.motivo, ask.by ?? 'cliente');
    if (written) return told(written);
    if (ask.ifMatch !== undefined) {
      return refused('VERSION_MOVED', `L'ordine ${o.numero_ordine} è cambiato mentre la richiesta era in corso: rileggerlo e riprovare`, o);
    }
    if (attempt >= MAX_ATTEMPTS) throw new IntakeError('UNAVAILABLE', `L'ordine ${o.numero_ordine} è stato cambiato da altre richieste nello stesso momento: riprovare`);
  }
}

async function writeNewVersion(
  deps: LifecycleDeps, o: RegisteredOrder, content: Order, hash: string, at: string, channel: Channel, submissionId: string,
  request?: { id: string; nota?: string; event: (after: RegisteredOrder) => NewEvent },
): Promise<ChangeResult | undefined> {
  const after = afterVersion(o, content, at, channel);
  const events = [event('ordine.modificato', after, at, modifiedData(after, o.righe))];
  if (request) events.push(request.event(after));
  const ok = await deps.store.writeVersion({
    orderId: o.id_ordine, from: o.versione, fromState: o.productionState ?? null, order: content, contentHash: hash, at, channel, submissionId,
    previous: currentVersion(o), events, ...(request ? { request: { id: request.id, ...(request.nota !== undefined ? { nota: request.nota } : {}) } } : {}),
  });
  return ok ? { kind: 'version', order: after, changed: true } : undefined;
}

async function writeCancel(
  deps: LifecycleDeps, o: RegisteredOrder, at: string, motivo: string | undefined, by: string,
  request?: { id: string; nota?: string; event: (after: RegisteredOrder) => NewEvent },
): Promise<ChangeResult | undefined> {
  const after = afterCancel(o, at, motivo);
  const events = [event('ordine.annullato', after, at, { ...registeredView(after), ...(motivo ? { motivo } : {}) })];
  if (request) events.push(request.event(after));
  const ok = await deps.store.cancelOrder({
    orderId: o.id_ordine, from: o.versione, fromState: o.productionState ?? null, at, by, events,
    ...(motivo !== undefined ? { motivo } : {}),
    ...(request ? { request: { id: request.id, ...(request.nota !== undefined ? { nota: request.nota } : {}) } } : {}),
  });
  return ok ? { kind: 'cancelled', order: after, changed: true } : undefined;
}

export interface Decision {
  orderId: string;
  requestId: string;
  esito: 'accettata' | 'rifiutata';
  nota?: string;
  /** The integration deciding (kept in the production history of a cancellation). */
  by: string;
  /** Only an order of this customer (a connector's decision); another's is "not found", as a missing one. */
  customerId?: string;
}

/** Production's decision on a request; a retry of the same decision changes nothing (`changed` false). */
export async function decideRequest(deps: LifecycleDeps, d: Decision): Promise<{ changed: boolean; order: RegisteredOrder; request: ChangeRequest }> {
  const now = deps.now ?? (() => new Date());
  for (let attempt = 1; ; attempt++) {
    const o = await deps.store.getOrderAnyCustomer(d.orderId);
    if (!o || (d.customerId !== undefined && o.customerId !== d.customerId)) throw new IntakeError('ORDER_NOT_FOUND', `Ordine ${d.orderId} non trovato`);
    const r = (await deps.store.orderRequests(o.id_ordine)).find((x) => x.id_richiesta === d.requestId);
    if (!r) throw new IntakeError('NOT_FOUND', `Richiesta ${d.requestId} non trovata per l'ordine ${o.numero_ordine}`);
    if (r.stato_richiesta !== 'in_attesa') {
      if (r.stato_richiesta === d.esito) return { changed: false, order: o, request: r };
      throw new IntakeError('REQUEST_DECIDED', `La richiesta ${r.id_richiesta} è già stata ${r.stato_richiesta}: la decisione non può cambiare`);
    }
    const at = now().toISOString();
    const decided: ChangeRequest = { ...r, stato_richiesta: d.esito, decidedAt: at, ...(d.nota !== undefined ? { nota: d.nota } : {}) };
    const outcomeEvent = (after: RegisteredOrder) => event('ordine.richiesta_esito', after, at, requestData(after, decided));
    if (d.esito === 'rifiutata') {
      if (await deps.store.refuseRequest({ orderId: o.id_ordine, id: r.id_richiesta, at, event: outcomeEvent(o), ...(d.nota !== undefined ? { nota: d.nota } : {}) })) {
        deps.onEvent?.();
        return { changed: true, order: o, request: decided };
      }
    } else {
      const request = { id: r.id_richiesta, event: outcomeEvent, ...(d.nota !== undefined ? { nota: d.nota } : {}) };
      let written: ChangeResult | undefined;
      if (r.tipo === 'modifica') {
        if (o.productionState === 'annullato') throw new IntakeError('STATE_TRANSITION', `L'ordine ${o.numero_ordine} è annullato: la modifica non può più essere applicata`);
        written = await writeNewVersion(deps, o, r.order!, r.contentHash!, at, r.channel, r.submissionId, request);
      } else {
        if (!canMove(o.productionState, 'annullato')) {
          throw new IntakeError('STATE_TRANSITION', `L'ordine ${o.numero_ordine} ${STATE_WORDS[o.productionState!] ?? 'non è più annullabile'}: l'annullamento non può più essere applicato`);
        }
        written = await writeCancel(deps, o, at, r.motivo, d.by, request);
      }
      if (written && written.kind !== 'refused') {
        deps.onEvent?.();
        return { changed: true, order: written.order, request: decided };
      }
    }
    if (attempt >= MAX_ATTEMPTS) throw new IntakeError('UNAVAILABLE', `L'ordine ${o.numero_ordine} è stato cambiato da altre richieste nello stesso momento: riprovare`);
  }
}

/** The order as `GET /api/v1/ordini/{id}` shows it: with its version, its versions and its requests. */
export async function lifecycleView(store: Pick<LifecycleStore, 'orderVersions' | 'orderRequests'>, o: RegisteredOrder): Promise<OrderStatus> {
  const [versions, requests] = await Promise.all([store.orderVersions(o.id_ordine), store.orderRequests(o.id_ordine)]);
  const v = registeredView(o);
  const current = currentVersion(o);
  v.versioni = [...versions, current].map((x): VersionEntry => ({ versione: x.versione, ricevuto_il: x.ricevuto_il, canale: x.canale, azione: x.azione }));
  v.richieste = requests.map(requestEntry);
  return v;
}
