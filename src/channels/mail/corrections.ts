/**
 * The notice of a correction: when the order desk registers an order of a refused e-mail ("Correggi e
 * registra" in the console, a submission of channel console whose meta `corregge` names the refused one), the
 * customer gets a new e-mail, to the address the refusal went to, with the order's number and its registered lines.
 *
 * The notice is queued in the reply outbox (sent like every other outgoing e-mail) under an id made from the
 * correction's, so queueing it twice queues one. It is queued as soon as this instance has recorded the correction
 * (Intake.onProcessed); the correction is durable before that, so a process that dies in between loses no notice: the
 * corrections of the last days are looked over at start and whenever an instance is found gone (catchUp).
 *
 * A correction answered as a duplicate (the reference was registered already) sends nothing: the customer was told
 * when it was registered.
 */
import type { Logger } from '../../log.ts';
import type { MailChannelStore } from '../../domain/store/ports.ts';
import type { StoredSubmission } from '../../domain/types.ts';
import { composeCorrectionMail } from '../../render/correction-mail.ts';
import { gatherRecap, RECAP_LIMITS } from '../../render/recap.ts';

const MAIL_CHANNELS = new Set(['email', 'imap']);

/** How far back the catch-up looks: a notice days late is worse than none next to the operator's own call. */
const CATCH_UP_MS = 3 * 24 * 60 * 60_000;
/** Newest submissions per customer looked over by the catch-up (the FTP/SFTP window's query, its index). */
const CATCH_UP_PER_CUSTOMER = 200;

export interface CorrectionNoticeDeps {
  store: MailChannelStore;
  log: Logger;
  mailDomain: string;
  timeZone: string;
  onQueued: () => void;
}

export function noticeId(correctionId: string): string {
  return `correzione-${correctionId}`;
}

export interface CorrectionNotices {
  /** The correction `s` was recorded: queue its notice if it is due one. */
  processed(s: StoredSubmission): Promise<void>;
  /** Queue the notices of recent corrections that have none (after a crash); resolves with how many were queued. */
  catchUp(): Promise<number>;
}

export function correctionNotices(deps: CorrectionNoticeDeps): CorrectionNotices {
  const { store, log } = deps;

  async function notice(s: StoredSubmission): Promise<boolean> {
    const registered = s.outcome?.orders.find((o) => o?.esito === 'ok');
    if (s.channel !== 'console' || !s.meta.corregge || !registered?.id_ordine || !registered.numero_ordine || registered.duplicate) return false;
    const original = await store.getSubmission(s.meta.corregge);
    if (!original || original.customerId !== s.customerId || !MAIL_CHANNELS.has(original.channel) || !original.meta.mail_id) return false;
    const message = await store.getMailMessage(original.meta.mail_id);
    // No acknowledgement went out (a robot, a list, a bounce): no notice either.
    const first = message?.result?.replyId ? await store.getReply(message.result.replyId) : undefined;
    const customer = await store.getCustomer(s.customerId);
    if (!message || !first || !customer) return false;
    const id = noticeId(s.id);
    const recap = await gatherRecap(store, s.customerId, [registered], RECAP_LIMITS.mail);
    const mail = await composeCorrectionMail({
      id, to: first.recipient, mailbox: customer.mailbox, mailDomain: deps.mailDomain, timeZone: deps.timeZone,
      numeroOrdine: registered.numero_ordine, idOrdine: registered.id_ordine,
      ...(registered.riferimento_ordine ? { riferimentoOrdine: registered.riferimento_ordine } : {}),
      ...(original.fileName ? { fileName: original.fileName } : {}),
      receivedAt: message.receivedAt, recap, ...(message.messageId ? { inReplyTo: message.messageId } : {}), now: new Date(),
    });
    const queued = await store.queueNotification({
      id, customerId: s.customerId, orderId: registered.id_ordine, recipient: first.recipient, subject: mail.subject, raw: mail.raw,
    });
    if (queued) {
      log.info({ submission: s.id, corrects: original.id, order: registered.numero_ordine, to: first.recipient, reply: id }, 'correction notice queued');
      deps.onQueued();
    }
    return queued;
  }

  return {
    async processed(s) {
      if (s.channel !== 'console' || !s.meta.corregge) return;
      // The listener may be told of a submission without its outcome (a large file): a correction is one order.
      const full = s.outcome ? s : await store.getSubmission(s.id);
      if (full) await notice(full);
    },
    async catchUp() {
      const since = new Date(Date.now() - CATCH_UP_MS).toISOString();
      let queued = 0;
      for (const c of await store.listCustomers()) {
        const recent = await store.listSubmissions({ customerId: c.id, channels: ['console', 'ftp', 'sftp'], limit: CATCH_UP_PER_CUSTOMER });
        for (const r of recent) {
          if (r.channel !== 'console' || !r.meta.corregge || r.esito !== 'ok' || r.receivedAt < since) continue;
          if (await store.getReply(noticeId(r.id))) continue;
          const s = await store.getSubmission(r.id);
          if (s && await notice(s)) queued++;
        }
      }
      return queued;
    },
  };
}
