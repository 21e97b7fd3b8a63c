/**
 * The operators' console: login, the guard every other page sits behind, the dashboard and the audit log. The
 * lists and actions are in the files next to this one.
 */
import type { FastifyInstance } from 'fastify';
import { audit } from '../../../operators/audit.ts';
import type { WebContext } from '../context.ts';
import { checkLogin } from '../login.ts';
import { str, type PageData } from '../render.ts';
import { consolePage } from './page.ts';
import { registerCatalogRoutes } from './catalog.ts';
import { registerConnectorRoutes } from './connectors.ts';
import { registerCustomerRoutes } from './customers.ts';
import { registerWebhookRoutes } from './webhooks.ts';
import { dashboardData } from './dashboard.ts';
import { registerOrderRoutes } from './orders.ts';
import { registerOrderLifecycleRoutes } from './order-lifecycle.ts';
import { registerSubmissionRoutes } from './submissions.ts';

const PUBLIC = new Set(['/console/login']);

export function registerConsoleRoutes(app: FastifyInstance, ctx: WebContext): void {
  app.addHook('preHandler', async (req, reply) => {
    if (PUBLIC.has(req.routeOptions.url ?? '')) return;
    const s = req.webSession;
    const op = s && await ctx.store.getOperator(s.subjectId);
    if (!s || !op || op.disabledAt) {
      if (s) await ctx.sessions.end(req, reply, 'operator');
      if (req.method === 'GET') return reply.redirect('/console/login');
      return reply.code(401).view('error.eta', { title: 'Sessione scaduta', message: 'Accedere di nuovo per continuare.', back: '/console/login', area: 'console' });
    }
    req.operator = op;
  });

  app.get('/login', async (req, reply) => {
    if (req.webSession) return reply.redirect('/console/');
    return consolePage(ctx, req, reply, 'login.eta', loginData());
  });

  app.post('/login', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const user = str(body.user, 254) ?? '';
    const result = await checkLogin(ctx, req, user, typeof body.password === 'string' ? body.password : '', async (email) => {
      const op = await ctx.store.getOperatorByEmail(email);
      return op && !op.disabledAt ? { id: op.id, hash: op.passwordHash } : undefined;
    });
    if (!result.ok) {
      return consolePage(ctx, req, reply.code(result.status), 'login.eta', { ...loginData(), error: result.message, user });
    }
    await ctx.sessions.start(req, reply, 'operator', result.subjectId);
    await audit(ctx.store, user.toLowerCase(), 'login', 'operatore', user.toLowerCase());
    return reply.redirect('/console/', 303);
  });

  app.post('/logout', async (req, reply) => {
    const op = req.operator;
    await ctx.sessions.end(req, reply, 'operator');
    if (op) await audit(ctx.store, op.email, 'logout', 'operatore', op.email);
    return reply.redirect('/console/login', 303);
  });

  app.get('/', async (req, reply) => {
    return consolePage(ctx, req, reply, 'console/dashboard.eta', { title: 'Riepilogo', nav: 'dashboard', ...(await dashboardData(ctx)) });
  });

  app.get('/registro', async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const before = str(q.prima, 40);
    const entries = await ctx.store.listAudit({ before, limit: 50 });
    return consolePage(ctx, req, reply, 'console/audit.eta', {
      title: 'Registro attività', nav: 'audit', entries, next: entries.length === 50 ? entries[entries.length - 1]?.id : undefined,
    });
  });

  registerSubmissionRoutes(app, ctx);
  registerOrderRoutes(app, ctx);
  registerOrderLifecycleRoutes(app, ctx);
  registerCatalogRoutes(app, ctx);
  registerCustomerRoutes(app, ctx);
  registerConnectorRoutes(app, ctx);
  registerWebhookRoutes(app, ctx);
}

function loginData(): PageData {
  return {
    title: 'Accesso alla console', userLabel: 'Indirizzo e-mail',
    hint: 'Le credenziali sono fornite dall\'amministratore (comando "order-intake operator add").',
  };
}
