/**
 * "Correct and register": an operator edits the decoded order of a refused submission and registers it on the
 * customer's behalf. The corrected order goes through the intake core like any other (a new submission of channel
 * `console`, JSON, one order), so it is judged, numbered and deduplicated exactly as if the customer had sent it;
 * its meta links the original submission and names the operator, and the audit log records the action on the
 * original.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IntakeError } from '../../../domain/errors.ts';
import { openOrdersYielding } from '../../../intake/formats/index.ts';
import type { StoredSubmission } from '../../../domain/types.ts';
import type { WebContext } from '../context.ts';
import { idParam, str } from '../render.ts';
import { MAX_FORM_LINES, postedForm, readOrderForm, text, wantsLine, withLines, type OrderForm } from '../order-form.ts';
import { writeNumber } from '../../../intake/formats/people-values.ts';
import { MAX_NOTE_CHARS } from '../../../domain/types.ts';
import { isDemoCustomer } from '../../../seed/demo.ts';
import { actor, consolePage, record } from './page.ts';
import { outcomeRecap, registeredSince } from '../recap.ts';

/** Empty lines offered below the decoded ones; "Aggiungi riga" adds more. */
export const SPARE_LINES = 2;
/** Catalog suggestions rendered with the page (the script asks for more as the operator types). */
const SUGGESTIONS = 200;

/**
 * The order candidate at `index` of the submission's file as form values ('' where the file had nothing usable),
 * and whether the file's numbers are a machine's (then the form reads its numbers as that file was read).
 * Quantities the file gave as numbers are written back so that any context reads them as the same number; those it
 * could not read stay as the file had them, to be corrected.
 */
export async function decodedForm(s: StoredSubmission, index: number): Promise<{ form: OrderForm; machine: boolean }> {
  const empty: OrderForm = { riferimento_ordine: '', data_ordine: '', data_consegna: '', note: '', righe: [] };
  let candidate: unknown;
  let machine = false;
  try {
    let i = 0;
    const source = await openOrdersYielding(
      { raw: s.raw, mediaType: s.mediaType, fileName: s.fileName, charset: s.charset },
      { maxOrders: index + 1, yieldNow: () => new Promise<void>((resolve) => setImmediate(resolve)) },
    );
    machine = source.numbers?.machine ?? false;
    for (const c of source.candidates()) {
      if (i++ === index) {
        candidate = c;
        break;
      }
    }
  } catch {
    return { form: empty, machine }; // the file could not be read at all: the operator types the order from the raw text shown
  }
  if (!candidate || typeof candidate !== 'object') return { form: empty, machine };
  const o = candidate as Record<string, unknown>;
  const righe = Array.isArray(o.righe) ? o.righe.slice(0, MAX_FORM_LINES) : [];
  const form = {
    riferimento_ordine: text(o.riferimento_ordine), data_ordine: text(o.data_ordine), data_consegna: text(o.data_consegna),
    note: text(o.note), righe: righe.map((r) => {
      const l = (r && typeof r === 'object' ? r : {}) as Record<string, unknown>;
      const quantita = typeof l.quantita === 'number' ? writeNumber(l.quantita) : text(l.quantita);
      return { codice_articolo: text(l.codice_articolo), quantita, unita_misura: text(l.unita_misura) };
    }),
  };
  return { form, machine };
}

export function registerCorrectRoutes(app: FastifyInstance, ctx: WebContext): void {
  async function refused(req: FastifyRequest): Promise<StoredSubmission> {
    actor(req);
    const id = idParam((req.params as { id: string }).id);
    const s = await ctx.store.getSubmission(id);
    if (!s) throw new IntakeError('NOT_FOUND');
    // Only refused submissions of the ordinary formats: connector payloads need their connector's mapping.
    if (s.state !== 'processed' || s.outcome?.esito !== 'errore' || s.connectorId !== undefined) throw new IntakeError('FORBIDDEN');
    return s;
  }

  /** The customer's suggestions: the demo catalog only for the DEMO customer (Article.demo). */
  const articlesFor = (s: StoredSubmission, q: string, limit: number) =>
    ctx.store.searchArticles({ text: q, limit, demo: isDemoCustomer(s.customerCode) });

  async function show(req: FastifyRequest, reply: FastifyReply, s: StoredSubmission, index: number, form: OrderForm, extra: Record<string, unknown> = {}) {
    const failed = s.outcome?.orders.find((o) => o.index === index);
    const [articles, units] = await Promise.all([articlesFor(s, '', SUGGESTIONS), ctx.store.listUnits()]);
    return consolePage(ctx, req, reply, 'console/correct.eta', {
      title: 'Correggi e registra', nav: 'submissions', s, index, form, failed, orders: s.outcome?.orders ?? [],
      articles, units, maxLines: MAX_FORM_LINES, maxNote: MAX_NOTE_CHARS, script: 'modulo.js', ...extra,
    });
  }

  app.get('/invii/:id/correggi', async (req, reply) => {
    const s = await refused(req);
    const wanted = Number((req.query as Record<string, unknown>).ordine ?? NaN);
    // The first refused order still to correct: one whose reference is registered since needs nothing more.
    const since = await registeredSince(ctx.store, s.customerId, s.outcome, s.receivedAt);
    const refusedOrders = (s.outcome?.orders ?? []).filter((o) => o?.esito === 'errore');
    const firstRefused = (refusedOrders.find((o) => !since.has(o.index)) ?? refusedOrders[0])?.index ?? 0;
    const index = Number.isInteger(wanted) && wanted >= 0 ? wanted : firstRefused;
    const { form, machine } = await decodedForm(s, index);
    return show(req, reply, s, index, withLines(form, SPARE_LINES), { machine });
  });

  app.get('/invii/:id/articoli', async (req) => {
    const s = await refused(req);
    const q = str((req.query as Record<string, unknown>).q, 64) ?? '';
    return (await articlesFor(s, q, 50)).map((a) => ({ codice: a.codice_articolo, descrizione: a.descrizione, unita: a.unita_misura }));
  });

  app.post('/invii/:id/correggi', async (req, reply) => {
    const s = await refused(req);
    const op = actor(req);
    const index = Number((req.body as Record<string, unknown>).ordine ?? 0) || 0;
    const form = postedForm(req.body);
    const machine = (req.body as Record<string, unknown>).numeri === 'macchina';
    if (wantsLine(req.body)) return show(req, reply, s, index, withLines(form, 1), { machine, focusLine: form.righe.length });
    const read = readOrderForm(form, s.customerCode, { machine });
    if (!read.ok) return show(req, reply.code(422), s, index, withLines(form, SPARE_LINES), { machine, problems: read.problems });
    const order = read.order;
    const { submission, outcome } = await ctx.intake.submit({
      principal: { customerId: s.customerId, customerCode: s.customerCode },
      channel: 'console',
      fileName: `correzione-${s.id}.json`,
      mediaType: 'application/json',
      raw: Buffer.from(JSON.stringify(order), 'utf8'),
      meta: { corregge: s.id, ordine: String(index), operatore: op.email },
      singleOrder: true,
    });
    const result = outcome.orders[0];
    await record(ctx, req, outcome.esito === 'ok' ? 'invio.correggi_registra' : 'invio.correggi_rifiutato', 'invio', s.id, {
      nuovo_invio: submission.id, ordine_nel_file: index + 1, riferimento_ordine: form.riferimento_ordine,
      ...(result?.numero_ordine ? { numero_ordine: result.numero_ordine } : {}),
    });
    if (outcome.esito === 'ok') {
      const recap = await outcomeRecap(ctx.store, s.customerId, outcome);
      return consolePage(ctx, req, reply, 'console/corrected.eta', { title: 'Ordine registrato', nav: 'submissions', s, submission, outcome, recap });
    }
    return show(req, reply.code(422), s, index, withLines(form, SPARE_LINES), { machine, outcome });
  });
}
