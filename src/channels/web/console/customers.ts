/**
 * One customer in the console: its mailbox, state and activity (per channel over the last days, the latest
 * submissions and orders, links to the lists filtered by it), and deactivating / reactivating it through the same
 * function as `order-intake customer deactivate|reactivate` (src/customers/deactivate.ts).
 */
import type { FastifyInstance } from 'fastify';
import { findCustomerByCode } from '../../../customers/find.ts';
import { setCustomerActive } from '../../../customers/deactivate.ts';
import { IntakeError } from '../../../domain/errors.ts';
import type { WebContext } from '../index.ts';
import { actor, consolePage, record } from './routes.ts';

/** Days the activity counts cover: a working week and the weekend around it. */
export const ACTIVITY_DAYS = 7;
/** Latest submissions and orders shown; the filtered lists hold the rest. */
const RECENT = 10;

export function registerCustomerRoutes(app: FastifyInstance, ctx: WebContext): void {
  app.get('/clienti/:code', async (req, reply) => {
    const code = String((req.params as { code: string }).code);
    const customer = await findCustomerByCode(ctx.store, code);
    if (!customer) throw new IntakeError('NOT_FOUND');
    const since = new Date(Date.now() - ACTIVITY_DAYS * 86_400_000).toISOString();
    const [activity, submissions, orders, imap] = await Promise.all([
      ctx.store.customerActivity(customer.id, since),
      ctx.store.searchSubmissions({ customerId: customer.id, limit: RECENT }),
      ctx.store.searchOrders({ customerId: customer.id, limit: RECENT }),
      ctx.store.getImapAccount(customer.id),
    ]);
    const totals = activity.reduce((t, a) => ({ submissions: t.submissions + a.submissions, refused: t.refused + a.refused, orders: t.orders + a.orders }),
      { submissions: 0, refused: 0, orders: 0 });
    const q = `cliente=${encodeURIComponent(customer.code)}`;
    return consolePage(ctx, req, reply, 'console/customer.eta', {
      title: `Cliente ${customer.code}`, nav: 'customers', customer, done: (req.query as Record<string, unknown>).fatto, activity, totals, days: ACTIVITY_DAYS, submissions, orders,
      imap: imap && { user: imap.username, host: imap.host, folder: imap.folder },
      links: { submissions: `/console/invii?${q}`, refused: `/console/invii?${q}&esito=errore`, orders: `/console/ordini?${q}` },
    });
  });

  for (const [path, active] of [['disattiva', false], ['riattiva', true]] as const) {
    app.post(`/clienti/:code/${path}`, async (req, reply) => {
      actor(req);
      const code = String((req.params as { code: string }).code);
      const { customer, changed } = await setCustomerActive(ctx.store, code, active);
      if (changed) await record(ctx, req, active ? 'cliente.riattiva' : 'cliente.disattiva', 'cliente', customer.code);
      return reply.redirect(`/console/clienti/${encodeURIComponent(customer.code)}?fatto=${path}`, 303);
    });
  }
}
