/**
 * Submissions in the console: the filtered list (keyset pages), one submission in detail (raw file shown as inert
 * text, downloadable as an attachment, each order's outcome, the e-mail reply, the audit trail) and reprocessing.
 */
import type { FastifyInstance } from 'fastify';
import { IntakeError } from '../../../domain/errors.ts';
import { CHANNELS } from '../../../domain/types.ts';
import { SUBMISSION_OUTCOMES, type SubmissionOutcomeFilter, type SubmissionSearch } from '../../../domain/store/web.ts';
import type { WebContext } from '../context.ts';
import { rawPreview, safeFileName } from '../format.ts';
import { previewSheet } from '../../../intake/formats/index.ts';
import { replyView } from './reply-view.ts';
import { cursorOf, download, idParam, str } from '../render.ts';
import { listFilters, PAGE_SIZE } from './filters.ts';
import { actor, consolePage, record } from './page.ts';
import { registerCorrectRoutes } from './correct.ts';
import { outcomeExtras } from '../recap.ts';

/** The list's filters from the query string, as given (for the form) and as a store search. */
export function submissionFilters(ctx: WebContext, query: unknown) {
  const { q, form: common, search: base } = listFilters(ctx, query);
  const form = { ...common, esito: str(q.esito, 20) ?? '' };
  const search: SubmissionSearch = { ...base };
  if ((SUBMISSION_OUTCOMES as readonly string[]).includes(form.esito)) search.outcome = form.esito as SubmissionOutcomeFilter;
  return { form, search };
}

export function registerSubmissionRoutes(app: FastifyInstance, ctx: WebContext): void {
  app.get('/invii', async (req, reply) => {
    const { form, search } = submissionFilters(ctx, req.query);
    const rows = await ctx.store.searchSubmissions(search);
    const last = rows.length === PAGE_SIZE ? rows[rows.length - 1] : undefined;
    const params = new URLSearchParams(Object.entries(form).filter(([, v]) => v !== ''));
    if (last) params.set('dopo', cursorOf(last.receivedAt, last.id));
    return consolePage(ctx, req, reply, 'console/submissions.eta', {
      title: 'Invii', nav: 'submissions', rows, form, channels: CHANNELS,
      next: last ? `/console/invii?${params.toString()}` : undefined, paged: search.after !== undefined,
    });
  });

  app.get('/invii/:id', async (req, reply) => {
    const id = idParam((req.params as { id: string }).id);
    const s = await ctx.store.getSubmission(id);
    if (!s) throw new IntakeError('NOT_FOUND');
    const [customer, trail, reply_] = await Promise.all([
      ctx.store.getCustomer(s.customerId),
      ctx.store.listAudit({ objectType: 'invio', objectId: id, limit: 50 }),
      replyOf(ctx, s.meta.mail_id),
    ]);
    const raw = rawPreview(s.raw, s.charset);
    // A workbook is shown as the table its order sheet is.
    const sheet = raw.binary ? await previewSheet(s.raw) : undefined;
    const extras = await outcomeExtras(ctx.store, s.customerId, s.outcome, s.receivedAt);
    // Nothing left to correct once every refused order's reference is registered (within those looked up).
    const refusedLeft = (s.outcome?.orders ?? []).some((o) => o?.esito === 'errore' && !extras.since.has(o.index)) || !!s.outcome?.fileError;
    const notice = str((req.query as Record<string, unknown>).fatto, 40);
    return consolePage(ctx, req, reply, 'console/submission.eta', {
      title: `Invio ${s.fileName ?? s.id}`, nav: 'submissions', s, customer, raw, sheet, trail, reply: reply_,
      size: s.raw.length, notice: notice === 'rielaborato' ? 'Invio rielaborato.' : undefined,
      correctable: s.state === 'processed' && s.outcome?.esito === 'errore' && s.connectorId === undefined && refusedLeft, ...extras,
    });
  });

  app.get('/invii/:id/file', async (req, reply) => {
    const id = idParam((req.params as { id: string }).id);
    const s = await ctx.store.getSubmission(id);
    if (!s) throw new IntakeError('NOT_FOUND');
    // Always an attachment of an opaque type: the browser saves it and never renders or runs it.
    return download(reply, safeFileName(s.fileName, `invio-${s.id}.txt`), 'application/octet-stream', s.raw);
  });

  app.post('/invii/:id/rielabora', async (req, reply) => {
    actor(req);
    const id = idParam((req.params as { id: string }).id);
    const s = await ctx.store.getSubmission(id);
    if (!s) throw new IntakeError('NOT_FOUND');
    const outcome = await ctx.intake.reprocess(id);
    await record(ctx, req, 'invio.rielabora', 'invio', id, { esito: outcome.esito });
    return reply.redirect(`/console/invii/${id}?fatto=rielaborato`, 303);
  });

  registerCorrectRoutes(app, ctx);
}

/** The e-mail reply sent for the message a submission came in, if any. */
async function replyOf(ctx: WebContext, mailId: string | undefined) {
  if (!mailId) return undefined;
  const m = await ctx.store.getMailMessage(mailId);
  const replyId = m?.result?.replyId;
  const r = replyId ? await ctx.store.getReply(replyId) : undefined;
  if (!r) return m?.result?.noReply ? { noReply: m.result.noReply } : undefined;
  return { recipient: r.recipient, subject: r.subject, state: r.state, sentAt: r.sentAt, lastError: r.lastError, text: await replyView(r.raw, ctx.timeZone) };
}
