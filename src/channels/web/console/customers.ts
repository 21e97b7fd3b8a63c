/**
 * One customer in the console: its mailbox, state and activity (per channel over the last days, the latest
 * submissions and orders, links to the lists filtered by it), deactivating / reactivating it through the same
 * function as `order-intake customer deactivate|reactivate` (src/customers/deactivate.ts), and its e-mail
 * notifications of production status as `order-intake customer notify set` sets them (src/handoff/notify-settings.ts),
 * and its Peppol identifiers as `order-intake customer set --peppol-id` sets them (src/customers/peppol-ids.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findCustomerByCode } from '../../../customers/find.ts';
import { setCustomerActive } from '../../../customers/deactivate.ts';
import { formatPeppolId, MAX_PEPPOL_IDS, setCustomerPeppolIds } from '../../../customers/peppol-ids.ts';
import { IntakeError, isIntakeError } from '../../../domain/errors.ts';
import { setNotifications } from '../../../handoff/notify-settings.ts';
import { download, str } from '../render.ts';
import { safeFileName } from '../format.ts';
import { orderWorkbook, XLSX_MEDIA_TYPE } from '../../../intake/formats/index.ts';
import type { WebContext } from '../context.ts';
import { actor, consolePage, operatorOf, record } from './page.ts';
import { MAX_ALLOW_INPUT, setPolicy } from '../../../customers/mail-senders.ts';

/** Days the activity counts cover: a working week and the weekend around it. */
export const ACTIVITY_DAYS = 7;
/** Latest submissions and orders shown; the filtered lists hold the rest. */
const RECENT = 10;

export function registerCustomerRoutes(app: FastifyInstance, ctx: WebContext): void {
  async function customerPage(req: FastifyRequest, reply: FastifyReply, code: string, extra: Record<string, unknown> = {}) {
    const customer = await findCustomerByCode(ctx.store, code);
    if (!customer) throw new IntakeError('NOT_FOUND');
    const since = new Date(Date.now() - ACTIVITY_DAYS * 86_400_000).toISOString();
    const [activity, submissions, orders, imap, notify, mailPolicy, peppolIds, xrefs] = await Promise.all([
      ctx.store.customerActivity(customer.id, since),
      ctx.store.searchSubmissions({ customerId: customer.id, limit: RECENT }),
      ctx.store.searchOrders({ customerId: customer.id, limit: RECENT }),
      ctx.store.getImapAccount(customer.id),
      ctx.store.getNotifySettings(customer.id),
      ctx.store.getMailPolicy(customer.id),
      ctx.store.listPeppolIds(customer.id),
      ctx.store.countArticleXrefs(customer.id),
    ]);
    const totals = activity.reduce((t, a) => ({ submissions: t.submissions + a.submissions, refused: t.refused + a.refused, orders: t.orders + a.orders }),
      { submissions: 0, refused: 0, orders: 0 });
    const q = `cliente=${encodeURIComponent(customer.code)}`;
    return consolePage(ctx, req, reply, 'console/customer.eta', {
      title: `Cliente ${customer.code}`, nav: 'customers', customer, done: (req.query as Record<string, unknown>).fatto, activity, totals, days: ACTIVITY_DAYS, submissions, orders,
      imap: imap && { user: imap.username, host: imap.host, folder: imap.folder },
      links: { submissions: `/console/invii?${q}`, refused: `/console/invii?${q}&esito=errore`, orders: `/console/ordini?${q}` },
      notify, mailPolicy, peppolIds: peppolIds.map(formatPeppolId), xrefs, ...extra,
    });
  }

  app.get('/clienti/:code', async (req, reply) => customerPage(req, reply, String((req.params as { code: string }).code)));

  // The customer's Excel template, the same file the customer downloads from the portal.
  app.get('/clienti/:code/modello.xlsx', async (req, reply) => {
    const customer = await findCustomerByCode(ctx.store, String((req.params as { code: string }).code));
    if (!customer) throw new IntakeError('NOT_FOUND');
    const units = await ctx.store.listUnits();
    return download(reply, `modello-ordini-${safeFileName(customer.code, 'cliente')}.xlsx`, XLSX_MEDIA_TYPE, orderWorkbook({ customerCode: customer.code, units }));
  });

  // E-mail notifications of production status (docs/operators/notifications.md), as `customer notify set` does.
  app.post('/clienti/:code/notifiche', async (req, reply) => {
    actor(req);
    const code = String((req.params as { code: string }).code);
    const b = (req.body ?? {}) as Record<string, unknown>;
    const enabled = b.attive === 'on';
    // 254: the longest forward path (RFC 5321); a longer value is refused below, not cut.
    const address = str(b.indirizzo, 300) ?? null;
    try {
      const { customer, settings } = await setNotifications(ctx.store, code, { enabled, address });
      await record(ctx, req, settings.enabled ? 'cliente.notifiche_attive' : 'cliente.notifiche_spente', 'cliente', customer.code, { address: settings.address ?? null });
      return reply.redirect(`/console/clienti/${encodeURIComponent(customer.code)}?fatto=notifiche`, 303);
    } catch (e) {
      if (!isIntakeError(e) || e.code !== 'VALIDATION') throw e;
      return customerPage(req, reply.code(400), code, {
        notifyError: 'Indirizzo non valido: scrivete un solo indirizzo e-mail (per esempio produzione@cliente.it), oppure lasciate il campo vuoto.',
        notifyForm: { enabled, address: address ?? '' },
      });
    }
  });

  // Who may order by e-mail (docs/operators/mail.md), as `customer mail-policy` sets it; the box is the whole list.
  app.post('/clienti/:code/mittenti', async (req, reply) => {
    actor(req);
    const code = String((req.params as { code: string }).code);
    const b = (req.body ?? {}) as Record<string, unknown>;
    const mode = str(b.modalita, 20) ?? '';
    const text = str(b.elenco, 100_000) ?? '';
    const allow = text.split(/[\s,;]+/).filter(Boolean);
    try {
      const customer = await findCustomerByCode(ctx.store, code);
      if (!customer) throw new IntakeError('NOT_FOUND');
      if (allow.length > MAX_ALLOW_INPUT) throw new IntakeError('VALIDATION', `al massimo ${MAX_ALLOW_INPUT} voci`);
      await setPolicy(ctx.store, customer, { mode, allow, replace: true, notifyHeld: b.avvisa === 'on' }, operatorOf(req).email);
      return reply.redirect(`/console/clienti/${encodeURIComponent(customer.code)}?fatto=mittenti`, 303);
    } catch (e) {
      if (!isIntakeError(e) || e.code !== 'VALIDATION') throw e;
      return customerPage(req, reply.code(400), code, {
        policyError: `Impostazione non salvata: ${e.message}.`,
        policyForm: { mode, allow, notifyHeld: b.avvisa === 'on' },
      });
    }
  });

  // Peppol participant identifiers (docs/operators/peppol.md), as `customer set --peppol-id` sets them: one per line.
  app.post('/clienti/:code/peppol', async (req, reply) => {
    actor(req);
    const code = String((req.params as { code: string }).code);
    // Identifiers are short; MAX_PEPPOL_IDS of them fit well within this.
    const text = str((req.body as Record<string, unknown> | undefined)?.identificativi, 2000) ?? '';
    const lines = text.split(/[\r\n,]+/).map((l) => l.trim()).filter((l) => l !== '');
    try {
      const { customer, ids } = await setCustomerPeppolIds(ctx.store, code, lines);
      await record(ctx, req, 'cliente.peppol', 'cliente', customer.code, { peppol_ids: ids.map(formatPeppolId) });
      return reply.redirect(`/console/clienti/${encodeURIComponent(customer.code)}?fatto=peppol`, 303);
    } catch (e) {
      if (!isIntakeError(e) || (e.code !== 'VALIDATION' && e.code !== 'CONFLICT')) throw e;
      const peppolError = e.code === 'CONFLICT'
        ? `Identificativo già associato a un altro cliente: ${e.message.replace(/^Peppol identifiers held by another customer: /, '')}.`
        : `Identificativo non valido: scrivete schema:valore, lo schema di quattro cifre (per esempio 0211:IT01234567890), uno per riga; al massimo ${MAX_PEPPOL_IDS}.`;
      return customerPage(req, reply.code(400), code, { peppolError, peppolForm: text });
    }
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
