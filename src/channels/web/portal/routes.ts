/**
 * The customers' portal: login with the FTP/SFTP user and password, file upload (one or many, drag-and-drop or
 * picker), a simple order form, and the customer's own submissions and orders. Every lookup is scoped to the
 * logged-in customer: another customer's id in a URL answers 404, exactly as an id that does not exist.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { INACTIVE_MESSAGE, isActive } from '../../../customers/active.ts';
import { IntakeError } from '../../../domain/errors.ts';
import type { WebContext } from '../context.ts';
import { checkLogin } from '../login.ts';
import { cursorOf, download, idParam, parseCursor, str, type PageData } from '../render.ts';
import { safeFileName } from '../format.ts';
import { customerOf, portalPage } from './page.ts';
import { registerPortalOrderForm } from './order-form.ts';
import { registerPortalOrderChange } from './order-change.ts';
import { MAX_FILES_PER_UPLOAD, registerUpload } from './upload.ts';
import { outcomeExtras } from '../recap.ts';
import { orderWorkbook, XLSX_MEDIA_TYPE } from '../../../intake/formats/index.ts';

const PUBLIC = new Set(['/portale/login']);
const PAGE = 50;

export function registerPortalRoutes(app: FastifyInstance, ctx: WebContext): void {
  app.addHook('preHandler', async (req, reply) => {
    if (PUBLIC.has(req.routeOptions.url ?? '')) return;
    const s = req.webSession;
    const customer = s && await ctx.store.getCustomer(s.subjectId);
    // A deactivated customer's sessions were ended with the deactivation; this covers a session that raced it.
    if (!s || !customer || !isActive(customer)) {
      if (s) await ctx.sessions.end(req, reply, 'customer');
      if (req.method === 'GET') return reply.redirect(customer && !isActive(customer) ? '/portale/login?disattivato=1' : '/portale/login');
      return reply.code(401).view('error.eta', { title: 'Sessione scaduta', message: 'Accedere di nuovo per continuare.', back: '/portale/login', area: 'portale' });
    }
    req.customer = customer;
  });

  app.get('/login', async (req, reply) => {
    if (req.webSession) return reply.redirect('/portale/');
    const off = (req.query as Record<string, unknown>).disattivato !== undefined;
    return portalPage(ctx, req, reply, 'login.eta', { ...loginData(), ...(off ? { error: INACTIVE_MESSAGE } : {}) });
  });

  app.post('/login', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const user = str(body.user, 64) ?? '';
    const result = await checkLogin(ctx, req, user, typeof body.password === 'string' ? body.password : '', async (name) => {
      const cred = await ctx.store.findCredential('password', name);
      return cred && !cred.revokedAt ? { id: cred.customerId, hash: cred.secretHash } : undefined;
    });
    if (!result.ok) return portalPage(ctx, req, reply.code(result.status), 'login.eta', { ...loginData(), error: result.message, user });
    // Said only once the password is proved right, so it tells a guesser nothing.
    const customer = await ctx.store.getCustomer(result.subjectId);
    if (!customer || !isActive(customer)) {
      return portalPage(ctx, req, reply.code(403), 'login.eta', { ...loginData(), error: INACTIVE_MESSAGE, user });
    }
    await ctx.sessions.start(req, reply, 'customer', result.subjectId);
    return reply.redirect('/portale/', 303);
  });

  app.post('/logout', async (req, reply) => {
    await ctx.sessions.end(req, reply, 'customer');
    return reply.redirect('/portale/login', 303);
  });

  app.get('/', async (req, reply) => {
    const c = customerOf(req);
    const recent = await ctx.store.searchSubmissions({ customerId: c.id, limit: 20 });
    return portalPage(ctx, req, reply, 'portal/home.eta', { title: 'Invia ordini', nav: 'home', recent, script: 'portale.js', maxFiles: MAX_FILES_PER_UPLOAD });
  });

  // The Excel template: the layout, the customer's code written in, the units of measure as a drop-down.
  app.get('/modello.xlsx', async (req, reply) => {
    const c = customerOf(req);
    const units = await ctx.store.listUnits();
    return download(reply, `modello-ordini-${safeFileName(c.code, 'cliente')}.xlsx`, XLSX_MEDIA_TYPE, orderWorkbook({ customerCode: c.code, units }));
  });

  app.get('/invii/:id', async (req, reply) => {
    const s = await ownSubmission(ctx, req);
    const extras = await outcomeExtras(ctx.store, s.customerId, s.outcome, s.receivedAt);
    return portalPage(ctx, req, reply, 'portal/submission.eta', { title: `Invio ${s.fileName ?? ''}`, nav: 'home', s, ...extras });
  });

  app.get('/invii/:id/esito', async (req, reply) => {
    const s = await ownSubmission(ctx, req);
    const body = {
      id_invio: s.id, file: s.fileName ?? null, ricevuto_il: s.receivedAt,
      esito: s.outcome?.esito ?? 'in_elaborazione',
      errore_file: s.outcome?.fileError?.message ?? null,
      ordini: (s.outcome?.orders ?? []).map((o) => ({
        riferimento_ordine: o.riferimento_ordine ?? null, esito: o.esito, numero_ordine: o.numero_ordine ?? null,
        id_ordine: o.id_ordine ?? null, errori: o.errori ?? [], messaggi: o.message ?? [],
      })),
    };
    const name = `esito-${safeFileName(s.fileName, s.id).replace(/\.[^.]*$/, '')}.json`;
    return download(reply, name, 'application/json; charset=utf-8', `${JSON.stringify(body, null, 2)}\n`);
  });

  app.get('/ordini', async (req, reply) => {
    const c = customerOf(req);
    const q = req.query as Record<string, unknown>;
    // A part of the reference, in any case: `121` finds PO-1213.
    const rif = str(q.rif, 100)?.trim() || undefined;
    const rows = await ctx.store.searchOrders({ customerId: c.id, riferimento: rif, after: parseCursor(q.dopo), limit: PAGE });
    const last = rows.length === PAGE ? rows[rows.length - 1] : undefined;
    const next = last ? `/portale/ordini?${new URLSearchParams({ ...(rif ? { rif } : {}), dopo: cursorOf(last.registeredAt, last.id_ordine) }).toString()}` : undefined;
    return portalPage(ctx, req, reply, 'portal/orders.eta', { title: 'I miei ordini', nav: 'orders', rows, rif: rif ?? '', next });
  });

  registerUpload(app, ctx);
  registerPortalOrderForm(app, ctx);
  registerPortalOrderChange(app, ctx);
}

/** The logged-in customer's submission, or 404 (also when it belongs to another customer). */
async function ownSubmission(ctx: WebContext, req: FastifyRequest) {
  const c = customerOf(req);
  const s = await ctx.store.getSubmission(idParam((req.params as { id: string }).id));
  if (!s || s.customerId !== c.id) throw new IntakeError('NOT_FOUND');
  return s;
}

function loginData(): PageData {
  return {
    title: 'Accesso al portale ordini', userLabel: 'Utente',
    hint: 'Usare l\'utente e la password ricevuti all\'attivazione (gli stessi di FTP/SFTP).',
  };
}
