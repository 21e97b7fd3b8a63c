/**
 * A connector's callback (`order-intake connector set <id> --callback-url`): a webhook subscriber bound to the
 * connector (Subscriber.connectorId) for `ordine.richiesta_esito`. Its deliveries are fanned out, claimed, retried
 * and signed like any webhook's; what differs is the body: production's decision on a PrintTalk `Cancellation` this
 * connector sent becomes the PrintTalk answer the sender could not get synchronously (the order was in production):
 * a `Confirmation` when production accepted the cancellation, a `Refusal` with production's note when it refused.
 *
 * The Cancellation is read again from its stored submission (the request row names it): its BusinessID becomes the
 * answer's `Request/@BusinessRefID` and its Header, From and To swapped, the answer's Header — the synchronous
 * answers' builder (renderPrintTalk) writes it. Every other decision (a change request, an order of another
 * connector or channel, a cancellation that was not PrintTalk) is nothing to send: the delivery is done without a
 * request. The document is rendered at each attempt (a fresh payloadID and BusinessID); the `webhook-id` header, the
 * event id, stays the same, so a receiver sees a repeat for what it is.
 */
import type { OrderEvent } from '../domain/order-events.ts';
import type { RequestEntry } from '../domain/order-view.ts';
import type { HandoffPort } from '../domain/store/ports.ts';
import type { Subscriber } from '../domain/store/handoff.ts';
import { readPrintTalkRequest } from '../intake/connectors/index.ts';
import { renderPrintTalk, type PrintTalkAnswer } from '../intake/connectors/printtalk-answer.ts';

/** Events a connector's callback receives. */
export const CALLBACK_EVENTS = ['ordine.richiesta_esito'] as const;

export type CallbackDocument = { kind: 'send'; answer: PrintTalkAnswer } | { kind: 'skip'; reason: string };

export async function callbackDocument(store: HandoffPort, s: Subscriber, body: string): Promise<CallbackDocument> {
  const connectorId = s.connectorId;
  if (connectorId === undefined) return { kind: 'skip', reason: 'not a connector callback' };
  const event = JSON.parse(body) as OrderEvent;
  const data = event.data;
  const request = event.type === 'ordine.richiesta_esito' ? data.richiesta as RequestEntry | undefined : undefined;
  const orderId = typeof data.id_ordine === 'string' ? data.id_ordine : undefined;
  if (!request || !orderId || request.tipo !== 'annullamento' || (request.stato_richiesta !== 'accettata' && request.stato_richiesta !== 'rifiutata')) {
    return { kind: 'skip', reason: 'not a decided cancellation request' };
  }
  const stored = (await store.orderRequests(orderId)).find((r) => r.id_richiesta === request.id_richiesta);
  if (!stored) return { kind: 'skip', reason: 'the request no longer exists' };
  const submission = await store.getSubmission(stored.submissionId);
  if (!submission || submission.connectorId !== connectorId) return { kind: 'skip', reason: "the cancellation did not come through this callback's connector" };
  const read = readPrintTalkRequest(submission.raw, submission.mediaType && submission.charset ? `${submission.mediaType}; charset=${submission.charset}` : submission.mediaType);
  if (!read?.info || read.info.object !== 'Cancellation') return { kind: 'skip', reason: 'the cancellation was not a PrintTalk Cancellation' };
  const connector = await store.getConnector(connectorId);
  const peer = connector?.name ?? 'connector';
  const order = `"${String(data.riferimento_ordine ?? '')}" (numero ${String(data.numero_ordine ?? orderId)})`;
  const nota = request.nota ? `: ${request.nota}` : '';
  if (request.stato_richiesta === 'accettata') {
    return {
      kind: 'send',
      answer: renderPrintTalk(read.info, {
        object: 'Confirmation',
        comment: `Richiesta di annullamento ${request.id_richiesta} dell'ordine ${order} accettata dalla produzione: ordine annullato${nota}`,
        orders: [{
          ...(typeof data.riferimento_ordine === 'string' ? { riferimento_ordine: data.riferimento_ordine } : {}),
          ...(typeof data.numero_ordine === 'string' ? { numero_ordine: data.numero_ordine } : {}),
          id_ordine: orderId, stato: 'annullato', id_richiesta: request.id_richiesta,
        }],
      }, peer),
    };
  }
  // None of PrintTalk 2.x's other reasons (Busy, InvalidPrice, Milestone, WrongProduct) says "already in production".
  return {
    kind: 'send',
    answer: renderPrintTalk(read.info, {
      object: 'Refusal', reason: 'Other',
      errors: [`Richiesta di annullamento ${request.id_richiesta} dell'ordine ${order} rifiutata dalla produzione${nota}`],
    }, peer),
  };
}
