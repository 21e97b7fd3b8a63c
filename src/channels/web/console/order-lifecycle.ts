/**
 * One order in the console with its lifecycle: every version side by side, the requests production decides (an
 * operator may accept or refuse them, as production would), and the cancellation on the customer's behalf.
 *
 * A cancellation by the order desk goes through the intake core like the console's corrections (correct.ts): a
 * submission of channel `console`, one JSON order `{codice_cliente, riferimento_ordine, azione: "annulla", motivo}`,
 * its meta naming the order and the operator; so it is durable, judged by the same rules as the customer's own, and
 * the production history says which operator cancelled. A decision on a request is production's act, which the
 * integration API makes directly (src/intake/lifecycle.ts decideRequest); the console does the same, as the operator.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IntakeError, isIntakeError } from '../../../domain/errors.ts';
import type { Customer } from '../../../domain/store/store.ts';
import { MAX_NOTE_CHARS, type RegisteredOrder } from '../../../domain/types.ts';
import { decideRequest } from '../../../intake/lifecycle.ts';
import type { DocumentDetails } from '../../../intake/ubl-resolve.ts';
import { responseToOrder } from '../../../intake/order-response.ts';
import { changeMessage } from '../../../render/lifecycle-text.ts';
import { MAX_NOTE_LENGTH } from '../../../handoff/production.ts';
import type { WebContext } from '../context.ts';
import { download, idParam, str } from '../render.ts';
import { lifecyclePage, reasonOf, requestLabel } from '../lifecycle.ts';
import { actor, consolePage, operatorOf, record } from './page.ts';

/** What the page says above the order after an action: done (ok) or refused, in Italian. */
export interface Notice {
  ok: boolean;
  text: string;
  items?: string[];
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

export function registerOrderLifecycleRoutes(app: FastifyInstance, ctx: WebContext): void {
  async function target(req: FastifyRequest): Promise<{ customer: Customer; order: RegisteredOrder }> {
    const p = req.params as { code: string; id: string };
    const customer = await ctx.store.getCustomerByCode(String(p.code));
    const order = customer && await ctx.store.getOrder(customer.id, idParam(p.id));
    if (!customer || !order) throw new IntakeError('NOT_FOUND');
    return { customer, order };
  }

  async function show(req: FastifyRequest, reply: FastifyReply, customer: Customer, order: RegisteredOrder, extra: { notice?: Notice; motivo?: string } = {}) {
    const [life, details] = await Promise.all([lifecyclePage(ctx.store, order), ctx.store.orderTicket(customer.id, order.id_ordine)]);
    // An order that came as a UBL document: what it said besides, the original and its Peppol Order Response.
    const parsed = details === undefined ? undefined : JSON.parse(details) as { formato?: string };
    const ubl = parsed?.formato === 'ubl' ? parsed as DocumentDetails : undefined;
    return consolePage(ctx, req, reply, 'console/order.eta', {
      title: `Ordine ${order.numero_ordine}`, nav: 'orders', order, customer, life, requestLabel, maxReason: MAX_NOTE_LENGTH, maxMotivo: MAX_NOTE_CHARS, ubl, ...extra,
    });
  }

  app.get('/clienti/:code/ordini/:id', async (req, reply) => {
    operatorOf(req);
    const { customer, order } = await target(req);
    return show(req, reply, customer, order);
  });

  // The Peppol Order Response of an order that came as a UBL document, as things stand (src/intake/order-response.ts).
  app.get('/clienti/:code/ordini/:id/order-response', async (req, reply) => {
    operatorOf(req);
    const { order } = await target(req);
    const response = await responseToOrder(ctx.store, order, { timeZone: ctx.timeZone, ...(ctx.peppolId ? { seller: ctx.peppolId } : {}) }, new Date());
    if (!response) throw new IntakeError('NOT_FOUND');
    return download(reply, response.fileName, 'application/xml; charset=utf-8', response.xml);
  });

  app.post('/clienti/:code/ordini/:id/annulla', async (req, reply) => {
    const op = actor(req);
    const { customer, order } = await target(req);
    const motivo = reasonOf((req.body as Record<string, unknown> | undefined)?.motivo);
    if (motivo === undefined) {
      return show(req, reply.code(422), customer, order, { notice: { ok: false, text: "Indicare il motivo dell'annullamento: resta nella storia dell'ordine e il cliente lo vede." } });
    }
    const body = { codice_cliente: customer.code, riferimento_ordine: order.riferimento_ordine, azione: 'annulla', motivo };
    const { submission, outcome } = await ctx.intake.submit({
      principal: { customerId: customer.id, customerCode: customer.code },
      channel: 'console',
      fileName: `annullamento-${order.numero_ordine}.json`,
      mediaType: 'application/json',
      raw: Buffer.from(JSON.stringify(body), 'utf8'),
      meta: { ordine: order.id_ordine, azione: 'annulla', operatore: op.email },
      singleOrder: true,
    });
    const result = outcome.orders[0];
    await record(ctx, req, 'ordine.annulla', 'ordine', order.id_ordine, {
      cliente: customer.code, numero_ordine: order.numero_ordine, riferimento_ordine: order.riferimento_ordine, motivo, nuovo_invio: submission.id,
      esito: result?.esito ?? outcome.esito, ...(result?.id_richiesta ? { id_richiesta: result.id_richiesta } : {}),
    });
    const now = (await ctx.store.getOrder(customer.id, order.id_ordine)) ?? order;
    const said = result && changeMessage(result);
    if (result?.esito === 'ok' && said) return show(req, reply, customer, now, { notice: { ok: true, text: said } });
    const items = result ? result.errori?.map((e) => e.messaggio) ?? [] : [];
    return show(req, reply.code(422), customer, now, { notice: { ok: false, text: "L'ordine non è stato annullato:", items }, motivo });
  });

  app.post('/clienti/:code/ordini/:id/richieste/:rid', async (req, reply) => {
    const op = actor(req);
    const { customer, order } = await target(req);
    const requestId = idParam((req.params as { rid: string }).rid);
    const b = (req.body ?? {}) as Record<string, unknown>;
    const esito = b.esito === 'accettata' || b.esito === 'rifiutata' ? b.esito : undefined;
    if (!esito) throw new IntakeError('VALIDATION');
    const nota = str(typeof b.nota === 'string' ? b.nota.replace(/\r\n?/g, '\n') : b.nota, 10 * MAX_NOTE_LENGTH);
    // The same limits as production's note through the integration API: it is shown to the customer and exported.
    if (nota !== undefined && (nota.length > MAX_NOTE_LENGTH || CONTROL.test(nota))) {
      return show(req, reply.code(422), customer, order, {
        notice: { ok: false, text: `La nota deve essere un testo di al massimo ${MAX_NOTE_LENGTH} caratteri, senza caratteri di controllo.` },
      });
    }
    try {
      const d = await decideRequest(
        { store: ctx.store, ...(ctx.onEvent ? { onEvent: ctx.onEvent } : {}) },
        { orderId: order.id_ordine, requestId, esito, by: `operatore:${op.email}`, customerId: customer.id, ...(nota !== undefined ? { nota } : {}) },
      );
      await record(ctx, req, esito === 'accettata' ? 'richiesta.accetta' : 'richiesta.rifiuta', 'ordine', order.id_ordine, {
        cliente: customer.code, numero_ordine: order.numero_ordine, id_richiesta: requestId, tipo: d.request.tipo, ...(nota !== undefined ? { nota } : {}),
      });
      const what = d.request.tipo === 'modifica' ? 'di modifica' : 'di annullamento';
      const text = !d.changed
        ? `La richiesta ${what} era già ${esito}: nessuna modifica.`
        : esito === 'rifiutata'
          ? `Richiesta ${what} rifiutata: l'ordine resta alla versione ${d.order.versione}.`
          : d.request.tipo === 'modifica' ? `Richiesta di modifica accettata: l'ordine è ora alla versione ${d.order.versione}.` : "Richiesta di annullamento accettata: l'ordine è annullato.";
      return show(req, reply, customer, d.order, { notice: { ok: true, text } });
    } catch (e) {
      if (!isIntakeError(e) || e.code === 'UNAVAILABLE') throw e;
      const now = (await ctx.store.getOrder(customer.id, order.id_ordine)) ?? order;
      return show(req, reply.code(e.http), customer, now, { notice: { ok: false, text: e.message } });
    }
  });
}
