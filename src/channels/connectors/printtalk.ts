/**
 * PrintTalk 2.x on the connector routes (XJDF connectors only: the route asks no other): every request is answered
 * in the HTTP body (status 200, like JMF) with a PrintTalk document (src/intake/connectors/printtalk-answer.ts).
 *
 * - PurchaseOrder: stored and judged like every submission (the XJDF inside goes through the XJDF reader and the
 *   connector's rules); all orders registered → Confirmation; otherwise → Refusal naming the errors in Italian
 *   (the orders of the same PurchaseOrder that did register are named in it too).
 * - Cancellation: stored and judged; the core's lifecycle cancels at once or makes a request for production.
 * - OrderStatusRequest: answered at once from the order's state (nothing stored), as OrderStatusResponse.
 * - RFQ: quotations, and the change requests PrintTalk sends as RFQ, are the sales office's: Refusal saying so.
 * - Anything else (a Confirmation, Refusal, Invoice … sent to us): Refusal, nothing stored.
 */
import { ERROR_CATALOG, type ErrorCode } from '../../domain/errors.ts';
import type { Connector } from '../../domain/store/connectors.ts';
import type { Outcome, OrderOutcome } from '../../domain/types.ts';
import type { ConnectorChannelStore } from '../../domain/store/ports.ts';
import { connectorStatusByRef, type ConnectorStatusView } from '../../intake/connector-status.ts';
import {
  renderPrintTalk, type ConfirmedOrder, type PrintTalkAnswer, type PrintTalkInfo, type PrintTalkReason, type StatusNotification,
} from '../../intake/connectors/index.ts';
import { errorLine, fileErrorItalian, orderErrorsItalian } from '../../render/people-errors.ts';

export interface PrintTalkRequest {
  info?: PrintTalkInfo;
  /** Why the document is not one we read (namespace, Version, not well-formed). */
  problem?: string;
}

export interface PrintTalkDeps {
  store: ConnectorChannelStore;
  connector: Connector;
  /** Store and judge the request's body (the route's intake.submit with this caller). */
  submit: () => Promise<Outcome>;
}

const RFQ_TEXT = 'Le richieste di preventivo (RFQ), comprese le richieste di modifica di un ordine, sono gestite dall\'ufficio '
  + 'commerciale: contattatelo direttamente. Questo canale accetta ordini (PurchaseOrder), annullamenti (Cancellation) e '
  + 'richieste di stato (OrderStatusRequest)';

const PRODUCTION_WORDS = { in_lavorazione: 'in lavorazione', spedito: 'spedito', consegnato: 'consegnato', annullato: 'annullato' } as const;
/** XJDF Milestone/@MilestoneType for each state an order reaches. */
const MILESTONES = {
  registrato: 'Accepted', in_lavorazione: 'JobInProgress', spedito: 'ShippingInProgress', consegnato: 'Delivered', annullato: 'JobCanceled',
} as const;

function refusal(info: PrintTalkInfo | undefined, connector: Connector, reason: PrintTalkReason, errors: string[]): PrintTalkAnswer {
  return renderPrintTalk(info, { object: 'Refusal', reason, errors }, connector.name);
}

function orderName(o: OrderOutcome): string {
  return o.riferimento_ordine ? `Ordine "${o.riferimento_ordine}"` : `Ordine ${o.index + 1}`;
}

/** The Italian sentence for a file-level message, keeping the detail when no translation knows it. */
function fileErrors(code: ErrorCode, messages: readonly string[]): string[] {
  const [fallback] = fileErrorItalian(code, ['\u0000']);
  return messages.map((m) => {
    const [said] = fileErrorItalian(code, [m]);
    return said === undefined || said === fallback ? `${fallback ?? ERROR_CATALOG[code].message}: ${m}` : said;
  });
}

function orderErrors(o: OrderOutcome): string[] {
  const said = orderErrorsItalian(o, { oneOrder: true });
  if (said.length === 0) return [`${orderName(o)}: ${ERROR_CATALOG[o.code ?? 'BUSINESS'].message}`];
  return said.map((e) => `${orderName(o)}${e.where ? `, ${e.where}` : ''}: ${e.text.charAt(0).toLowerCase()}${e.text.slice(1)}`);
}

/**
 * Busy when we cannot take orders now, Milestone when production is past the point of cancelling, WrongProduct when
 * a product is not one we make, InvalidPrice for a price that is not a number, Other otherwise.
 */
function reasonFor(outcome: Outcome): PrintTalkReason {
  const codes = [outcome.fileError?.code, ...outcome.orders.map((o) => o.code)];
  if (codes.some((c) => c === 'UNAVAILABLE' || c === 'TOO_MANY_WAITING' || c === 'INTERNAL')) return 'Busy';
  if (codes.includes('ORDER_LOCKED')) return 'Milestone';
  if (outcome.fileError?.message.some((m) => /Pricing\/Price/.test(m))) return 'InvalidPrice';
  if (outcome.orders.some((o) => (o.errori ?? []).some((e) => /codice_articolo/.test(e.campo)))) return 'WrongProduct';
  return 'Other';
}

function confirmed(o: OrderOutcome): ConfirmedOrder {
  const stato = o.stato ?? o.stato_richiesta;
  return {
    ...(o.riferimento_ordine === undefined ? {} : { riferimento_ordine: o.riferimento_ordine }),
    ...(o.numero_ordine === undefined ? {} : { numero_ordine: o.numero_ordine }),
    ...(o.id_ordine === undefined ? {} : { id_ordine: o.id_ordine }),
    ...(o.duplicate ? { duplicato: true } : {}),
    ...(stato === undefined ? {} : { stato }),
    ...(o.id_richiesta === undefined ? {} : { id_richiesta: o.id_richiesta }),
  };
}

function okText(o: OrderOutcome): string {
  if (o.azione === 'annulla') return `${orderName(o)} (numero ${o.numero_ordine ?? '-'}): ${o.duplicate ? 'era già annullato' : 'annullato'}`;
  const site = o.sito_produzione ? `, sito ${o.sito_produzione}` : '';
  return `${orderName(o)}: ${o.duplicate ? 'già registrato' : 'registrato'} con numero ${o.numero_ordine} (id_ordine ${o.id_ordine}${site})`;
}

/** A cancellation production must decide: not yet a Confirmation nor a Refusal (see answerOutcome). */
const isPending = (o: OrderOutcome): boolean => o.esito === 'ok' && o.id_richiesta !== undefined && o.stato_richiesta === 'in_attesa';

/**
 * A judged PurchaseOrder or Cancellation → Confirmation or Refusal. A cancellation that production must decide (the
 * order is in production) is answered with an OrderStatusResponse saying the request waits: a Confirmation would
 * tell the sender the order is cancelled. Production's decision is the order's `ordine.richiesta_esito` event
 * (feed, webhooks) and is shown by later OrderStatusResponses.
 */
export function answerOutcome(info: PrintTalkInfo, connector: Connector, outcome: Outcome): PrintTalkAnswer {
  if (outcome.fileError) return refusal(info, connector, reasonFor(outcome), fileErrors(outcome.fileError.code, outcome.fileError.message));
  if (outcome.orders.length === 0) return refusal(info, connector, 'Other', [fileErrors('NO_ORDERS', [ERROR_CATALOG.NO_ORDERS.message])[0]!]);
  const pending = outcome.orders.length === 1 ? outcome.orders.find(isPending) : undefined;
  if (pending) {
    const comment = `Richiesta di annullamento ${pending.id_richiesta} dell'ordine "${pending.riferimento_ordine ?? ''}" (numero ${pending.numero_ordine ?? '-'}): `
      + 'l\'ordine è in lavorazione, decide la produzione; la decisione si legge con una OrderStatusRequest';
    return renderPrintTalk(info, {
      object: 'OrderStatusResponse', jobIdRef: info.jobIdRefs[0] ?? pending.numero_ordine ?? pending.riferimento_ordine ?? 'ordine',
      notifications: [{ time: new Date().toISOString(), cls: 'Information', comments: [comment] }],
    }, connector.name);
  }
  const ok = outcome.orders.filter((o) => o.esito === 'ok');
  if (ok.length === outcome.orders.length) {
    return renderPrintTalk(info, { object: 'Confirmation', comment: ok.map(okText).join('; '), orders: ok.map(confirmed) }, connector.name);
  }
  const errors = outcome.orders.flatMap((o) => (o.esito === 'ok' ? [okText(o)] : orderErrors(o)));
  return refusal(info, connector, reasonFor(outcome), errors);
}

function statusNotifications(view: ConnectorStatusView): StatusNotification[] {
  const when = view.registrato_il ?? view.ricevuto_il ?? new Date().toISOString();
  if (view.stato === 'ricevuto') return [{ time: when, cls: 'Information', comments: ['Ordine ricevuto: in verifica'] }];
  if (view.stato === 'rifiutato') {
    const o = { index: 0, esito: 'errore', ...(view.message ? { message: view.message } : {}), ...(view.errori ? { errori: view.errori } : {}) } as OrderOutcome;
    const said = orderErrorsItalian(o).map(errorLine);
    return [{ time: when, cls: 'Error', comments: ['Ordine rifiutato', ...said].slice(0, 50) }];
  }
  const site = view.sito_produzione ? `, sito ${view.sito_produzione}` : '';
  const out: StatusNotification[] = [{
    time: when, cls: 'Event', milestone: MILESTONES.registrato,
    comments: [`Ordine registrato con numero ${view.numero_ordine ?? '-'} (id_ordine ${view.id_ordine ?? '-'}${site})`],
  }];
  for (const step of view.storico_produzione ?? []) {
    out.push({
      time: step.aggiornato_il, cls: 'Event', milestone: MILESTONES[step.stato],
      comments: [`Produzione: ${PRODUCTION_WORDS[step.stato]}${step.nota ? ` (${step.nota})` : ''}`],
    });
  }
  // A change or cancellation production decides: when it was asked, and its decision once there is one.
  for (const r of view.richieste ?? []) {
    const what = `Richiesta di ${r.tipo} ${r.id_richiesta}`;
    out.push({ time: r.ricevuta_il, cls: 'Information', comments: [`${what}: ricevuta, in attesa della decisione della produzione`] });
    if (r.stato_richiesta !== 'in_attesa') {
      out.push({
        time: r.decisa_il ?? r.ricevuta_il, cls: r.stato_richiesta === 'accettata' ? 'Event' : 'Warning',
        comments: [`${what}: ${r.stato_richiesta} dalla produzione${r.nota ? ` (${r.nota})` : ''}`],
      });
    }
  }
  return out.sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
}

async function answerStatus(info: PrintTalkInfo, deps: PrintTalkDeps): Promise<PrintTalkAnswer> {
  const ref = info.businessRefId;
  if (ref === undefined) {
    return refusal(info, deps.connector, 'Other', ['Indicare in Request/@BusinessRefID il BusinessID della PurchaseOrder di cui si chiede lo stato']);
  }
  const refs = [ref, ...info.jobIdRefs.map((j) => `${ref}/${j}`)];
  for (const r of refs) {
    const found = await connectorStatusByRef(deps.store, deps.connector, r, info.customerId);
    if (found.kind === 'ambiguous') {
      return refusal(info, deps.connector, 'Other', [`Più ordini hanno il riferimento "${r}" (clienti ${found.codes.join(', ')}): indicare il cliente con Header/From/Credential domain="CustomerID"`]);
    }
    if (found.kind === 'found') {
      const ticket = found.view.ticket as { job_id?: unknown } | undefined;
      const job = info.jobIdRefs[0] ?? (typeof ticket?.job_id === 'string' ? ticket.job_id : undefined) ?? found.view.numero_ordine ?? r;
      return renderPrintTalk(info, { object: 'OrderStatusResponse', jobIdRef: job, notifications: statusNotifications(found.view) }, deps.connector.name);
    }
  }
  return refusal(info, deps.connector, 'Other', [`Nessun ordine con riferimento "${ref}" tra i clienti di questo connettore`]);
}

export async function answerPrintTalk(req: PrintTalkRequest, deps: PrintTalkDeps): Promise<PrintTalkAnswer> {
  const { info, problem } = req;
  if (problem !== undefined || info === undefined) return refusal(info, deps.connector, 'Other', [problem ?? 'Il documento PrintTalk non può essere letto']);
  switch (info.object) {
    case 'PurchaseOrder':
    case 'Cancellation':
      return answerOutcome(info, deps.connector, await deps.submit());
    case 'OrderStatusRequest':
      return answerStatus(info, deps);
    case 'RFQ':
      return refusal(info, deps.connector, 'Other', [RFQ_TEXT]);
    case undefined:
      return refusal(info, deps.connector, 'Other', ['Il documento PrintTalk non contiene una Request con un oggetto di business']);
    default:
      return refusal(info, deps.connector, 'Other', [`${info.object} non è gestito da questo servizio: inviare PurchaseOrder, Cancellation o OrderStatusRequest`]);
  }
}
