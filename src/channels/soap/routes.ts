/**
 * SOAP channel: `GET /ws/ordini?wsdl` and `POST /ws/ordini` (InviaOrdine, ModificaOrdine, AnnullaOrdine, StatoOrdine), SOAP 1.1 over the one HTTP
 * server. Like REST it only authenticates, hands the submission to the intake core and renders the outcome; the
 * difference is where things are: the key is in a SOAP header, so the envelope is read before authenticating,
 * and every failure is a SOAP Fault (HTTP 500, as SOAP 1.1 and WS-I Basic Profile require).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IntakeError, isIntakeError } from '../../domain/errors.ts';
import { statusById, statusByRef, type OrderStatus } from '../../intake/status.ts';
import type { Intake } from '../../intake/intake.ts';
import type { OrderOutcome, Principal } from '../../domain/types.ts';
import type { StatusStore } from '../../domain/store/ports.ts';
import { sendError } from '../../http/errors.ts';
import type { ApiKeyAuth } from '../../http/auth.ts';
import { readEnvelope, textOf, type SoapRequest } from './envelope.ts';
import { SoapFault } from './fault.ts';
import { changeResponse, faultResponse, inviaOrdineResponse, statoOrdineResponse } from './responses.ts';
import { namespaceFor, SERVICE_PATH, wsdlFor } from './wsdl.ts';

export interface SoapDeps {
  intake: Intake;
  store: StatusStore;
  auth: ApiKeyAuth;
  /** Base URL customers use (e.g. http://localhost:8080): the namespace and the WSDL's address derive from it. */
  publicUrl: () => string;
}

const XML_TYPE = 'text/xml; charset=utf-8';
/**
 * An id_ordine is a UUID and a reference at most 64 characters (stage A); anything much longer cannot be an order,
 * is not worth a query, and is not echoed whole into the fault.
 */
const MAX_LOOKUP_CHARS = 100;

function declaredCharset(req: FastifyRequest): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(String(req.headers['content-type'] ?? ''))?.[1]?.toLowerCase();
}

function sendXml(reply: FastifyReply, status: number, xml: string): FastifyReply {
  return reply.code(status).header('content-type', XML_TYPE).send(xml);
}

function asFault(e: unknown, req: FastifyRequest): SoapFault {
  if (e instanceof SoapFault) return e;
  if (isIntakeError(e)) return SoapFault.fromIntakeError(e);
  req.log.error({ err: e }, 'SOAP request failed');
  return SoapFault.internal();
}

/** A single optional text field of the request; repeated or structured elements are refused, not guessed at. */
function field(content: Record<string, unknown>, name: string): string | undefined {
  const v = content[name];
  if (v === undefined) return undefined;
  const t = textOf(v);
  if (t === undefined) throw new IntakeError('VALIDATION', [`${name} must be a string`]);
  return t.trim() || undefined;
}

/** What the lifecycle refused (only such outcomes carry `azione` with esito=errore) is a fault with its Italian reason. */
function lifecycleRefusal(o: OrderOutcome): void {
  if (o.esito === 'errore' && o.azione !== undefined) throw SoapFault.of(o.code ?? 'BUSINESS', (o.errori ?? []).map((e) => e.messaggio));
}

export function registerSoapRoutes(app: FastifyInstance, deps: SoapDeps): void {
  let cached: { base: string; wsdl: string } | undefined;
  function wsdl(base: string): string {
    if (cached?.base !== base) cached = { base, wsdl: wsdlFor(base) };
    return cached.wsdl;
  }

  async function authenticate(request: SoapRequest): Promise<Principal> {
    if (request.apiKey === undefined) throw new IntakeError('UNAUTHORIZED', 'Missing ord:ApiKey in the ord:Autenticazione SOAP header');
    const principal = await deps.auth.apiKey(request.apiKey);
    if (!principal) throw new IntakeError('UNAUTHORIZED', 'Invalid API key');
    return principal;
  }

  /** The one order of an operation's envelope, judged by the core. */
  async function submitOrder(req: FastifyRequest, principal: Principal, raw: Buffer, operation: string, azione?: 'modifica' | 'annulla') {
    const { outcome } = await deps.intake.submit({
      principal,
      channel: 'soap',
      // The stored submission is the envelope as received; the core's XML decoder unwraps Body/InviaOrdine.
      mediaType: 'text/xml',
      charset: declaredCharset(req),
      raw,
      fileName: undefined,
      meta: { remote: req.ip, requestId: String(req.id), operation, ...(azione !== undefined ? { azione } : {}) },
      singleOrder: true,
    });
    if (outcome.fileError) throw SoapFault.of(outcome.fileError.code, outcome.fileError.message);
    const o = outcome.orders[0];
    if (!o) throw new Error(`submission ${outcome.submissionId} has neither an order nor a file error`);
    return o;
  }

  async function inviaOrdine(req: FastifyRequest, principal: Principal, raw: Buffer, ns: string): Promise<string> {
    const o = await submitOrder(req, principal, raw, 'InviaOrdine');
    // Structure errors and another customer's code are faults (REST: 400 shape A, 403); business errors and
    // conflicts are an answer with esito=errore (REST: shape B), exactly as REST splits them.
    if (o.esito === 'errore' && o.message) throw SoapFault.of(o.code ?? 'VALIDATION', o.message);
    lifecycleRefusal(o);
    return inviaOrdineResponse(ns, o);
  }

  /**
   * A change or cancellation (src/intake/lifecycle.ts). Structure errors are faults and business errors an answer
   * with esito=errore, as for InviaOrdine; what the lifecycle refuses (shipped, cancelled, a request pending, a
   * reference never registered) is a fault with the reason in Italian, as REST answers it with 409/404/400.
   */
  async function changeOrdine(req: FastifyRequest, principal: Principal, raw: Buffer, ns: string, operation: 'ModificaOrdine' | 'AnnullaOrdine'): Promise<string> {
    const o = await submitOrder(req, principal, raw, operation, operation === 'ModificaOrdine' ? 'modifica' : 'annulla');
    if (o.esito === 'errore' && o.message) throw SoapFault.of(o.code ?? 'VALIDATION', o.message);
    lifecycleRefusal(o);
    return changeResponse(ns, operation, o);
  }

  async function statoOrdine(principal: Principal, content: Record<string, unknown>, ns: string): Promise<string> {
    const id = field(content, 'id_ordine');
    const ref = field(content, 'riferimento_ordine');
    if (id !== undefined && ref !== undefined) {
      throw new IntakeError('VALIDATION', ['StatoOrdine takes either id_ordine or riferimento_ordine, not both']);
    }
    let view: OrderStatus | undefined;
    if (id !== undefined) {
      view = id.length > MAX_LOOKUP_CHARS ? undefined : await statusById(deps.store, principal.customerId, id);
      if (!view) throw new IntakeError('NOT_FOUND', `Order ${id.slice(0, MAX_LOOKUP_CHARS)} not found`);
    } else if (ref !== undefined) {
      view = ref.length > MAX_LOOKUP_CHARS ? undefined : await statusByRef(deps.store, principal.customerId, ref);
      if (!view) throw new IntakeError('NOT_FOUND', `No order with riferimento_ordine "${ref.slice(0, MAX_LOOKUP_CHARS)}"`);
    } else {
      throw new IntakeError('VALIDATION', ['id_ordine or riferimento_ordine should not be empty']);
    }
    return statoOrdineResponse(ns, view);
  }

  app.get(SERVICE_PATH, async (req, reply) => {
    const query = (req.query ?? {}) as Record<string, unknown>;
    if (!Object.keys(query).some((k) => k.toLowerCase() === 'wsdl')) {
      return sendError(reply, 'ROUTE_NOT_FOUND', `Cannot GET ${SERVICE_PATH}: the WSDL is at ${SERVICE_PATH}?wsdl`);
    }
    return sendXml(reply, 200, wsdl(deps.publicUrl()));
  });

  app.post(SERVICE_PATH, {
    // Failures before the handler runs (body over the limit, a broken upload) still answer as a Fault, since a
    // SOAP client would not know what to do with the JSON error body of the other routes.
    errorHandler(err: FastifyError, req, reply) {
      const status = err.statusCode ?? 500;
      let fault: SoapFault;
      if (status === 413) fault = SoapFault.of('PAYLOAD_TOO_LARGE', `Request body is larger than the limit of ${app.initialConfig.bodyLimit} bytes`);
      else if (status === 415) fault = SoapFault.of('UNSUPPORTED_MEDIA_TYPE', 'Send the SOAP envelope with Content-Type: text/xml; charset=utf-8');
      // Fastify's own 4xx messages (a bad Content-Length, …) carry nothing internal.
      else if (status >= 400 && status < 500) fault = SoapFault.of('NOT_PARSEABLE', err.message);
      else fault = asFault(err, req);
      reply.code(500).header('content-type', XML_TYPE).send(faultResponse(namespaceFor(deps.publicUrl()), fault));
    },
  }, async (req, reply) => {
    const ns = namespaceFor(deps.publicUrl());
    try {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const request = readEnvelope(raw, declaredCharset(req));
      const principal = await authenticate(request);
      switch (request.operation) {
        case 'InviaOrdine':
          return sendXml(reply, 200, await inviaOrdine(req, principal, raw, ns));
        case 'ModificaOrdine':
        case 'AnnullaOrdine':
          return sendXml(reply, 200, await changeOrdine(req, principal, raw, ns, request.operation));
        case 'StatoOrdine':
          return sendXml(reply, 200, await statoOrdine(principal, request.content, ns));
        default:
          throw new IntakeError('NOT_FOUND', `Unknown operation "${request.operation.slice(0, 100)}": this service offers InviaOrdine, ModificaOrdine, AnnullaOrdine and StatoOrdine`);
      }
    } catch (e) {
      return sendXml(reply, 500, faultResponse(ns, asFault(e, req)));
    }
  });
}
