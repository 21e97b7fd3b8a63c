/**
 * Customers and the article catalog in the console: customers listed, added (credentials shown once), API key
 * rotated, FTP/SFTP password reset; articles and units searched, articles deactivated, activated again or removed. One customer's page is customers.ts, connectors
 * and sites connectors.ts.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IntakeError, isIntakeError } from '../../../domain/errors.ts';
import { audit } from '../../../operators/audit.ts';
import { resetCustomerPassword } from '../../../customers/password.ts';
import { provisionCustomer, rotateApiKey } from '../../../customers/provision.ts';
import type { WebContext } from '../context.ts';
import { safeFileName } from '../format.ts';
import { idParam, str } from '../render.ts';
import { WITHDRAW_AUDIT, withdrawArticles, type WithdrawAction } from '../../../catalog/withdraw.ts';
import { createImportJobs, jobView } from './import-jobs.ts';
import { actor, consolePage, record } from './page.ts';

/** Deactivated articles listed under the catalog: the handful an operator took out of service. */
const INACTIVE_SHOWN = 200;

const WITHDRAW_PATHS = { disattiva: 'deactivate', riattiva: 'activate', rimuovi: 'remove' } as const satisfies Record<string, WithdrawAction>;
type WithdrawPath = keyof typeof WITHDRAW_PATHS;
const WITHDRAW_DONE: Record<WithdrawPath, string> = {
  disattiva: 'disattivato: gli ordini che lo contengono sono rifiutati perché non più disponibile',
  riattiva: 'di nuovo ordinabile', rimuovi: 'rimosso dal catalogo',
};

export function registerCatalogRoutes(app: FastifyInstance, ctx: WebContext): void {
  const jobs = createImportJobs();
  async function listPage(req: FastifyRequest, reply: FastifyReply, extra: Record<string, unknown> = {}) {
    const customers = await ctx.store.listCustomers();
    return consolePage(ctx, req, reply, 'console/customers.eta', { title: 'Clienti', nav: 'customers', customers, ...extra });
  }

  app.get('/clienti', async (req, reply) => listPage(req, reply));

  app.post('/clienti', async (req, reply) => {
    actor(req);
    const b = (req.body ?? {}) as Record<string, unknown>;
    const code = str(b.codice, 40) ?? '';
    const name = str(b.nome, 200) ?? '';
    try {
      const p = await provisionCustomer(ctx.store, { code, name }, ctx.mailDomain);
      await record(ctx, req, 'cliente.aggiungi', 'cliente', p.customer.code, { nome: p.customer.name });
      return consolePage(ctx, req, reply, 'console/credentials.eta', {
        title: `Cliente ${p.customer.code} attivato`, nav: 'customers', code: p.customer.code,
        items: [['Chiave API (REST, SOAP)', p.apiKey], ['Casella e-mail ordini', p.mailbox], ['Utente FTP/SFTP e portale', p.ftpUser], ['Password FTP/SFTP e portale', p.ftpPassword]],
      });
    } catch (e) {
      if (!isIntakeError(e)) throw e;
      const error = e.code === 'CONFLICT' ? `Esiste già un cliente con codice «${code}».` : 'Codice o nome non validi: il codice ha da 1 a 32 lettere, cifre, punti, trattini.';
      return listPage(req, reply.code(e.http), { error, form: { codice: code, nome: name } });
    }
  });

  app.post('/clienti/:code/chiave', async (req, reply) => {
    actor(req);
    const code = String((req.params as { code: string }).code);
    const key = await rotateApiKey(ctx.store, code);
    await record(ctx, req, 'cliente.ruota_chiave', 'cliente', code);
    return consolePage(ctx, req, reply, 'console/credentials.eta', {
      title: `Nuova chiave API per ${code}`, nav: 'customers', code, items: [['Chiave API (REST, SOAP)', key]],
      note: 'La chiave precedente non è più valida.',
    });
  });

  app.post('/clienti/:code/password', async (req, reply) => {
    actor(req);
    const code = String((req.params as { code: string }).code);
    const { user, password } = await resetCustomerPassword(ctx.store, code);
    await record(ctx, req, 'cliente.reimposta_password', 'cliente', code);
    return consolePage(ctx, req, reply, 'console/credentials.eta', {
      title: `Nuova password per ${code}`, nav: 'customers', code, items: [['Utente FTP/SFTP e portale', user], ['Password', password]],
      note: 'La password precedente non è più valida e le sessioni aperte nel portale sono chiuse.',
    });
  });

  async function articlesPage(req: FastifyRequest, reply: FastifyReply, q: string, extra: Record<string, unknown> = {}) {
    const [articles, units, total, inactive] = await Promise.all([
      ctx.store.searchArticles({ text: q.trim(), limit: 100, demo: true }), ctx.store.listUnits(), ctx.store.countArticles(), ctx.store.listInactiveArticles(INACTIVE_SHOWN),
    ]);
    return consolePage(ctx, req, reply, 'console/articles.eta', { title: 'Articoli e unità', nav: 'articles', q, articles, units, total, inactive, ...extra });
  }

  app.get('/articoli', async (req, reply) => {
    const query = req.query as Record<string, unknown>;
    const done = WITHDRAW_DONE[String(query.fatto) as WithdrawPath];
    const code = str(query.codice, 200);
    return articlesPage(req, reply, str(query.q, 64) ?? '', done && code ? { done: `Articolo «${code}» ${done}.` } : {});
  });

  // One article per button (the CLI takes lists); a redirect after the change, so reloading the page repeats nothing.
  for (const [path, action] of Object.entries(WITHDRAW_PATHS) as [WithdrawPath, WithdrawAction][]) {
    app.post(`/articoli/:code/${path}`, async (req, reply) => {
      actor(req);
      const code = String((req.params as { code: string }).code);
      try {
        const { changed } = await withdrawArticles(ctx.store, action, [code]);
        for (const c of changed) await record(ctx, req, WITHDRAW_AUDIT[action], 'articolo', c);
      } catch (e) {
        if (!isIntakeError(e) || e.code !== 'NOT_FOUND') throw e;
        return articlesPage(req, reply.code(404), '', { error: `L'articolo «${code}» non è nel catalogo.` });
      }
      return reply.redirect(`/console/articoli?fatto=${path}&codice=${encodeURIComponent(code)}`, 303);
    });
  }

  // The catalog CSV goes to a temporary file and through the same import as `order-intake articles import`, in the
  // background (import-jobs.ts): the answer is a page whose progress bar follows the import.
  app.post('/articoli/importa', async (req, reply) => {
    const op = actor(req);
    const part = await req.file();
    if (!part) return articlesPage(req, reply.code(400), '', { error: 'Scegliere un file CSV.' });
    const dir = await mkdtemp(path.join(tmpdir(), 'intake-articoli-'));
    const file = path.join(dir, 'articoli.csv');
    try {
      await pipeline(part.file, createWriteStream(file));
    } catch (e) {
      await rm(dir, { recursive: true, force: true });
      throw e;
    }
    if (part.file.truncated) {
      await rm(dir, { recursive: true, force: true });
      return articlesPage(req, reply.code(413), '', { error: 'Il file è troppo grande.' });
    }
    const name = safeFileName(part.filename, 'articoli.csv');
    const job = jobs.start(ctx.store, file, dir, name, op.email, async (j) => {
      await audit(ctx.store, j.operator, 'articoli.importa', 'catalogo', 'articoli',
        j.state === 'done' ? { righe: j.rows, file: j.fileName } : { file: j.fileName, errore: j.error });
    });
    return reply.redirect(`/console/articoli/importazioni/${job.id}`, 303);
  });

  app.get('/articoli/importazioni/:id', async (req, reply) => {
    const job = jobs.get(idParam((req.params as { id: string }).id));
    if (!job) throw new IntakeError('NOT_FOUND');
    return consolePage(ctx, req, reply, 'console/import.eta', { title: 'Importazione del catalogo', nav: 'articles', job: { id: job.id, ...jobView(job) }, script: 'importa.js' });
  });

  // Polled by importa.js while the import runs.
  app.get('/articoli/importazioni/:id/stato', async (req, reply) => {
    const job = jobs.get(idParam((req.params as { id: string }).id));
    if (!job) throw new IntakeError('NOT_FOUND');
    return reply.header('cache-control', 'no-store').send(jobView(job));
  });

}
