/**
 * The customer's own order in the portal, and its changes: "Modifica" (the order form prefilled with the current
 * version, sent as `azione: "modifica"`) and "Annulla" (with an optional reason). Both go through the intake core as
 * a one-order JSON submission of channel `portal`, exactly as the new-order form does, with the order's id in the
 * meta (as REST's PUT): the rules of src/intake/lifecycle.ts decide, and the answer page says what happened in the
 * words every channel uses (changeMessage).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IntakeError } from '../../../domain/errors.ts';
import type { Outcome, RegisteredOrder } from '../../../domain/types.ts';
import { MAX_NOTE_CHARS } from '../../../domain/types.ts';
import { changeMessage } from '../../../render/lifecycle-text.ts';
import type { WebContext } from '../context.ts';
import { postedForm, readOrderForm, wantsLine, withLines, type OrderForm } from '../order-form.ts';
import { idParam, sourceOf } from '../render.ts';
import { formOfOrder, lifecyclePage, reasonOf, requestLabel } from '../lifecycle.ts';
import { customerOf, portalPage, principalOf } from './page.ts';
import { showOrderForm } from './order-form.ts';

export function registerPortalOrderChange(app: FastifyInstance, ctx: WebContext): void {
  /** The logged-in customer's order, or 404 (also another customer's: the same answer as one that does not exist). */
  async function own(req: FastifyRequest): Promise<RegisteredOrder> {
    const c = customerOf(req);
    const order = await ctx.store.getOrder(c.id, idParam((req.params as { id: string }).id));
    if (!order) throw new IntakeError('NOT_FOUND');
    return order;
  }

  async function changeForm(req: FastifyRequest, reply: FastifyReply, order: RegisteredOrder, form: OrderForm, extra: Record<string, unknown> = {}) {
    return showOrderForm(ctx, req, reply, form, {
      title: `Modifica ordine ${order.numero_ordine}`, nav: 'orders', change: order, action: `/portale/ordini/${order.id_ordine}/modifica`, ...extra,
    });
  }

  /** The answer page: the sentence of an accepted change, or why it was refused. */
  function answer(req: FastifyRequest, reply: FastifyReply, order: RegisteredOrder, outcome: Outcome, what: 'modifica' | 'annullamento') {
    const result = outcome.orders[0];
    const said = result && changeMessage(result);
    return portalPage(ctx, req, reply.code(result?.esito === 'ok' ? 200 : 422), 'portal/changed.eta', {
      title: what === 'modifica' ? 'Modifica inviata' : 'Annullamento inviato', nav: 'orders', order, outcome, result, said, what,
    });
  }

  app.get('/ordini/:id', async (req, reply) => {
    const order = await own(req);
    const life = await lifecyclePage(ctx.store, order);
    return portalPage(ctx, req, reply, 'portal/order.eta', {
      title: `Ordine ${order.numero_ordine}`, nav: 'orders', order, life, requestLabel, maxNote: MAX_NOTE_CHARS,
    });
  });

  app.get('/ordini/:id/modifica', async (req, reply) => {
    const order = await own(req);
    // Not offered for an order shipped, delivered, cancelled or with a request waiting: the order's page says why.
    if (!(await lifecyclePage(ctx.store, order)).open) return reply.redirect(`/portale/ordini/${order.id_ordine}`, 303);
    return changeForm(req, reply, order, withLines(formOfOrder(order), 1));
  });

  app.post('/ordini/:id/modifica', async (req, reply) => {
    const principal = principalOf(req);
    const order = await own(req);
    // The reference is the order's: the form does not send one, and whatever is posted cannot move the change elsewhere.
    const form = { ...postedForm(req.body), riferimento_ordine: order.riferimento_ordine };
    if (wantsLine(req.body)) return changeForm(req, reply, order, withLines(form, 1), { focusLine: form.righe.length });
    const read = readOrderForm(form, principal.customerCode);
    if (!read.ok) return changeForm(req, reply.code(422), order, withLines(form, 0), { problems: read.problems });
    const { outcome } = await ctx.intake.submit({
      principal, channel: 'portal', mediaType: 'application/json',
      raw: Buffer.from(JSON.stringify({ ...read.order, azione: 'modifica' }), 'utf8'),
      meta: { remote: sourceOf(req), modulo: 'modifica', ordine: order.id_ordine, azione: 'modifica' }, singleOrder: true,
    });
    const code = outcome.orders[0]?.code;
    if (outcome.esito !== 'ok' && (code === 'VALIDATION' || code === 'BUSINESS')) {
      // What the form can fix (an unknown article, a missing date) is shown on the form, as for a new order.
      return changeForm(req, reply.code(422), order, withLines(form, 0), { outcome });
    }
    return answer(req, reply, (await ctx.store.getOrder(principal.customerId, order.id_ordine)) ?? order, outcome, 'modifica');
  });

  app.post('/ordini/:id/annulla', async (req, reply) => {
    const principal = principalOf(req);
    const order = await own(req);
    const motivo = reasonOf((req.body as Record<string, unknown> | undefined)?.motivo);
    const body = { codice_cliente: principal.customerCode, riferimento_ordine: order.riferimento_ordine, azione: 'annulla', ...(motivo ? { motivo } : {}) };
    const { outcome } = await ctx.intake.submit({
      principal, channel: 'portal', mediaType: 'application/json', raw: Buffer.from(JSON.stringify(body), 'utf8'),
      meta: { remote: sourceOf(req), modulo: 'annulla', ordine: order.id_ordine, azione: 'annulla' }, singleOrder: true,
    });
    return answer(req, reply, (await ctx.store.getOrder(principal.customerId, order.id_ordine)) ?? order, outcome, 'annullamento');
  });
}
