/**
 * The connector path: prepress systems and ERPs submit orders with a `service-x-key`.
 *
 *   POST /api/v1/connettori/ordini          the site comes from the payload, else the key's only site
 *   POST /api/v1/connettori/{sito}/ordini   for flows that cannot name the site inside the payload
 *   GET  /api/v1/connettori/ordini/{id}     and ?riferimento_ordine=[&codice_cliente=]: the REST status views, for the
 *                                           customers the connector is bound to, with what the ticket said
 *
 * Before the body is read: the key (401), the source address (403), the site in the path (403 FORBIDDEN_SITE)
 * and the media type (415). Nothing is stored for a refused request. JMF/XJMF queries (KnownMessages, …) are
 * answered at once and not stored either: they carry no order. A PrintTalk 2.x document is answered as PrintTalk
 * (printtalk.ts): a PurchaseOrder or Cancellation stored and judged, a status request or RFQ answered at once.
 * Everything else is stored first (durable before answered), judged at once, and answered as JMF/XJMF or in the
 * REST shapes (render.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateConnector, type ConnectorCaller } from '../../connectors/auth.ts';
import { allows } from '../../connectors/ip-allow.ts';
import { INACTIVE_MESSAGE, isInactiveError } from '../../customers/active.ts';
import { SITE_CODE_PATTERN } from '../../connectors/sites.ts';
import { ERROR_CATALOG } from '../../domain/errors.ts';
import {
  answerJmfQuery, isJmfContentType, JMF_RETURN_CODES, readJmfRequest, readPrintTalkRequest, renderJmfResponse, type JmfRequestInfo,
} from '../../intake/connectors/index.ts';
import { connectorStatusById, connectorStatusByRef } from '../../intake/connector-status.ts';
import type { Intake } from '../../intake/intake.ts';
import type { ConnectorChannelStore } from '../../domain/store/ports.ts';
import { sendError } from '../../http/errors.ts';
import { answerPrintTalk } from './printtalk.ts';
import { renderConnectorOutcome, renderJmfOutcome } from './render.ts';
import { answerResubmit, isResubmit } from './resubmit.ts';
import { answerStatusSignal, isStatusSignal } from './status-signal.ts';

export interface ConnectorRouteDeps {
  intake: Intake;
  store: ConnectorChannelStore;
  /** A production status was committed (a JMF Status signal): wakes the feed's long polls and the hand-off. */
  onEvent?: () => void;
}

export const CONNECTOR_KEY_HEADER = 'service-x-key';

/** Media types taken on the connector path; anything else is 415 before the body is read. */
export const CONNECTOR_MEDIA_TYPES = [
  'application/vnd.cip4-jdf+xml', 'application/vnd.cip4-xjdf+xml', 'application/vnd.cip4-jmf+xml', 'application/vnd.cip4-xjmf+xml',
  'multipart/related', 'application/json', 'application/xml', 'text/xml',
] as const;

/** JMF / XJMF messages that submit a job; every other message type is a query answered without storing. */
const SUBMIT_MESSAGES = new Set(['SubmitQueueEntry', 'CommandSubmitQueueEntry']);

declare module 'fastify' {
  interface FastifyRequest {
    connectorCaller?: ConnectorCaller;
  }
}

function contentTypeOf(req: FastifyRequest): string | undefined {
  const h = req.headers['content-type'];
  return typeof h === 'string' && h.trim() !== '' ? h.trim() : undefined;
}

function splitType(header: string | undefined): { type?: string; charset?: string } {
  if (!header) return {};
  const [type, ...params] = header.split(';');
  const charset = params.map((p) => p.trim().match(/^charset="?([^";]+)"?$/i)?.[1]).find(Boolean);
  return { type: type!.trim().toLowerCase(), charset: charset?.toLowerCase() };
}

/**
 * Types under which a JMF/XJMF message may arrive besides its own: generic XML, and packages. A JDF or XJDF ticket
 * type is a ticket, so its body is not parsed an extra time just to find out it is not a message.
 */
function mayHoldMessage(type: string | undefined): boolean {
  return type === 'application/xml' || type === 'text/xml' || type === 'multipart/related';
}

/** PrintTalk has no media type of its own: it comes as generic XML, or labelled as the XJDF it carries. */
function mayHoldPrintTalk(type: string | undefined): boolean {
  return type === 'application/xml' || type === 'text/xml' || type === 'application/vnd.cip4-xjdf+xml';
}

export function registerConnectorRoutes(app: FastifyInstance, deps: ConnectorRouteDeps): void {
  async function authenticate(req: FastifyRequest, reply: FastifyReply) {
    const header = req.headers[CONNECTOR_KEY_HEADER];
    const key = Array.isArray(header) ? header[0] : header;
    if (!key) return sendError(reply, 'CONNECTOR_KEY_MISSING', `Missing ${CONNECTOR_KEY_HEADER} header`);
    let caller: ConnectorCaller | undefined;
    try {
      caller = await authenticateConnector(deps.store, key);
    } catch (e) {
      // The right key of a connector whose customer is deactivated: 403 with the reason (src/customers/active.ts).
      if (isInactiveError(e)) return sendError(reply, 'CUSTOMER_INACTIVE', INACTIVE_MESSAGE);
      throw e;
    }
    if (!caller) return sendError(reply, 'CONNECTOR_KEY_INVALID');
    if (!allows(caller.connector.allowIps, req.ip)) {
      return sendError(reply, 'ADDRESS_NOT_ALLOWED', `This connector key may not be used from ${req.ip}`);
    }
    req.connectorCaller = caller;
  }

  /** A site in the path must be one the key is bound to; which sites exist is not revealed to others. */
  async function pathSite(req: FastifyRequest<{ Params: { sito?: string } }>, reply: FastifyReply) {
    const sito = req.params.sito;
    if (sito === undefined) return;
    const code = sito.trim().toUpperCase();
    if (!SITE_CODE_PATTERN.test(code) || !req.connectorCaller!.principal.sites.includes(code)) {
      return sendError(reply, 'FORBIDDEN_SITE', `${ERROR_CATALOG.FORBIDDEN_SITE.message}: "${sito.slice(0, 32)}"`);
    }
  }

  async function acceptable(req: FastifyRequest, reply: FastifyReply) {
    const { type } = splitType(contentTypeOf(req));
    if (!type || !(CONNECTOR_MEDIA_TYPES as readonly string[]).includes(type)) {
      return sendError(reply, 'UNSUPPORTED_MEDIA_TYPE', `Unsupported media type "${type ?? ''}": send ${CONNECTOR_MEDIA_TYPES.join(', ')}`);
    }
  }

  async function submit(req: FastifyRequest<{ Params: { sito?: string } }>, reply: FastifyReply) {
    const caller = req.connectorCaller!;
    const header = contentTypeOf(req);
    const { type, charset } = splitType(header);
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const store = () => deps.intake.submit({
      principal: caller.principal,
      channel: 'connector',
      mediaType: type,
      charset,
      raw,
      // contentType keeps the whole header: the decoder needs the multipart boundary and the type= parameter.
      meta: { remote: req.ip, requestId: String(req.id), contentType: header ?? '' },
      site: req.params.sito?.trim().toUpperCase(),
    });

    // Only XJDF connectors speak PrintTalk; an ERP's XML connector keeps its mapping whatever its root is called.
    const printTalk = caller.connector.format === 'xjdf' && mayHoldPrintTalk(type) ? readPrintTalkRequest(raw, header) : undefined;
    if (printTalk) {
      const a = await answerPrintTalk(printTalk, { store: deps.store, connector: caller.connector, submit: async () => (await store()).outcome });
      return reply.code(200).header('content-type', a.contentType).send(a.body);
    }

    const jmfType = isJmfContentType(header);
    const jmf: JmfRequestInfo | undefined = jmfType || mayHoldMessage(type) ? readJmfRequest(raw, header) : undefined;
    const isJmf = jmfType || jmf !== undefined;
    // An unreadable message is answered in the dialect its Content-Type announced.
    const kind = jmf?.kind ?? (/vnd\.cip4-xjmf\+xml/i.test(header ?? '') ? 'xjmf' : 'jmf');

    if (jmf && isStatusSignal(jmf)) {
      const a = await answerStatusSignal(deps.store, caller.connector, jmf, () => deps.onEvent?.());
      return reply.code(200).header('content-type', a.contentType).send(a.body);
    }
    if (jmf && isResubmit(jmf)) {
      const a = await answerResubmit(deps.store, caller.connector, jmf);
      return reply.code(200).header('content-type', a.contentType).send(a.body);
    }
    if (jmf && !SUBMIT_MESSAGES.has(jmf.messageType)) {
      const a = answerJmfQuery(jmf) ?? renderJmfResponse(jmf, {
        ok: false, returnCode: JMF_RETURN_CODES.notImplemented, text: [`${jmf.messageType} is not supported here: send SubmitQueueEntry (JMF) or CommandSubmitQueueEntry (XJMF)`],
      }, jmf.kind);
      return reply.code(200).header('content-type', a.contentType).send(a.body);
    }

    const site = req.params.sito?.trim().toUpperCase();
    const { outcome } = await store();

    if (isJmf) {
      const a = renderJmfOutcome(jmf, outcome, kind);
      return reply.code(200).header('content-type', a.contentType).send(a.body);
    }
    const a = renderConnectorOutcome(outcome, site);
    const only = outcome.orders.length === 1 ? outcome.orders[0] : undefined;
    if (a.status === 201 && only?.id_ordine) reply.header('location', `/api/v1/connettori/ordini/${only.id_ordine}`);
    return reply.code(a.status).send(a.body);
  }

  const onRequest = [authenticate, pathSite, acceptable];
  app.post('/api/v1/connettori/ordini', { onRequest }, submit);
  app.post<{ Params: { sito: string } }>('/api/v1/connettori/:sito/ordini', { onRequest }, submit);

  app.get<{ Params: { id: string } }>('/api/v1/connettori/ordini/:id', { onRequest: authenticate }, async (req, reply) => {
    const view = await connectorStatusById(deps.store, req.connectorCaller!.connector, req.params.id);
    if (!view) return sendError(reply, 'ORDER_NOT_FOUND', `Order ${req.params.id.slice(0, 100)} not found`);
    return view;
  });

  app.get<{ Querystring: { riferimento_ordine?: string; codice_cliente?: string } }>('/api/v1/connettori/ordini', { onRequest: authenticate }, async (req, reply) => {
    const ref = req.query.riferimento_ordine;
    if (typeof ref !== 'string' || ref.trim() === '') {
      return sendError(reply, 'INVALID_PARAMETERS', ['riferimento_ordine should not be empty', 'riferimento_ordine must be a string']);
    }
    const codice = typeof req.query.codice_cliente === 'string' && req.query.codice_cliente.trim() !== '' ? req.query.codice_cliente.trim() : undefined;
    const found = await connectorStatusByRef(deps.store, req.connectorCaller!.connector, ref.trim(), codice);
    if (found.kind === 'ambiguous') {
      return sendError(reply, 'AMBIGUOUS_REFERENCE', `More than one order has riferimento_ordine "${ref.slice(0, 100)}" (customers ${found.codes.join(', ')}): add codice_cliente`);
    }
    if (found.kind === 'none') return sendError(reply, 'ORDER_NOT_FOUND', `No order with riferimento_ordine "${ref.slice(0, 100)}"`);
    return found.view;
  });
}
