/**
 * The one error catalog. Every failure a customer can see has a stable code here, and each channel reads
 * its protocol's status from the entry instead of choosing one itself, so the channels stay equivalent.
 *
 * - http: status for REST, connectors and the SOAP fault's HTTP transport (SOAP always uses 500 for faults).
 * - smtp: reply code when the failure is detected during the SMTP dialogue (the message is then not accepted).
 * - soapFault: SOAP 1.1 faultcode: Client when the sender must change the request, Server otherwise.
 * - message: the default English text (shape A / `{statusCode, message, error}` form).
 */
export const ERROR_CATALOG = {
  VALIDATION: { http: 400, smtp: 550, soapFault: 'Client', message: 'The order is not valid' },
  BUSINESS: { http: 400, smtp: 550, soapFault: 'Client', message: 'The order has errors' },
  NOT_PARSEABLE: { http: 400, smtp: 550, soapFault: 'Client', message: 'The file cannot be read' },
  TOO_MANY_ORDERS: { http: 400, smtp: 550, soapFault: 'Client', message: 'Send one order per request' },
  NO_ORDERS: { http: 400, smtp: 550, soapFault: 'Client', message: 'The file holds no order' },
  UNAUTHORIZED: { http: 401, smtp: 535, soapFault: 'Client', message: 'Missing or invalid credentials' },
  FORBIDDEN_CUSTOMER: {
    http: 403, smtp: 550, soapFault: 'Client',
    message: 'codice_cliente does not belong to the authenticated customer',
  },
  FORBIDDEN: { http: 403, smtp: 550, soapFault: 'Client', message: 'Not allowed' },
  /**
   * A deactivated customer (src/customers/active.ts) presenting a valid credential. Said only after the secret was
   * verified, so it tells a guesser nothing; Italian, since it is the customer who must act (call the supplier).
   */
  CUSTOMER_INACTIVE: {
    http: 403, smtp: 550, soapFault: 'Client',
    message: 'Il cliente è disattivato: gli ordini non sono accettati. Per riattivarlo rivolgersi al fornitore del servizio',
  },
  /** Connectors: a production site the key is not bound to (in the path or named in the payload). */
  FORBIDDEN_SITE: { http: 403, smtp: 550, soapFault: 'Client', message: 'The connector key is not bound to that production site' },
  /** Connectors: a key bound to several sites, and neither the path nor the payload says which one. */
  SITE_REQUIRED: {
    http: 400, smtp: 550, soapFault: 'Client',
    message: 'The production site is not known: name it in the path (/api/v1/connettori/{sito}/ordini) or in the payload',
  },
  NOT_FOUND: { http: 404, smtp: 550, soapFault: 'Client', message: 'Not found' },
  CONFLICT: {
    http: 409, smtp: 550, soapFault: 'Client',
    message: 'The order was already registered with different content',
  },
  PAYLOAD_TOO_LARGE: { http: 413, smtp: 552, soapFault: 'Client', message: 'The body is too large' },
  UNSUPPORTED_MEDIA_TYPE: {
    http: 415, smtp: 550, soapFault: 'Client',
    message: 'Unsupported media type: send application/json, application/xml or text/csv',
  },
  UNAVAILABLE: { http: 503, smtp: 451, soapFault: 'Server', message: 'The service cannot accept orders right now' },
  /** Event feed: a `dopo` cursor that does not parse or names no event. */
  INVALID_CURSOR: { http: 400, smtp: 550, soapFault: 'Client', message: 'Il cursore non è valido' },
  /**
   * Event feed: a `dopo` cursor older than what event retention keeps (INTAKE_EVENT_RETENTION_DAYS): events after it
   * were deleted, so reading on would skip them. 410 Gone: the reader must resynchronise.
   */
  CURSOR_EXPIRED: { http: 410, smtp: 550, soapFault: 'Client', message: 'Il cursore è scaduto' },
  /** Production status: a move the state machine does not allow (src/handoff/production.ts). */
  STATE_TRANSITION: { http: 409, smtp: 550, soapFault: 'Client', message: 'Il cambio di stato non è consentito' },
  /**
   * Lifecycle (src/intake/lifecycle.ts): a change or cancellation of an order that can no longer change (shipped,
   * delivered, cancelled), or while another request of the same order waits for production. Italian: the customer acts.
   */
  ORDER_LOCKED: { http: 409, smtp: 550, soapFault: 'Client', message: "L'ordine non può più essere modificato o annullato" },
  /** Lifecycle: `If-Match` names a version the order has moved on from; read it again (no lost update). */
  VERSION_MOVED: { http: 412, smtp: 550, soapFault: 'Client', message: "L'ordine è cambiato dalla versione indicata in If-Match: rileggerlo e riprovare" },
  /** Lifecycle: a change or cancellation while another request of the same order waits for production's decision. */
  REQUEST_PENDING: { http: 409, smtp: 550, soapFault: 'Client', message: "Una richiesta per l'ordine attende già la decisione della produzione" },
  /** Lifecycle: production decides a request already decided the other way. */
  REQUEST_DECIDED: { http: 409, smtp: 550, soapFault: 'Client', message: 'La richiesta è già stata decisa' },
  INTERNAL: { http: 500, smtp: 451, soapFault: 'Server', message: 'Internal error' },
  // HTTP only: a request refused before any order is read. The http status is what every channel answers with;
  // smtp and soapFault are there because every entry has them, and say what such a refusal would be there.
  /** The customer's (or an integration's) X-API-Key header is absent. */
  API_KEY_MISSING: { http: 401, smtp: 535, soapFault: 'Client', message: 'Missing X-API-Key header' },
  /** An X-API-Key that names no active credential. */
  API_KEY_INVALID: { http: 401, smtp: 535, soapFault: 'Client', message: 'Invalid API key' },
  /** An integration's key on a customer's route: integrations read orders through the feed. */
  CUSTOMER_KEY_REQUIRED: {
    http: 403, smtp: 550, soapFault: 'Client',
    message: 'Le chiavi di integrazione non possono usare gli endpoint dei clienti: usa GET /api/v1/eventi, GET /api/v1/ordini (elenco) e POST /api/v1/ordini/{id_ordine}/stato',
  },
  /** A customer's key on an integration's route (the feed, production status). */
  INTEGRATION_KEY_REQUIRED: {
    http: 403, smtp: 550, soapFault: 'Client',
    message: "Questo endpoint è riservato alle integrazioni (ERP/MIS): usa una chiave di integrazione, non la chiave API di un cliente",
  },
  /** A connector's key header is absent. */
  CONNECTOR_KEY_MISSING: { http: 401, smtp: 535, soapFault: 'Client', message: 'Missing service-x-key header' },
  /** A connector key that names no active connector. */
  CONNECTOR_KEY_INVALID: { http: 401, smtp: 535, soapFault: 'Client', message: 'Invalid connector key' },
  /** A connector key used from an address its allow-list does not hold. */
  ADDRESS_NOT_ALLOWED: { http: 403, smtp: 550, soapFault: 'Client', message: 'This connector key may not be used from this address' },
  /** No order with that id or reference for the caller (another customer's order answers the same). */
  ORDER_NOT_FOUND: { http: 404, smtp: 550, soapFault: 'Client', message: 'Order not found' },
  /** No route at that method and path. */
  ROUTE_NOT_FOUND: { http: 404, smtp: 550, soapFault: 'Client', message: 'Not found' },
  /** Query or body parameters that are missing or malformed (the messages name each one). */
  INVALID_PARAMETERS: { http: 400, smtp: 550, soapFault: 'Client', message: 'The request parameters are not valid' },
  /** A body that the route's media type says is JSON and is not. */
  INVALID_JSON: { http: 400, smtp: 550, soapFault: 'Client', message: 'Il corpo della richiesta non è un JSON valido' },
  /** A reference that more than one of a connector's customers used: the caller must say which customer. */
  AMBIGUOUS_REFERENCE: { http: 409, smtp: 550, soapFault: 'Client', message: 'More than one order has that riferimento_ordine: add codice_cliente' },
  /** More long polls of the feed waiting on this instance than it holds: retry shortly (Retry-After). */
  TOO_MANY_WAITING: { http: 429, smtp: 451, soapFault: 'Server', message: 'Troppe richieste in attesa su questa istanza: riprova tra poco' },
  /** HTTPS is required on this port, or the request is malformed at the HTTP level (no Host header, …). */
  BAD_REQUEST: { http: 400, smtp: 550, soapFault: 'Client', message: 'The request is not valid' },
  HTTPS_REQUIRED: { http: 403, smtp: 530, soapFault: 'Client', message: 'HTTPS is required' },
  /** The metrics endpoint's bearer token is absent or wrong. */
  METRICS_TOKEN_INVALID: { http: 401, smtp: 535, soapFault: 'Client', message: 'Missing or invalid bearer token' },
  /**
   * A file (e-mail attachment, FTP/SFTP upload, connector payload) holding more orders than MAX_ORDERS_PER_FILE
   * (src/intake/judge.ts): a limit the customer can act on (split the file), so it has its own code and an Italian
   * message in the outcome, not NOT_PARSEABLE's "cannot be read". 413 and 552: the content is too large, not wrong.
   */
  FILE_TOO_MANY_ORDERS: { http: 413, smtp: 552, soapFault: 'Client', message: 'The file holds more orders than allowed per file' },
} as const satisfies Record<string, { http: number; smtp: number; soapFault: 'Client' | 'Server'; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** HTTP reason phrases for the `{statusCode, message, error}` form. */
const REASONS: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 410: 'Gone',
  412: 'Precondition Failed', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 429: 'Too Many Requests',
  500: 'Internal Server Error', 503: 'Service Unavailable',
};

export function reasonPhrase(status: number): string {
  return REASONS[status] ?? 'Error';
}

/**
 * An error a customer may see. `messages` are the shape A strings (English); the catalog gives the status in
 * each protocol. Anything that is not an IntakeError is internal and is never shown as it is.
 */
export class IntakeError extends Error {
  readonly code: ErrorCode;
  readonly messages: string[];

  constructor(code: ErrorCode, messages?: string | string[]) {
    const list = messages === undefined ? [ERROR_CATALOG[code].message] : Array.isArray(messages) ? messages : [messages];
    super(list.join('; '));
    this.name = 'IntakeError';
    this.code = code;
    this.messages = list;
  }

  get http(): number {
    return ERROR_CATALOG[this.code].http;
  }
}

export function isIntakeError(e: unknown): e is IntakeError {
  return e instanceof IntakeError;
}
