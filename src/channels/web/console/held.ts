/**
 * Messages held by the sender checks ("Messaggi trattenuti"): who sent them, why they were held, the authentication
 * results, and the operator's Rilascia (derived as if the sender had passed) / Scarta, through the same functions as
 * `order-intake mail held release|discard` (src/customers/mail-senders.ts). A release is derived by the service's next
 * sweep (INTAKE_SWEEP_INTERVAL_MS).
 */
import type { FastifyInstance } from 'fastify';
import { decideHold, HOLD_REASONS } from '../../../customers/mail-senders.ts';
import type { WebContext } from '../context.ts';
import { actor, consolePage, operatorOf } from './page.ts';

/** Held messages shown at once: an operator works through them, newest first. */
const SHOWN = 100;

export function registerHeldRoutes(app: FastifyInstance, ctx: WebContext): void {
  app.get('/trattenuti', async (req, reply) => {
    const holds = await ctx.store.listMailHolds({ state: 'held', limit: SHOWN });
    const codes = new Map<string, string>();
    for (const h of holds) {
      if (!codes.has(h.customerId)) codes.set(h.customerId, (await ctx.store.getCustomer(h.customerId))?.code ?? h.customerId);
    }
    const done = (req.query as Record<string, unknown>).fatto;
    return consolePage(ctx, req, reply, 'console/held.eta', {
      title: 'Messaggi trattenuti', nav: 'held', done,
      holds: holds.map((h) => ({ ...h, customerCode: codes.get(h.customerId), reasonText: HOLD_REASONS[h.reason] ?? h.reason })),
    });
  });

  for (const [path, decision] of [['rilascia', 'released'], ['scarta', 'discarded']] as const) {
    app.post(`/trattenuti/:id/${path}`, async (req, reply) => {
      actor(req);
      const id = String((req.params as { id: string }).id);
      await decideHold(ctx.store, id, decision, operatorOf(req).email);
      return reply.redirect(`/console/trattenuti?fatto=${path}`, 303);
    });
  }
}
