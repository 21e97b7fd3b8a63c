/**
 * E-mail notifications of production status changes and of production's decisions on customers' change and
 * cancellation requests: the hand-off subscribers of kind `mail` (MAIL_SUBSCRIBER_ID for `ordine.stato_aggiornato`,
 * REQUEST_SUBSCRIBER_ID for `ordine.richiesta_esito`) receive those events like a webhook does — fanned out, claimed by one
 * instance at a time, retried, made again after a kill -9 — and its delivery decides whether and where to write, then
 * queues the e-mail in the reply outbox, which the mail channel's sender hands to INTAKE_SMTP_RELAY (one queue, one
 * sender, one relay, `order-intake replies list` for the operator). The delivery's id is the notification's id, so a
 * delivery made twice queues one e-mail.
 *
 * Who is written to (docs/operators/notifications.md): nobody unless the operator turned notifications on for the
 * customer; an order that came by e-mail, the address its acknowledgement went to (none when the order e-mail was
 * from a robot, a list or a bounce, which got no acknowledgement either); otherwise, and then, the customer's
 * notification address if the operator set one.
 */
import { composeRequestMail, composeStatusMail } from '../render/status-mail.ts';
import type { OrderEvent } from '../domain/order-events.ts';
import type { NotificationTarget } from '../domain/store/notifications.ts';
import type { HandoffPort } from '../domain/store/ports.ts';
import type { ProductionState, ProductionStep, RequestKind } from '../domain/types.ts';
import type { RequestEntry } from '../domain/order-view.ts';

/** The one subscriber of kind mail. A fixed id: turning notifications on twice, or on two instances, adds it once. */
export const MAIL_SUBSCRIBER_ID = 'notifiche-email';
/**
 * The subscriber of production's decisions on requests. A row of its own rather than one more event of the first:
 * a subscriber's events are fixed when it is added, and stores already hold the first row; each row starts at the
 * events committed after it was added, so neither repeats the other's.
 */
export const REQUEST_SUBSCRIBER_ID = 'notifiche-email-richieste';

const MAIL_SUBSCRIBERS = [
  { id: MAIL_SUBSCRIBER_ID, events: ['ordine.stato_aggiornato'] },
  { id: REQUEST_SUBSCRIBER_ID, events: ['ordine.richiesta_esito'] },
] as const;

export interface NotifyOptions {
  mailDomain: string;
  timeZone: string;
  /** A notification was queued: the reply sender may send it now rather than at its next round. */
  onQueued?: () => void;
}

export type NotifyOutcome =
  | { kind: 'queued'; recipient: string; replyId: string }
  | { kind: 'skipped'; reason: string }
  /** The order e-mail is still being processed: its sender is not known yet. */
  | { kind: 'later'; reason: string };

/** Add the notification subscribers that are not there (idempotent; a race between two callers adds each once). */
export async function ensureMailSubscriber(store: Pick<HandoffPort, 'getSubscriber' | 'addSubscriber'>): Promise<void> {
  for (const { id, events } of MAIL_SUBSCRIBERS) {
    if (await store.getSubscriber(id)) continue;
    try {
      await store.addSubscriber({ id, kind: 'mail', events });
    } catch (err) {
      if (!(await store.getSubscriber(id))) throw err;
    }
  }
}

/** Where the notification goes, or why there is none. */
export function recipientOf(t: NotificationTarget): { to: string } | { skip: string } | { later: string } {
  if (!t.settings.enabled) return { skip: 'notifications are off for this customer' };
  if (t.mail && !t.mail.done) return { later: 'the order e-mail is still being processed' };
  const to = t.mail?.repliedTo ?? t.settings.address;
  if (to) return { to };
  if (t.mail) return { skip: `the order e-mail got no acknowledgement (${t.mail.noReply ?? 'no sender address'}) and no notification address is set` };
  return { skip: `the order came by ${t.channel}, not by e-mail, and no notification address is set` };
}

export async function deliverNotification(store: HandoffPort, opts: NotifyOptions, deliveryId: string, body: string): Promise<NotifyOutcome> {
  const event = JSON.parse(body) as OrderEvent;
  const data = event.data;
  const orderId = typeof data.id_ordine === 'string' ? data.id_ordine : undefined;
  const stato = data.stato_produzione as ProductionState | undefined;
  const request = event.type === 'ordine.richiesta_esito' ? data.richiesta as RequestEntry | undefined : undefined;
  const decided = request?.stato_richiesta === 'accettata' || request?.stato_richiesta === 'rifiutata';
  if (!orderId || !(decided || (event.type === 'ordine.stato_aggiornato' && stato))) {
    return { kind: 'skipped', reason: 'not a production status event nor the outcome of a request' };
  }
  const target = await store.notificationTarget(orderId);
  if (!target) return { kind: 'skipped', reason: 'the order no longer exists' };
  const where = recipientOf(target);
  if ('skip' in where) return { kind: 'skipped', reason: where.skip };
  if ('later' in where) return { kind: 'later', reason: where.later };
  const thread = target.mail?.messageId ? { inReplyTo: target.mail.messageId } : {};
  const ref = typeof data.riferimento_ordine === 'string' ? { riferimentoOrdine: data.riferimento_ordine } : {};
  if (request && decided) {
    const mail = await composeRequestMail({
      id: deliveryId, to: where.to, mailbox: target.mailbox, mailDomain: opts.mailDomain, timeZone: opts.timeZone,
      numeroOrdine: String(data.numero_ordine ?? orderId), ...ref,
      tipo: request.tipo as RequestKind, esito: request.stato_richiesta as 'accettata' | 'rifiutata',
      ...(typeof data.versione === 'number' ? { versione: data.versione } : {}),
      ...(request.nota ? { nota: request.nota } : {}), at: request.decisa_il ?? event.time, ...thread, now: new Date(),
    });
    await store.queueNotification({ id: deliveryId, customerId: target.customerId, orderId, recipient: where.to, subject: mail.subject, raw: mail.raw });
    opts.onQueued?.();
    return { kind: 'queued', recipient: where.to, replyId: deliveryId };
  }
  // The step this event reports: the last of the history the event carries.
  const history = Array.isArray(data.storico_produzione) ? data.storico_produzione as ProductionStep[] : [];
  const step = history[history.length - 1];
  const mail = await composeStatusMail({
    id: deliveryId, to: where.to, mailbox: target.mailbox, mailDomain: opts.mailDomain, timeZone: opts.timeZone,
    numeroOrdine: String(data.numero_ordine ?? orderId), ...ref,
    stato: stato!, ...(step?.nota ? { nota: step.nota } : {}), at: step?.aggiornato_il ?? event.time,
    ...thread, now: new Date(),
  });
  await store.queueNotification({ id: deliveryId, customerId: target.customerId, orderId, recipient: where.to, subject: mail.subject, raw: mail.raw });
  opts.onQueued?.();
  return { kind: 'queued', recipient: where.to, replyId: deliveryId };
}
