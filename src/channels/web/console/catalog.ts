/**
 * Customers and the article catalog in the console: customers listed, added (credentials shown once), API key
 * rotated, FTP/SFTP password reset; articles and units searched.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { importArticles } from '../../../catalog/import-articles.ts';
import { isIntakeError } from '../../../domain/errors.ts';
import { resetCustomerPassword } from '../../../customers/password.ts';
import { provisionCustomer, rotateApiKey } from '../../../customers/provision.ts';
import type { WebContext } from '../index.ts';
import { str } from '../render.ts';
import { actor, consolePage, record } from './routes.ts';

export function registerCatalogRoutes(app: FastifyInstance, ctx: WebContext): void {
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
    const [articles, units, total] = await Promise.all([ctx.store.searchArticles(q, 100), ctx.store.listUnits(), ctx.store.countArticles()]);
    return consolePage(ctx, req, reply, 'console/articles.eta', { title: 'Articoli e unità', nav: 'articles', q, articles, units, total, ...extra });
  }

  app.get('/articoli', async (req, reply) => articlesPage(req, reply, str((req.query as Record<string, unknown>).q, 64) ?? ''));

  // The catalog CSV goes to a temporary file and through the same import as `order-intake articles import`.
  app.post('/articoli/importa', async (req, reply) => {
    actor(req);
    const part = await req.file();
    if (!part) return articlesPage(req, reply.code(400), '', { error: 'Scegliere un file CSV.' });
    const dir = await mkdtemp(path.join(tmpdir(), 'intake-articoli-'));
    try {
      const file = path.join(dir, 'articoli.csv');
      await pipeline(part.file, createWriteStream(file));
      if (part.file.truncated) return articlesPage(req, reply.code(413), '', { error: 'Il file è troppo grande.' });
      try {
        const { rows } = await importArticles(ctx.store, file);
        await record(ctx, req, 'articoli.importa', 'catalogo', 'articoli', { righe: rows, file: part.filename });
        return articlesPage(req, reply, '', { done: `Catalogo aggiornato: ${rows} articoli importati da ${part.filename}.` });
      } catch (e) {
        // The import's messages name the line and the problem (in English, as the CLI prints them).
        return articlesPage(req, reply.code(400), '', { error: `Importazione non riuscita: ${(e as Error).message}` });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  app.get('/connettori', async (req, reply) => {
    const [sites, connectors] = await Promise.all([ctx.store.listSites(), ctx.store.listConnectors({})]);
    return consolePage(ctx, req, reply, 'console/connectors.eta', { title: 'Connettori e siti', nav: 'connectors', sites, connectors });
  });

}
