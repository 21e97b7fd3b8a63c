/**
 * From a stored message to its reply: read it (parse.ts), turn each order file into a submission judged by the core,
 * and when every one has its outcome, finish the message and queue the reply in one store transaction.
 *
 * Every step can be repeated after a crash without doing anything twice:
 * - parsing is deterministic, so part N is always the same file;
 * - a part's submission is recorded in mail_parts right after it is received; a submission received just before a
 *   crash, and not yet recorded, is found again by its meta (mail_id, mail_part) and adopted instead of received
 *   twice;
 * - judging a processed submission gives back its recorded outcome (the core's rule);
 * - finishing is conditional on the message not being finished, and queues the reply in the same transaction.
 * Messages not finished (crash, an internal error, an instance that died) are swept up regularly, each under a claim
 * so that two instances never derive the same message at once.
 */
import { responseToOutcome, type OrderResponseFile } from '../../intake/order-response.ts';
import type { PeppolId } from '../../domain/store/store.ts';
import { uuidv7 } from '../../domain/uuid7.ts';
import { withoutLoneSurrogates } from '../../domain/text.ts';
import type { Intake } from '../../intake/intake.ts';
import { createRenewal } from '../../intake/renewal.ts';
import type { Channel } from '../../domain/types.ts';
import type { Logger } from '../../log.ts';
import type { MailMessage, MailResult, NewMailReply } from '../../domain/store/mail.ts';
import { composeHeldNotice } from '../../render/held-mail.ts';
import type { MailChannelStore } from '../../domain/store/ports.ts';
import { MAIL_LIMITS } from './limits.ts';
import { parseMessage, type ParsedMessage } from './parse.ts';
import { composeReply, type JudgedPart } from './reply.ts';
import { gatherRecap, RECAP_LIMITS, type Recap } from '../../render/recap.ts';
import { UNREADABLE_REASONS, unreadableMessage } from './unreadable.ts';
import { judgeSender, type Authenticator } from './trust.ts';
import type { MailAuth } from '../../domain/store/mail-trust.ts';
import type { Metrics } from '../../metrics/metrics.ts';

export interface PipelineDeps {
  store: MailChannelStore;
  intake: Intake;
  log: Logger;
  mailDomain: string;
  timeZone: string;
  maxFileBytes: number;
  /** Called when a reply was queued (the sender sends it at once). */
  onReplyQueued: () => void;
  /** How long a claim on a message lasts unless renewed (INTAKE_CLAIM_LEASE_MS); renewed every third of it. */
  claimMs: number;
  /** This instance's name on its claims. */
  holder: string;
  /**
   * Checks the sender (SPF, DKIM, DMARC) before anything is registered; the customer's policy then decides whether
   * the message may order. Absent: senders are not checked (tests of other parts only; the service always has one).
   */
  authenticator?: Authenticator;
  /** Held messages counted by reason (GET /metrics). */
  metrics?: Pick<Metrics, 'mailHeld'>;
  /** Our Peppol identifier (INTAKE_PEPPOL_ID): the seller of the Order Responses attached to replies. */
  peppolId?: PeppolId;
}

export interface Pipeline {
  /** Derive a message this instance holds (just stored by it) in the background. */
  start(mailId: string): void;
  /** Claim and derive every message left unfinished; resolves with how many were finished. */
  sweep(): Promise<number>;
  /** Resolves when no message is being derived (graceful stop, tests). */
  idle(): Promise<void>;
  /**
   * Graceful stop: no new message is started, those waiting are handed back at once (their claims released, for
   * another instance to take at its next sweep), and it resolves when those under way are finished.
   */
  stop(): Promise<void>;
}

const EMPTY = Buffer.alloc(0);

/** The parser refused the message: the same bytes will be refused again, so it is given up at once. */
class ParseRefused extends Error {}

/** How far back the adoption of an unrecorded part looks before the message's arrival: instances' clocks differ. */
const CLOCK_SKEW_MS = 60 * 60_000;

/**
 * Meta values are labels for the operator: one line, bounded. Cut at a character, never between the two halves of
 * a surrogate pair (an emoji): PostgreSQL refuses JSON holding half of one, and meta is JSON, so the message's
 * files could not be stored at all.
 */
function label(v: string | undefined, max = 200): string | undefined {
  // eslint-disable-next-line no-control-regex
  return v === undefined ? undefined : withoutLoneSurrogates(v.replace(/[\x00-\x1f\x7f]+/g, ' ').slice(0, max));
}

export function createPipeline(deps: PipelineDeps): Pipeline {
  const { store, intake, log } = deps;
  const running = new Map<string, Promise<void>>();
  const queue: string[] = [];
  /** Messages this instance holds a claim on (waiting or being derived): renewed until finished or given back. */
  const held = new Set<string>();
  let stopped = false;

  async function renew(): Promise<void> {
    const ids = [...held];
    if (ids.length === 0) return;
    const kept = new Set(await store.renewMailClaims(deps.holder, ids, deps.claimMs));
    for (const id of ids) {
      if (kept.has(id) || !held.has(id)) continue;
      // Finished (by this instance or, after a stall past the lease, by another): nothing more to hold.
      held.delete(id);
      const waiting = queue.indexOf(id);
      if (waiting >= 0) queue.splice(waiting, 1);
    }
  }

  /** Renewed while something is held, like a submission's claim (src/intake/claims.ts), one round at a time. */
  const renewal = createRenewal(Math.floor(deps.claimMs / 3), renew, log, 'could not renew mail claims; retrying');
  const track = (): void => renewal.track(held.size > 0);

  /** The message's authentication results: those kept with it, or computed now and kept (a temporary one again). */
  async function authOf(m: MailMessage): Promise<MailAuth | undefined> {
    if (!deps.authenticator) return undefined;
    if (m.auth && !m.auth.temporary) return m.auth;
    const trustedAuthservId = m.source === 'imap' ? (await store.getImapAccount(m.customerId))?.authservId : undefined;
    const auth = await deps.authenticator.authenticate(m.source === 'smtp'
      ? { raw: m.raw, ip: m.remote, helo: m.helo, sender: m.envelopeFrom }
      : { raw: m.raw, trustedAuthservId });
    await store.setMailAuth(m.id, auth);
    return auth;
  }

  /**
   * The customer's notice that a message in its name was held, to its registered address: the address for
   * notifications when set, else the first address of its allow-list. Never to the held message's sender unless that
   * is the registered address itself.
   */
  async function heldNotice(m: MailMessage, sender: string | undefined, reason: string): Promise<NewMailReply | undefined> {
    const customer = await store.getCustomer(m.customerId);
    const policy = await store.getMailPolicy(m.customerId);
    const to = (await store.getNotifySettings(m.customerId)).address ?? policy.allow.find((a) => !a.startsWith('@'));
    if (!customer || !to) return undefined;
    const id = uuidv7();
    const notice = await composeHeldNotice({ id, to, mailbox: customer.mailbox, mailDomain: deps.mailDomain, now: new Date() },
      { sender, reason, receivedAt: m.receivedAt, timeZone: deps.timeZone });
    return { id, mailId: m.id, customerId: m.customerId, recipient: to, subject: notice.subject, raw: notice.raw };
  }

  /**
   * The sender policy's verdict: undefined when the message may order (with the address replies may go to), or the
   * message is held now (finished without a reply, nothing registered) and derive stops.
   */
  async function screen(m: MailMessage, replyTo: string | undefined): Promise<{ held: true } | { held: false; replyTo?: string }> {
    const auth = await authOf(m);
    if (!auth) return { held: false };
    const policy = await store.getMailPolicy(m.customerId);
    const verdict = judgeSender(policy, auth, replyTo);
    // Released by an operator: judged as if it had passed (the reply still goes only where the policy allows).
    const released = (await store.getMailHold(m.id))?.state === 'released';
    if (verdict.ok) return { held: false, replyTo: verdict.replyTo };
    if (released) return { held: false, replyTo: policy.mode === 'qualsiasi' ? undefined : auth.from };
    const result: MailResult = { esito: 'nessun_ordine', submissions: [], held: verdict.reason, noReply: `held: ${verdict.detail}` };
    const sender = auth.from ?? m.envelopeFrom;
    // A DNS failure is not news for the customer: the message is checked again on its own.
    const notice = policy.notifyHeld && verdict.reason !== 'dns' ? await heldNotice(m, sender, verdict.reason) : undefined;
    if (await store.holdMail({ mailId: m.id, customerId: m.customerId, reason: verdict.reason, sender, detail: verdict.detail }, result, notice)) {
      if (notice) deps.onReplyQueued();
      deps.metrics?.mailHeld(verdict.reason);
      // Finished: this instance's claim on it goes too, so a release is derived at the next sweep, not after the lease.
      await store.releaseMailClaims(deps.holder, [m.id]);
      log.warn({ mail: m.id, customer: m.customerId, reason: verdict.reason, detail: verdict.detail, from: auth.from }, 'mail message held: not registered, no reply');
    }
    return { held: true };
  }

  async function derive(m: MailMessage): Promise<MailResult | undefined> {
    const customer = await store.getCustomer(m.customerId);
    if (!customer) throw new Error(`mail ${m.id}: customer ${m.customerId} not found`);
    let parsed: ParsedMessage;
    try {
      parsed = await parseMessage(m.raw, { envelopeFrom: m.envelopeFrom, maxFileBytes: deps.maxFileBytes, ownDomain: deps.mailDomain });
    } catch (err) {
      // An unreadable message is answered only if its sender may order: a forged one is held instead.
      if ((await screen(m, undefined)).held) return undefined;
      throw new ParseRefused(err instanceof Error ? err.message : String(err));
    }
    const screened = await screen(m, parsed.replyTo);
    if (screened.held) return undefined;
    if (screened.replyTo && screened.replyTo !== parsed.replyTo) parsed = { ...parsed, replyTo: screened.replyTo };
    const recorded = new Map((await store.mailParts(m.id)).map((p) => [p.idx, p.submissionId]));
    if (recorded.size < parsed.parts.length) {
      const since = new Date(Date.parse(m.receivedAt) - CLOCK_SKEW_MS).toISOString();
      for (const found of await store.findMailSubmissions(m.customerId, m.id, since)) {
        if (!recorded.has(found.idx) && found.idx < parsed.parts.length) {
          recorded.set(found.idx, await store.addMailPart(m.id, found.idx, found.submissionId));
          log.info({ mail: m.id, part: found.idx, submission: found.submissionId }, 'adopted a part stored before a crash');
        }
      }
    }
    const channel: Channel = m.source === 'imap' ? 'imap' : 'email';
    const judged: JudgedPart[] = [];
    for (const part of parsed.parts) {
      let submissionId = recorded.get(part.idx);
      if (submissionId === undefined) {
        const meta: Record<string, string> = { mail_id: m.id, mail_part: String(part.idx) };
        const facts = { message_id: label(parsed.messageId), from: label(parsed.from), subject: label(parsed.subject), zip: label(part.zip), remote: label(m.remote) };
        for (const [k, v] of Object.entries(facts)) if (v) meta[k] = v;
        const s = await intake.receive({
          principal: { customerId: customer.id, customerCode: customer.code }, channel, fileName: part.fileName,
          mediaType: part.mediaType, charset: part.charset, raw: part.raw, meta, singleOrder: false,
        });
        submissionId = await store.addMailPart(m.id, part.idx, s.id);
      }
      const outcome = await intake.process(submissionId);
      const s = await store.getSubmission(submissionId);
      judged.push({ part, submissionId, receivedAt: s?.receivedAt ?? m.receivedAt, processedAt: s?.processedAt, outcome });
    }

    const submissions = judged.map((j) => j.submissionId);
    const esito = judged.length === 0 ? 'nessun_ordine' : judged.every((j) => j.outcome.esito === 'ok') && parsed.problems.length === 0 ? 'ok' : 'errore';
    if (parsed.noReply) {
      const result: MailResult = { esito, submissions, noReply: parsed.noReply };
      return (await store.finishMail(m.id, result)) ? result : undefined;
    }
    const replyId = uuidv7();
    const reply = await composeReply({
      id: replyId, message: parsed, receivedAt: m.receivedAt, judged, mailbox: customer.mailbox, mailDomain: deps.mailDomain,
      timeZone: deps.timeZone, now: new Date(), recap: await recapOf(customer.id, judged), orderResponses: await orderResponsesOf(judged),
    });
    const result: MailResult = { esito: reply.esito, submissions, replyId };
    const done = await store.finishMail(m.id, result, {
      id: replyId, mailId: m.id, customerId: m.customerId, recipient: reply.recipient, subject: reply.subject, raw: reply.raw,
    });
    if (done) deps.onReplyQueued();
    return done ? result : undefined;
  }

  /** A Peppol Order Response for each file that is a UBL ordering document, attached to the reply. */
  async function orderResponsesOf(judged: readonly JudgedPart[]): Promise<OrderResponseFile[]> {
    const out: OrderResponseFile[] = [];
    for (const j of judged) {
      const s = await store.getSubmission(j.submissionId);
      const r = s && responseToOutcome(s, j.outcome.orders[0], j.outcome.fileError?.message, { timeZone: deps.timeZone, ...(deps.peppolId ? { seller: deps.peppolId } : {}) }, new Date());
      if (r) out.push(r);
    }
    return out;
  }

  /** The registered lines of the accepted orders of every file of the message, within the reply's limits. */
  function recapOf(customerId: string, judged: readonly JudgedPart[]): Promise<Recap> {
    function* orders() {
      for (const j of judged) yield* j.outcome.orders;
    }
    return gatherRecap(store, customerId, orders(), RECAP_LIMITS.mail);
  }

  /**
   * Files of the message judged in an earlier attempt (one that failed on a later file): their outcomes stand, and
   * their orders may be registered, so a reply must give them rather than say that nothing was registered.
   */
  async function judgedBefore(mailId: string): Promise<JudgedPart[]> {
    const judged: JudgedPart[] = [];
    for (const p of await store.mailParts(mailId)) {
      const s = await store.getSubmission(p.submissionId);
      if (!s?.outcome || s.state === 'received') continue;
      const part = { idx: p.idx, fileName: s.fileName ?? `allegato-${p.idx + 1}`, raw: EMPTY, ...(s.meta.zip ? { zip: s.meta.zip } : {}) };
      judged.push({ part, submissionId: s.id, receivedAt: s.receivedAt, processedAt: s.processedAt, outcome: s.outcome });
    }
    return judged;
  }

  /**
   * Finish a message that cannot be read: a reply saying so (unless replying is not allowed). Files an earlier
   * attempt judged are reported with their outcomes; the rest as not processed.
   */
  async function giveUp(m: MailMessage, attempts: number, reason: keyof typeof UNREADABLE_REASONS, cause: string): Promise<void> {
    const customer = await store.getCustomer(m.customerId);
    if (!customer) throw new Error(`mail ${m.id}: customer ${m.customerId} not found`);
    // Only a sender who may order is told that the message could not be read.
    if (reason === 'attempts' && (await screen(m, undefined)).held) return;
    const message = unreadableMessage(m.raw, m.envelopeFrom, deps.mailDomain, UNREADABLE_REASONS[reason]);
    const submissions = (await store.mailParts(m.id)).map((p) => p.submissionId);
    const judged = await judgedBefore(m.id);
    if (judged.length > 0) {
      message.problems = [`gli altri file del messaggio non sono stati elaborati: ${UNREADABLE_REASONS[reason]}. Li invii di nuovo in un nuovo messaggio.`];
    }
    const unreadable = `${reason}: ${cause}`.slice(0, 500);
    let result: MailResult;
    let done: boolean;
    if (message.noReply || !message.replyTo) {
      result = { esito: 'errore', submissions, noReply: message.noReply ?? 'no address to reply to', unreadable };
      done = await store.finishMail(m.id, result);
    } else {
      const replyId = uuidv7();
      const reply = await composeReply({
        id: replyId, message, receivedAt: m.receivedAt, judged, mailbox: customer.mailbox, mailDomain: deps.mailDomain,
        timeZone: deps.timeZone, now: new Date(), unreadable: judged.length === 0, recap: await recapOf(customer.id, judged),
      });
      result = { esito: 'errore', submissions, replyId, unreadable };
      done = await store.finishMail(m.id, result, {
        id: replyId, mailId: m.id, customerId: m.customerId, recipient: reply.recipient, subject: reply.subject, raw: reply.raw,
      });
      if (done) deps.onReplyQueued();
    }
    if (done) log.warn({ mail: m.id, customer: m.customerId, attempts, cause, reply: result.replyId, noReply: result.noReply }, 'mail message given up as unreadable');
  }

  async function finish(id: string): Promise<void> {
    const m = await store.getMailMessage(id);
    if (!m || m.state === 'done') return;
    const attempts = await store.countMailAttempt(id);
    if (attempts > MAIL_LIMITS.deriveAttempts) {
      await giveUp(m, attempts, 'attempts', `${attempts - 1} attempts failed`);
      return;
    }
    try {
      const result = await derive(m);
      if (result) {
        log.info({ mail: id, customer: m.customerId, source: m.source, esito: result.esito, files: result.submissions.length, reply: result.replyId, noReply: result.noReply }, 'mail message processed');
      }
    } catch (err) {
      if (err instanceof ParseRefused) {
        await giveUp(m, attempts, 'structure', err.message);
        return;
      }
      // Kept as received: the next sweep (or the next start) tries again; nothing acknowledged is lost.
      log.error({ err, mail: id }, 'mail message could not be processed; kept for retry');
      throw err;
    }
  }

  function pump(): void {
    while (running.size < MAIL_LIMITS.deriveConcurrency && queue.length > 0) {
      const id = queue.shift()!;
      if (running.has(id)) continue;
      const p = finish(id).catch(() => undefined).finally(() => {
        running.delete(id);
        // Finished, or failed and left to the next sweep (which claims it afresh): either way no longer held.
        held.delete(id);
        track();
        pump();
      });
      running.set(id, p);
    }
  }

  return {
    start(id) {
      if (stopped) {
        // Stored while stopping: handed back at once rather than derived.
        store.releaseMailClaims(deps.holder, [id]).catch(() => undefined);
        return;
      }
      // Stored by this instance with its claim: held from now on.
      held.add(id);
      track();
      if (!queue.includes(id) && !running.has(id)) queue.push(id);
      pump();
    },

    async sweep() {
      let total = 0;
      const tried = new Set<string>();
      for (;;) {
        const ids = (await store.pendingMailIds(MAIL_LIMITS.recoveryBatch + tried.size)).filter((id) => !tried.has(id) && !running.has(id));
        if (ids.length === 0 || stopped) return total;
        for (const id of ids) {
          if (stopped) return total;
          tried.add(id);
          if (!(await store.claimMail(id, deps.claimMs, deps.holder))) continue;
          held.add(id);
          track();
          try {
            await finish(id);
            total++;
          } catch {
            // logged in finish(); left for the next sweep
          } finally {
            held.delete(id);
            track();
          }
        }
      }
    },

    async idle() {
      while (running.size > 0 || queue.length > 0) {
        if (running.size === 0) pump();
        await Promise.all([...running.values()]);
      }
    },

    async stop() {
      stopped = true;
      const waiting = queue.splice(0);
      for (const id of waiting) held.delete(id);
      track();
      if (waiting.length > 0) {
        const n = await store.releaseMailClaims(deps.holder, waiting).catch((err: unknown) => {
          log.warn({ err }, 'could not hand back waiting mail messages; their claims lapse instead');
          return 0;
        });
        log.info({ messages: n }, 'handed back mail messages not yet started');
      }
      await Promise.all([...running.values()]);
    },
  };
}
