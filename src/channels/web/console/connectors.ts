/**
 * Connectors and production sites in the console: listed, a site or a connector added, a connector's key rotated.
 * Each action calls the same functions as `order-intake site add`, `connector add` and `connector rotate`
 * (src/connectors/), so the console and the CLI cannot drift; keys are shown once, as there.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addConnector, rotateConnectorKey, type IssuedConnector } from '../../../connectors/provision.ts';
import { addSite } from '../../../connectors/sites.ts';
import { isIntakeError } from '../../../domain/errors.ts';
import { CONNECTOR_FORMATS } from '../../../domain/store/connectors.ts';
import type { WebContext } from '../context.ts';
import { str } from '../render.ts';
import { actor, consolePage, record } from './page.ts';

/** The problem of a refused form, in Italian: the provisioning code's messages are English, for the CLI. */
function why(e: { code: string; message: string }, what: 'sito' | 'connettore'): string {
  if (e.code === 'CONFLICT') return what === 'sito' ? 'Esiste già un sito con questo codice.' : 'Esiste già un connettore così.';
  if (e.code === 'NOT_FOUND') return `Non trovato: ${e.message}.`;
  return `Dati non validi: ${e.message}.`;
}

function shown(i: IssuedConnector) {
  const c = i.connector;
  return [
    ['service-x-key', i.key], ['Formato', c.format], ['Clienti', c.allCustomers ? 'tutti' : c.customers.map((b) => b.code).join(', ')],
    ['Siti di produzione', c.sites.join(', ')], ['Indirizzi ammessi', c.allowIps.length ? c.allowIps.join(', ') : 'qualsiasi'],
  ];
}

export function registerConnectorRoutes(app: FastifyInstance, ctx: WebContext): void {
  async function listPage(req: FastifyRequest, reply: FastifyReply, extra: Record<string, unknown> = {}) {
    const [sites, connectors] = await Promise.all([ctx.store.listSites(), ctx.store.listConnectors({})]);
    return consolePage(ctx, req, reply, 'console/connectors.eta', {
      title: 'Connettori e siti', nav: 'connectors', sites, connectors, formats: CONNECTOR_FORMATS, ...extra,
    });
  }

  app.get('/connettori', async (req, reply) => listPage(req, reply));

  app.post('/connettori/siti', async (req, reply) => {
    actor(req);
    const b = (req.body ?? {}) as Record<string, unknown>;
    const form = { codice: str(b.codice, 40) ?? '', nome: str(b.nome, 200) ?? '' };
    try {
      const site = await addSite(ctx.store, { code: form.codice, name: form.nome });
      await record(ctx, req, 'sito.aggiungi', 'sito', site.code, { nome: site.name });
      return listPage(req, reply, { done: `Sito ${site.code} aggiunto.` });
    } catch (e) {
      if (!isIntakeError(e)) throw e;
      return listPage(req, reply.code(e.http), { siteError: why(e, 'sito'), siteForm: form });
    }
  });

  app.post('/connettori', async (req, reply) => {
    actor(req);
    const b = (req.body ?? {}) as Record<string, unknown>;
    const form = {
      nome: str(b.nome, 200) ?? '', cliente: str(b.cliente, 40) ?? '', clienti: str(b.clienti, 2000) ?? '',
      siti: str(b.siti, 500) ?? '', formato: str(b.formato, 10) ?? '', ip: str(b.ip, 2000) ?? '',
    };
    try {
      const issued = await addConnector(ctx.store, {
        name: form.nome, format: form.formato, sites: form.siti, ...(form.cliente ? { customer: form.cliente } : {}),
        ...(form.clienti ? { customers: form.clienti } : {}), ...(form.ip ? { allowIps: form.ip } : {}),
      });
      const c = issued.connector;
      await record(ctx, req, 'connettore.aggiungi', 'connettore', c.id, { nome: c.name, formato: c.format, siti: c.sites.join(',') });
      return consolePage(ctx, req, reply, 'console/credentials.eta', {
        title: `Connettore «${c.name}» attivato`, nav: 'connectors', items: shown(issued), back: '/console/connettori', backLabel: 'Torna ai connettori',
      });
    } catch (e) {
      if (!isIntakeError(e)) throw e;
      return listPage(req, reply.code(e.http), { connectorError: why(e, 'connettore'), connectorForm: form });
    }
  });

  app.post('/connettori/:id/chiave', async (req, reply) => {
    actor(req);
    const id = String((req.params as { id: string }).id).slice(0, 64);
    const issued = await rotateConnectorKey(ctx.store, id);
    await record(ctx, req, 'connettore.ruota_chiave', 'connettore', issued.connector.id, { nome: issued.connector.name });
    return consolePage(ctx, req, reply, 'console/credentials.eta', {
      title: `Nuova chiave per «${issued.connector.name}»`, nav: 'connectors', items: shown(issued),
      note: 'La chiave precedente non è più valida.', back: '/console/connettori', backLabel: 'Torna ai connettori',
    });
  });
}
