/**
 * REST channel: `POST /api/v1/ordini` (one order per call), the status queries and the customer's paged list of orders. It authenticates, turns the
 * request into a Submission, and renders the Outcome; everything else is the intake core's.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../../http/errors.ts';
import { INACTIVE_MESSAGE, isInactiveError } from '../../customers/active.ts';
import { renderOutcome, renderQueued } from '../../http/render.ts';
import { namesNothing, statusById, statusByRef } from '../../intake/status.ts';
import { declaredTypesList, formatOfMediaType } from '../../intake/formats/index.ts';
import { authenticateIntegration } from '../../handoff/integrations.ts';
import { INTEGRATION_LIST_PARAMS, LIST_PARAMS, listOrderPage, readListQuery } from './order-list.ts';
import type { Intake } from '../../intake/intake.ts';
import type { Principal } from '../../domain/types.ts';
import type { RestStore } from '../../domain/store/ports.ts';
import type { PeppolId } from '../../domain/store/store.ts';
import { responseToOrder } from '../../intake/order-response.ts';
import type { ApiKeyAuth } from '../../http/auth.ts';

export type { ApiKeyAuth } from '../../http/auth.ts';

export interface RestDeps {
  intake: Intake;
  store: RestStore;
  auth: ApiKeyAuth;
  /** The service's time zone: the days of `dal` and `al` are lived there. */
  timeZone: string;
  /** Our Peppol identifier (INTAKE_PEPPOL_ID), the seller of the Order Responses. */
  peppolId?: PeppolId;
}


declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/**
 * The version an If-Match header names (`"3"`, or `W/"3"`); `*` or no header: none. Anything else names no version
 * the order can be at, so the change is refused with 412 as RFC 9110 has it.
 */
function readIfMatch(header: string | string[] | undefined): string | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (value === undefined || value === '' || value === '*') return undefined;
  const first = value.split(',')[0]!.trim();
  return /^(?:W\/)?"([1-9]\d{0,8})"$/.exec(first)?.[1] ?? '0';
}

function mediaType(req: FastifyRequest): { type?: string; charset?: string } {
  const header = req.headers['content-type'];
  if (!header) return {};
  const [type, ...params] = header.split(';');
  const charset = params.map((p) => p.trim().match(/^charset="?([^";]+)"?$/i)?.[1]).find(Boolean);
  return { type: type!.trim().toLowerCase(), charset: charset?.toLowerCase() };
}

/** The paged list of orders (order-list.ts): GET /api/v1/ordini without riferimento_ordine. */
function listsOrders(req: FastifyRequest): boolean {
  return req.method === 'GET' && req.routeOptions.url === '/api/v1/ordini' && !('riferimento_ordine' in (req.query as object));
}

export function registerRestRoutes(app: FastifyInstance, deps: RestDeps): void {
  // Authentication runs before the body is read, so an unauthenticated client cannot make us buffer anything.
  async function authenticate(req: FastifyRequest, reply: FastifyReply) {
    const header = req.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (!key) return sendError(reply, 'API_KEY_MISSING');
    let principal: Principal | undefined;
    try {
      principal = await deps.auth.apiKey(key);
    } catch (e) {
      // The right key of a deactivated customer: 403 with the reason in Italian (src/customers/active.ts).
      if (isInactiveError(e)) return sendError(reply, 'CUSTOMER_INACTIVE', INACTIVE_MESSAGE);
      throw e;
    }
    const integration = principal ? undefined : await authenticateIntegration(deps.store, key);
    if (integration && listsOrders(req)) {
      // The one customer endpoint an integration may call: the list of every customer's orders, to resync after its
      // feed cursor expired (410 on GET /api/v1/eventi).
      req.integration = integration;
      return;
    }
    if (integration) {
      // A valid key, of an integration: it reads orders through the event feed, never as a customer.
      return sendError(reply, 'CUSTOMER_KEY_REQUIRED');
    }
    if (!principal) return sendError(reply, 'API_KEY_INVALID');
    req.principal = principal;
  }

  async function acceptable(req: FastifyRequest, reply: FastifyReply) {
    const { type } = mediaType(req);
    // The formats' own media types (the registry); anything else is 415 before the body is read.
    if (!type || formatOfMediaType(type) === undefined) {
      return sendError(reply, 'UNSUPPORTED_MEDIA_TYPE', `Unsupported media type "${type ?? ''}": send ${declaredTypesList()}`);
    }
  }

  app.post('/api/v1/ordini', { onRequest: [authenticate, acceptable] }, async (req, reply) => {
    const { type, charset } = mediaType(req);
    const sub = {
      principal: req.principal!,
      channel: 'rest' as const,
      mediaType: type,
      charset,
      raw: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
      meta: { remote: req.ip, requestId: String(req.id) },
      singleOrder: true,
    };
    if (/\brespond-async\b/i.test(String(req.headers.prefer ?? ''))) {
      const s = await deps.intake.submitInBackground(sub);
      const a = renderQueued(s);
      return reply.code(a.status).header('location', `/api/v1/ordini/${s.reservedOrderId}`).header('preference-applied', 'respond-async').send(a.body);
    }
    const { outcome } = await deps.intake.submit(sub);
    const a = renderOutcome(outcome);
    if (a.status === 201) reply.header('location', `/api/v1/ordini/${outcome.orders[0]!.id_ordine}`);
    return reply.code(a.status).send(a.body);
  });

  app.get<{ Params: { id: string } }>('/api/v1/ordini/:id', { onRequest: authenticate }, async (req, reply) => {
    const view = await statusById(deps.store, req.principal!.customerId, req.params.id);
    if (!view) return sendError(reply, 'ORDER_NOT_FOUND', `Order ${req.params.id} not found`);
    // The version is the entity tag: PUT and /annulla with If-Match change only the version the client has seen.
    if (view.versione !== undefined) reply.header('etag', `"${view.versione}"`);
    return view;
  });

  // The Peppol Order Response of an order that came as a UBL document, as it stands now (src/intake/order-response.ts).
  app.get<{ Params: { id: string } }>('/api/v1/ordini/:id/order-response', { onRequest: authenticate }, async (req, reply) => {
    const order = namesNothing(req.params.id) ? undefined : await deps.store.getOrder(req.principal!.customerId, req.params.id);
    if (!order) return sendError(reply, 'ORDER_NOT_FOUND', `Order ${req.params.id} not found`);
    const response = await responseToOrder(deps.store, order, { timeZone: deps.timeZone, ...(deps.peppolId ? { seller: deps.peppolId } : {}) }, new Date());
    if (!response) return sendError(reply, 'ORDER_NOT_FOUND', `Order ${req.params.id} did not come as a UBL document: it has no Order Response`);
    return reply.type('application/xml; charset=utf-8').header('content-disposition', `attachment; filename="${response.fileName}"`).send(response.xml);
  });

  // The document the order came as, byte for byte as received (a UBL order's original, a JSON body, a CSV file).
  app.get<{ Params: { id: string } }>('/api/v1/ordini/:id/documento', { onRequest: authenticate }, async (req, reply) => {
    const order = namesNothing(req.params.id) ? undefined : await deps.store.getOrder(req.principal!.customerId, req.params.id);
    const s = order && await deps.store.getSubmission(order.submissionId);
    if (!order || !s) return sendError(reply, 'ORDER_NOT_FOUND', `Order ${req.params.id} not found`);
    const type = s.mediaType ?? (/\.xml$/i.test(s.fileName ?? '') ? 'application/xml' : 'application/octet-stream');
    const name = (s.fileName ?? `${order.riferimento_ordine}${type.includes('xml') ? '.xml' : type.includes('json') ? '.json' : ''}`).replace(/[^A-Za-z0-9._-]+/g, '_');
    return reply.type(type).header('content-disposition', `attachment; filename="${name}"`).send(s.raw);
  });

  // The lifecycle (src/intake/lifecycle.ts): a change is the whole new order; a cancellation, an optional reason.
  // Both are submissions like a POST (stored, judged, answered with their outcome), naming the order by its id.
  async function change(req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply, azione: 'modifica' | 'annulla', raw: Buffer, type: string | undefined, charset?: string) {
    const principal = req.principal!;
    const order = namesNothing(req.params.id) ? undefined : await deps.store.getOrder(principal.customerId, req.params.id);
    if (!order) return sendError(reply, 'ORDER_NOT_FOUND', `Order ${req.params.id} not found`);
    const ifMatch = readIfMatch(req.headers['if-match']);
    const { outcome } = await deps.intake.submit({
      principal, channel: 'rest', mediaType: type, charset, raw, singleOrder: true,
      meta: { remote: req.ip, requestId: String(req.id), azione, ordine: order.id_ordine, ...(ifMatch !== undefined ? { ifMatch } : {}) },
    });
    const a = renderOutcome(outcome);
    const done = outcome.orders[0];
    if (done?.esito === 'ok' && done.versione !== undefined) reply.header('etag', `"${done.versione}"`);
    return reply.code(a.status).send(a.body);
  }

  app.put<{ Params: { id: string } }>('/api/v1/ordini/:id', { onRequest: [authenticate, acceptable] }, async (req, reply) => {
    const { type, charset } = mediaType(req);
    return change(req, reply, 'modifica', Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), type, charset);
  });

  app.post<{ Params: { id: string } }>('/api/v1/ordini/:id/annulla', { onRequest: authenticate }, async (req, reply) => {
    const { type } = mediaType(req);
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (raw.length > 0 && type !== 'application/json') {
      return sendError(reply, 'UNSUPPORTED_MEDIA_TYPE', `Unsupported media type "${type ?? ''}": send application/json`);
    }
    let motivo: unknown;
    if (raw.length > 0) {
      try {
        motivo = (JSON.parse(raw.toString('utf8')) as { motivo?: unknown } | null)?.motivo;
      } catch {
        return sendError(reply, 'INVALID_JSON');
      }
    }
    const order = namesNothing(req.params.id) ? undefined : await deps.store.getOrder(req.principal!.customerId, req.params.id);
    if (!order) return sendError(reply, 'ORDER_NOT_FOUND', `Order ${req.params.id} not found`);
    // What is judged (and kept as the submission): the cancellation as an order names it, with the reason sent.
    const body = { codice_cliente: order.codice_cliente, riferimento_ordine: order.riferimento_ordine, azione: 'annulla', ...(motivo !== undefined ? { motivo } : {}) };
    return change(req, reply, 'annulla', Buffer.from(JSON.stringify(body)), 'application/json');
  });

  app.get<{ Querystring: Record<string, unknown> }>('/api/v1/ordini', { onRequest: authenticate }, async (req, reply) => {
    // Without riferimento_ordine: the customer's orders, paged (order-list.ts); with it, the one order, as always.
    if (listsOrders(req)) {
      const read = readListQuery(req.query, deps.timeZone, req.integration ? INTEGRATION_LIST_PARAMS : LIST_PARAMS);
      if ('errors' in read) return sendError(reply, 'INVALID_PARAMETERS', read.errors);
      if (req.principal) return listOrderPage(deps.store, { ...read.page, customerId: req.principal.customerId });
      const code = req.query.cliente;
      if (typeof code !== 'string') return listOrderPage(deps.store, read.page);
      const customer = namesNothing(code) ? undefined : await deps.store.getCustomerByCode(code);
      if (!customer) return sendError(reply, 'INVALID_PARAMETERS', [`Nessun cliente con codice "${code}"`]);
      return listOrderPage(deps.store, { ...read.page, customerId: customer.id });
    }
    const ref = req.query.riferimento_ordine;
    if (typeof ref !== 'string' || ref.trim() === '') {
      return sendError(reply, 'INVALID_PARAMETERS', ['riferimento_ordine should not be empty', 'riferimento_ordine must be a string']);
    }
    const view = await statusByRef(deps.store, req.principal!.customerId, ref.trim());
    if (!view) return sendError(reply, 'ORDER_NOT_FOUND', `No order with riferimento_ordine "${ref}"`);
    return view;
  });
}
