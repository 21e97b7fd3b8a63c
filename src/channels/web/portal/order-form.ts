/**
 * The portal's order form, for customers with no file at all: the customer code is fixed to the logged-in
 * customer, article codes are suggested from the catalog (a datalist, refreshed by a small script as the customer
 * types: a part of the code or of the description finds it), lines are added as needed ("Aggiungi riga": in place
 * with the script, by sending the form back without it), a note goes with the order, and the order goes through the
 * intake core as a one-order JSON submission of channel `portal`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_FORM_LINES, postedForm, readOrderForm, wantsLine, withLines, type OrderForm } from '../order-form.ts';
import type { WebContext } from '../context.ts';
import { sourceOf, str } from '../render.ts';
import { isDemoCustomer } from '../../../seed/demo.ts';
import { MAX_NOTE_CHARS } from '../../../domain/types.ts';
import { customerOf, portalPage, principalOf } from './page.ts';
import { outcomeRecap } from '../recap.ts';

/** Suggestions sent at once: enough to browse a small catalog, few enough to keep the page light. */
const SUGGESTIONS = 200;

function blank(): OrderForm {
  return withLines({ riferimento_ordine: '', data_ordine: new Date().toISOString().slice(0, 10), data_consegna: '', note: '', righe: [] }, 1);
}

/** The demo catalog is the DEMO customer's alone (Article.demo). */
function articlesFor(ctx: WebContext, req: FastifyRequest, text: string, limit: number) {
  return ctx.store.searchArticles({ text, limit, demo: isDemoCustomer(customerOf(req).code) });
}

/** The order form (a new order, or the change of a registered one: then `extra` names it and where the form goes). */
export async function showOrderForm(ctx: WebContext, req: FastifyRequest, reply: FastifyReply, form: OrderForm, extra: Record<string, unknown> = {}) {
  const [articles, units] = await Promise.all([articlesFor(ctx, req, '', SUGGESTIONS), ctx.store.listUnits()]);
  return portalPage(ctx, req, reply, 'portal/form.eta', {
    title: 'Nuovo ordine', nav: 'form', form, articles, units, code: customerOf(req).code, script: 'modulo.js',
    maxLines: MAX_FORM_LINES, maxNote: MAX_NOTE_CHARS, action: '/portale/ordine', ...extra,
  });
}

export function registerPortalOrderForm(app: FastifyInstance, ctx: WebContext): void {
  app.get('/ordine', async (req, reply) => showOrderForm(ctx, req, reply, blank()));

  app.post('/ordine', async (req, reply) => {
    const principal = principalOf(req);
    const form = postedForm(req.body);
    if (wantsLine(req.body)) {
      // "Aggiungi riga" without the script: nothing is sent, the form comes back as typed with one more line.
      return showOrderForm(ctx, req, reply, withLines(form, 1), { focusLine: form.righe.length });
    }
    const read = readOrderForm(form, principal.customerCode);
    if (!read.ok) return showOrderForm(ctx, req, reply.code(422), withLines(form, 0), { problems: read.problems });
    const { outcome } = await ctx.intake.submit({
      principal, channel: 'portal', mediaType: 'application/json', raw: Buffer.from(JSON.stringify(read.order), 'utf8'),
      meta: { remote: sourceOf(req), modulo: 'ordine' }, singleOrder: true,
    });
    if (outcome.esito === 'ok') {
      const recap = await outcomeRecap(ctx.store, principal.customerId, outcome);
      return portalPage(ctx, req, reply, 'portal/result.eta', { title: 'Ordine inviato', nav: 'form', results: [{ fileName: 'Modulo d\'ordine', outcome, recap }] });
    }
    return showOrderForm(ctx, req, reply.code(422), withLines(form, 0), { outcome });
  });

  app.get('/articoli', async (req) => {
    customerOf(req);
    const q = str((req.query as Record<string, unknown>).q, 64) ?? '';
    const rows = await articlesFor(ctx, req, q, 50);
    return rows.map((a) => ({ codice: a.codice_articolo, descrizione: a.descrizione, unita: a.unita_misura }));
  });
}
