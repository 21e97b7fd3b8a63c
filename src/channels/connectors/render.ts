/**
 * Outcome → answer on the connector path.
 *
 * - JMF/XJMF callers (prepress systems that think they talk to a device) always get HTTP 200 with a JMF/XJMF
 *   Response: ReturnCode says the outcome, QueueEntryID is the id_ordine, the notification text says why a
 *   submission was refused.
 * - Everyone else gets the REST shapes (src/http/render.ts), plus `sito_produzione`:
 *   one order → exactly what POST /api/v1/ordini answers (201, 200 duplicate, 400 shape A/B, 403, 409 …);
 *   several orders (an ERP export) → 200 with one entry per order, each with the status it would have had alone,
 *   and `esito` ok only when every order is ok. A file that cannot be read at all → its error status, as REST.
 */
import { ERROR_CATALOG, type ErrorCode } from '../../domain/errors.ts';
import { JMF_RETURN_CODES, renderJmfResponse, type JmfRequestInfo } from '../../intake/connectors/index.ts';
import type { Outcome, OrderOutcome } from '../../domain/types.ts';
import { errorBody } from '../../http/errors.ts';
import { MESSAGES, renderOutcome, type HttpAnswer } from '../../http/render.ts';

export interface JmfAnswer {
  contentType: string;
  body: string;
}

/** The JMF ReturnCode for a refusal: the XML parser error only when the request itself could not be read. */
function returnCodeFor(code: ErrorCode | undefined, req: JmfRequestInfo | undefined): number {
  if (!req) return JMF_RETURN_CODES.xmlParserError;
  if (code === 'INTERNAL' || code === 'UNAVAILABLE') return JMF_RETURN_CODES.general;
  return JMF_RETURN_CODES.invalidParameters;
}

function orderText(o: OrderOutcome): string[] {
  const ref = o.riferimento_ordine ? `ordine "${o.riferimento_ordine}"` : `ordine ${o.index + 1}`;
  if (o.esito === 'ok') {
    return [`${ref}: ${o.duplicate ? 'già registrato' : 'registrato'} con numero ${o.numero_ordine}${o.sito_produzione ? ` (sito ${o.sito_produzione})` : ''}`];
  }
  const details = [...(o.message ?? []), ...(o.errori ?? []).map((e) => `${e.campo}: ${e.messaggio}`)];
  return details.length ? details.map((d) => `${ref}: ${d}`) : [`${ref}: ${ERROR_CATALOG[o.code ?? 'BUSINESS'].message}`];
}

export function renderJmfOutcome(req: JmfRequestInfo | undefined, outcome: Outcome, kind?: 'jmf' | 'xjmf'): JmfAnswer {
  if (outcome.fileError) {
    return renderJmfResponse(req, { ok: false, returnCode: returnCodeFor(outcome.fileError.code, req), text: outcome.fileError.message }, kind);
  }
  const first = outcome.orders[0];
  if (outcome.esito === 'ok' && first?.id_ordine) {
    return renderJmfResponse(req, { ok: true, queueEntryId: first.id_ordine, text: outcome.orders.flatMap(orderText).join('; ') }, kind);
  }
  const refused = outcome.orders.filter((o) => o.esito !== 'ok');
  const text = outcome.orders.length === 0 ? [ERROR_CATALOG.NO_ORDERS.message] : outcome.orders.flatMap(orderText);
  return renderJmfResponse(req, { ok: false, returnCode: returnCodeFor(refused[0]?.code, req), text }, kind);
}

function withSite(body: unknown, site: string | undefined): unknown {
  if (!site || typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  return { ...(body as Record<string, unknown>), sito_produzione: site };
}

/** One entry of a several-order answer: the status this order would have had alone, and its own fields. */
function entry(o: OrderOutcome): Record<string, unknown> {
  const single = renderOutcome({ submissionId: '', esito: o.esito, orders: [o] });
  const base: Record<string, unknown> = { indice: o.index, riferimento_ordine: o.riferimento_ordine, statusCode: single.status };
  if (o.esito === 'ok') {
    return { ...base, esito: 'ok', id_ordine: o.id_ordine, numero_ordine: o.numero_ordine, messaggio: o.duplicate ? MESSAGES.duplicate : MESSAGES.accepted, ...(o.duplicate ? { duplicato: true } : {}) };
  }
  return { ...base, esito: 'errore', ...(o.message ? { message: o.message } : {}), ...(o.errori ? { errori: o.errori } : {}) };
}

export function renderConnectorOutcome(outcome: Outcome, site: string | undefined): HttpAnswer {
  const shownSite = site ?? outcome.orders.find((o) => o.sito_produzione)?.sito_produzione;
  if (outcome.fileError || outcome.orders.length === 1) {
    const a = renderOutcome(outcome);
    return { status: a.status, body: withSite(a.body, shownSite) };
  }
  if (outcome.orders.length === 0) {
    return { status: 400, body: errorBody('NO_ORDERS', [ERROR_CATALOG.NO_ORDERS.message]) };
  }
  return {
    status: 200,
    body: { esito: outcome.esito, ...(shownSite ? { sito_produzione: shownSite } : {}), ordini: outcome.orders.map(entry) },
  };
}
