/**
 * E-mail notifications of production status changes (issue 17): the hand-off subscriber of kind `mail` (one row,
 * MAIL_SUBSCRIBER_ID) receives every `ordine.stato_aggiornato` event like a webhook does — fanned out, claimed by one
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
import { composeStatusMail } from '../render/status-mail.ts';
import type { OrderEvent } from '../domain/order-events.ts';
import type { NotificationTarget } from '../domain/store/notifications.ts';
import type { HandoffPort } from '../domain/store/ports.ts';
import type { ProductionState, ProductionStep } from '../domain/types.ts';

/** The one subscriber of kind mail. A fixed id: turning notifications on twice, or on two instances, adds it once. */
export const MAIL_SUBSCRIBER_ID = 'notifiche-email';

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

/** Add the notification subscriber if it is not there (idempotent; a race between two callers adds it once). */
export async function ensureMailSubscriber(store: Pick<HandoffPort, 'getSubscriber' | 'addSubscriber'>): Promise<void> {
  if (await store.getSubscriber(MAIL_SUBSCRIBER_ID)) return;
  try {
    await store.addSubscriber({ id: MAIL_SUBSCRIBER_ID, kind: 'mail', events: ['ordine.stato_aggiornato'] });
  } catch (err) {
    if (!(await store.getSubscriber(MAIL_SUBSCRIBER_ID))) throw err;
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
  if (event.type !== 'ordine.stato_aggiornato' || !orderId || !stato) return { kind: 'skipped', reason: 'not a production status event' };
  const target = await store.notificationTarget(orderId);
  if (!target) return { kind: 'skipped', reason: 'the order no longer exists' };
  const where = recipientOf(target);
  if ('skip' in where) return { kind: 'skipped', reason: where.skip };
  if ('later' in where) return { kind: 'later', reason: where.later };
  // The step this event reports: the last of the history the event carries.
  const history = Array.isArray(data.storico_produzione) ? data.storico_produzione as ProductionStep[] : [];
  const step = history[history.length - 1];
  const mail = await composeStatusMail({
    id: deliveryId, to: where.to, mailbox: target.mailbox, mailDomain: opts.mailDomain, timeZone: opts.timeZone,
    numeroOrdine: String(data.numero_ordine ?? orderId),
    ...(typeof data.riferimento_ordine === 'string' ? { riferimentoOrdine: data.riferimento_ordine } : {}),
    stato, ...(step?.nota ? { nota: step.nota } : {}), at: step?.aggiornato_il ?? event.time,
    ...(target.mail?.messageId ? { inReplyTo: target.mail.messageId } : {}),
    now: new Date(),
  });
  await store.queueNotification({ id: deliveryId, customerId: target.customerId, orderId, recipient: where.to, subject: mail.subject, raw: mail.raw });
  opts.onQueued?.();
  return { kind: 'queued', recipient: where.to, replyId: deliveryId };
}
