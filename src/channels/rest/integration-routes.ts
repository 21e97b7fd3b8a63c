/**
 * What integrations (ERP/MIS, with an `oii_` key in X-API-Key) may call, and nothing else: the order event feed
 * `GET /api/v1/eventi`, the production status report `POST /api/v1/ordini/{id_ordine}/stato` and production's decision
 * on a customer's request `POST /api/v1/ordini/{id_ordine}/richieste/{id_richiesta}`. A customer's key
 * here is 403 (it is valid, but not for this), as an integration key is on the customer endpoints (routes.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CATALOG, isIntakeError } from '../../domain/errors.ts';
import { sendError } from '../../http/errors.ts';
import { isInactiveError } from '../../customers/active.ts';
import { DEFAULT_FEED_LIMIT, MAX_FEED_LIMIT, MAX_WAIT_SECONDS, readFeed } from '../../handoff/feed.ts';
import { authenticateIntegration, type IntegrationPrincipal } from '../../handoff/integrations.ts';
import { MAX_NOTE_LENGTH, updateProductionState } from '../../handoff/production.ts';
import type { EventReader } from '../../domain/order-events.ts';
import type { EventSignal } from '../../handoff/signal.ts';
import { hasLoneSurrogate } from '../../domain/text.ts';
import { PRODUCTION_STATES, type ProductionState } from '../../domain/types.ts';
import { decideRequest, requestEntry } from '../../intake/lifecycle.ts';
import { registeredView } from '../../domain/order-view.ts';
import { namesNothing } from '../../intake/status.ts';
import type { IntegrationRoutesStore } from '../../domain/store/ports.ts';
import type { ApiKeyAuth } from './routes.ts';

/**
 * Control characters a note may not hold: it is shown to customers, written into XML exports (XML 1.0 has no place
 * for them) and PostgreSQL cannot store NUL in text. Line breaks and tabs are text.
 */
// eslint-disable-next-line no-control-regex
const CONTROL_IN_NOTE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** What is wrong with a production note (`nota`), in Italian; empty when it is fine or absent. */
function notaProblems(nota: unknown): string[] {
  if (nota === undefined) return [];
  if (typeof nota !== 'string' || nota.length > MAX_NOTE_LENGTH) return [`nota deve essere un testo di al massimo ${MAX_NOTE_LENGTH} caratteri`];
  if (CONTROL_IN_NOTE.test(nota)) return ['nota non può contenere caratteri di controllo (sono ammessi solo a capo e tabulazione)'];
  // A JSON escape such as "\ud83c" (text cut inside an emoji) is no character: PostgreSQL cannot store it.
  if (hasLoneSurrogate(nota)) return ['nota contiene un carattere non valido (metà di una coppia surrogata UTF-16)'];
  return [];
}

function notaOf(nota: unknown): string | undefined {
  return typeof nota === 'string' && nota.trim() !== '' ? nota.trim() : undefined;
}

/** The request's JSON object (anything else is `{}`), or undefined once an error was answered. */
async function jsonBody(req: FastifyRequest, reply: FastifyReply): Promise<Record<string, unknown> | undefined> {
  const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    await sendError(reply, 'UNSUPPORTED_MEDIA_TYPE', `Unsupported media type "${type}": send application/json`);
    return undefined;
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '');
  } catch {
    await sendError(reply, 'INVALID_JSON', [ERROR_CATALOG.INVALID_JSON.message]);
    return undefined;
  }
  return (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
}

export interface IntegrationRouteDeps {
  store: IntegrationRoutesStore;
  reader: EventReader;
  signal: EventSignal;
  /** A customer's key is told apart from a wrong key: 403, not 401. */
  auth: ApiKeyAuth;
  /** INTAKE_FEED_POLL_MS. */
  pollMs: number;
}

/**
 * Long polls waiting at once in this instance. Each holds a socket and reads the store every pollMs; the bound keeps
 * a misbehaving client (or many ERPs) from turning the feed into a load on the database. Far above real use: one
 * or two readers per ERP.
 */
export const MAX_WAITING_POLLS = 200;

declare module 'fastify' {
  interface FastifyRequest {
    integration?: IntegrationPrincipal;
  }
}

/** A whole number in [min, max] from a query parameter, the fallback when absent, or undefined when invalid. */
function whole(value: unknown, fallback: number, min: number, max: number): number | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d{1,6}$/.test(value)) return undefined;
  const n = Number(value);
  return n >= min && n <= max ? n : undefined;
}

export function registerIntegrationRoutes(app: FastifyInstance, deps: IntegrationRouteDeps): void {
  let waiting = 0;

  async function authenticate(req: FastifyRequest, reply: FastifyReply) {
    const header = req.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (!key) return sendError(reply, 'API_KEY_MISSING');
    const integration = await authenticateIntegration(deps.store, key);
    if (integration) {
      req.integration = integration;
      return;
    }
    // A deactivated customer's key is still a customer's key: the same answer.
    if (await deps.auth.apiKey(key).catch((e: unknown) => { if (isInactiveError(e)) return true; throw e; })) {
      return sendError(reply, 'INTEGRATION_KEY_REQUIRED');
    }
    return sendError(reply, 'API_KEY_INVALID');
  }

  app.get<{ Querystring: Record<string, unknown> }>('/api/v1/eventi', { onRequest: authenticate }, async (req, reply) => {
    const { dopo } = req.query;
    const limit = whole(req.query.limite, DEFAULT_FEED_LIMIT, 1, MAX_FEED_LIMIT);
    const wait = whole(req.query.attesa, 0, 0, MAX_WAIT_SECONDS);
    const problems = [
      ...(dopo !== undefined && typeof dopo !== 'string' ? ['dopo deve comparire una sola volta'] : []),
      ...(limit === undefined ? [`limite deve essere un numero intero da 1 a ${MAX_FEED_LIMIT}`] : []),
      ...(wait === undefined ? [`attesa deve essere un numero intero di secondi da 0 a ${MAX_WAIT_SECONDS}`] : []),
    ];
    if (problems.length > 0) return sendError(reply, 'INVALID_PARAMETERS', problems);
    const cursor = typeof dopo === 'string' ? dopo : null;
    let waitMs = wait! * 1000;
    if (waitMs > 0 && waiting >= MAX_WAITING_POLLS) {
      return sendError(reply.header('retry-after', '1'), 'TOO_MANY_WAITING');
    }
    // The client going away ends the wait (its socket closes), so an abandoned long poll does not keep reading.
    const gone = new AbortController();
    const onClose = () => gone.abort();
    req.raw.socket?.once('close', onClose);
    if (waitMs > 0) waiting++;
    else waitMs = 0;
    try {
      const eventi = await readFeed({ reader: deps.reader, signal: deps.signal, pollMs: deps.pollMs },
        { cursor, limit: limit!, waitMs, abort: gone.signal });
      return { eventi, cursore: eventi.length > 0 ? eventi[eventi.length - 1]!.cursor : cursor };
    } catch (e) {
      if (isIntakeError(e) && (e.code === 'INVALID_CURSOR' || e.code === 'CURSOR_EXPIRED')) return sendError(reply, e.code, e.messages);
      throw e;
    } finally {
      if (waitMs > 0) waiting--;
      req.raw.socket?.off('close', onClose);
    }
  });

  app.post<{ Params: { id: string } }>('/api/v1/ordini/:id/stato', { onRequest: authenticate }, async (req, reply) => {
    const b = await jsonBody(req, reply);
    if (b === undefined) return reply;
    const problems: string[] = [];
    if (!PRODUCTION_STATES.includes(b.stato as ProductionState)) {
      problems.push(`stato deve essere uno di: ${PRODUCTION_STATES.join(', ')}`);
    }
    problems.push(...notaProblems(b.nota));
    if (problems.length > 0) return sendError(reply, 'INVALID_PARAMETERS', problems);
    const nota = notaOf(b.nota);
    // NOT_FOUND and STATE_TRANSITION are IntakeErrors: the server's error handler answers them by their code.
    const { changed, order } = await updateProductionState(
      { store: deps.store, onEvent: () => deps.signal.notify() },
      { orderId: req.params.id, stato: b.stato as ProductionState, nota, integration: req.integration!.name },
    );
    return reply.code(200).send({ esito: 'ok', aggiornato: changed, ordine: order });
  });

  // Production decides a change or cancellation the customer asked once work had started (src/intake/lifecycle.ts).
  app.post<{ Params: { id: string; richiesta: string } }>('/api/v1/ordini/:id/richieste/:richiesta', { onRequest: authenticate }, async (req, reply) => {
    const b = await jsonBody(req, reply);
    if (b === undefined) return reply;
    const problems: string[] = [];
    if (b.esito !== 'accettata' && b.esito !== 'rifiutata') problems.push('esito deve essere "accettata" oppure "rifiutata"');
    problems.push(...notaProblems(b.nota));
    if (problems.length > 0) return sendError(reply, 'INVALID_PARAMETERS', problems);
    if (namesNothing(req.params.id) || namesNothing(req.params.richiesta)) return sendError(reply, 'ORDER_NOT_FOUND', `Ordine ${req.params.id} non trovato`);
    const nota = notaOf(b.nota);
    // NOT_FOUND, REQUEST_DECIDED and STATE_TRANSITION are IntakeErrors: the error handler answers them by their code.
    const { changed, order, request } = await decideRequest(
      { store: deps.store, onEvent: () => deps.signal.notify() },
      { orderId: req.params.id, requestId: req.params.richiesta, esito: b.esito as 'accettata' | 'rifiutata', by: req.integration!.name, ...(nota !== undefined ? { nota } : {}) },
    );
    return reply.code(200).send({ esito: 'ok', aggiornato: changed, richiesta: requestEntry(request), ordine: registeredView(order) });
  });
}
