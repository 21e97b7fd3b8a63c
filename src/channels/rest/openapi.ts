/**
 * The OpenAPI 3 document of the REST channel, written out rather than generated from route schemas: fastify
 * would also use response schemas to serialize (dropping fields they do not name), and the document must say
 * exactly what the spec says. Served as JSON at /api/docs/json and browsable at /api/docs.
 *
 * It is OpenAPI 3.0, the version every code generator reads, so schemas use 3.0 forms (boolean exclusiveMinimum
 * beside minimum, `nullable` rather than type arrays); test/channels/rest/openapi.test.ts validates what is served.
 */
import { MAX_NOTE_CHARS, ORDER_ACTIONS } from '../../domain/types.ts';
import { connectorPaths, connectorSecuritySchemes } from '../../http/connector-openapi.ts';
import { FORMATS, formatList, type ExampleOrder } from '../../intake/formats/index.ts';
import { integrationPaths, productionProperties } from './openapi-integrations.ts';

const errorA = {
  type: 'object', required: ['statusCode', 'message', 'error'],
  properties: {
    statusCode: { type: 'integer', example: 400 },
    message: { oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }], example: ['codice_cliente must be a string', 'righe must contain at least 1 elements'] },
    error: { type: 'string', example: 'Bad Request' },
  },
};
const errorB = {
  type: 'object', required: ['esito', 'errori'],
  properties: {
    esito: { type: 'string', enum: ['errore'] },
    errori: {
      type: 'array',
      items: {
        type: 'object', required: ['campo', 'messaggio'],
        properties: { campo: { type: 'string', example: 'righe[0].codice_articolo' }, messaggio: { type: 'string', example: 'Articolo sconosciuto: "XYZ"' } },
      },
    },
  },
};
const generic = (status: number, example: string) => ({
  description: example, content: { 'application/json': { schema: errorA, example: { statusCode: status, message: example } } },
});
const line = {
  type: 'object', required: ['codice_articolo', 'quantita', 'unita_misura'],
  properties: { codice_articolo: { type: 'string', example: 'BV-STD' }, quantita: { type: 'number', minimum: 0, exclusiveMinimum: true, example: 500 }, unita_misura: { type: 'string', example: 'PZ' } },
};
const order = {
  type: 'object', required: ['codice_cliente', 'riferimento_ordine', 'data_ordine', 'righe'],
  properties: {
    codice_cliente: { type: 'string', example: 'DEMO' },
    riferimento_ordine: { type: 'string', maxLength: 64, example: 'PO-2026-0042' },
    data_ordine: { type: 'string', format: 'date', example: '2026-11-20' },
    data_consegna: { type: 'string', format: 'date', example: '2026-12-01' },
    note: { type: 'string', maxLength: MAX_NOTE_CHARS, description: 'Note per la produzione o la consegna: a capo e tabulazioni ammessi, nessun altro carattere di controllo.', example: 'Consegna al magazzino, piano terra.' },
    righe: { type: 'array', minItems: 1, items: line, description: 'Required except with azione "annulla"' },
    azione: { type: 'string', enum: [...ORDER_ACTIONS], default: 'nuovo', description: 'nuovo: register; modifica: replace the registered order with the same codice_cliente and riferimento_ordine (the whole order, all its lines); annulla: cancel it (only codice_cliente and riferimento_ordine are needed). See docs/customers/orders.md.' },
    motivo: { type: 'string', maxLength: MAX_NOTE_CHARS, description: 'The reason for a change or a cancellation' },
  },
};
const versionEntry = {
  type: 'object', required: ['versione', 'ricevuto_il', 'canale', 'azione'],
  properties: { versione: { type: 'integer', minimum: 1 }, ricevuto_il: { type: 'string', format: 'date-time' }, canale: { type: 'string' }, azione: { type: 'string', enum: ['nuovo', 'modifica'] } },
};
const requestEntry = {
  type: 'object', required: ['id_richiesta', 'tipo', 'stato_richiesta', 'ricevuta_il'],
  properties: {
    id_richiesta: { type: 'string' }, tipo: { type: 'string', enum: ['modifica', 'annullamento'] },
    stato_richiesta: { type: 'string', enum: ['in_attesa', 'accettata', 'rifiutata'] }, motivo: { type: 'string' }, nota: { type: 'string' },
    ricevuta_il: { type: 'string', format: 'date-time' }, decisa_il: { type: 'string', format: 'date-time' },
  },
};
const changed = {
  type: 'object', required: ['esito', 'id_ordine', 'numero_ordine', 'messaggio'],
  properties: {
    esito: { type: 'string', enum: ['ok'] }, id_ordine: { type: 'string' }, numero_ordine: { type: 'string' },
    versione: { type: 'integer', description: 'After a change: the version the order is at now' },
    stato: { type: 'string', enum: ['annullato'], description: 'After a cancellation' },
    messaggio: { type: 'string', example: 'Ordine 2026-000042 modificato: versione 2' },
  },
};
const requested = {
  type: 'object', required: ['esito', 'id_ordine', 'numero_ordine', 'id_richiesta', 'stato_richiesta', 'messaggio'],
  properties: {
    esito: { type: 'string', enum: ['ok'] }, id_ordine: { type: 'string' }, numero_ordine: { type: 'string' }, id_richiesta: { type: 'string' },
    stato_richiesta: { type: 'string', enum: ['in_attesa'] }, messaggio: { type: 'string' },
  },
};
const ifMatch = { name: 'If-Match', in: 'header', required: false, schema: { type: 'string', example: '"2"' }, description: 'The ETag of GET (the version seen): the change is made only if the order is still at that version, else 412' };
const lifecycleAnswers = {
  200: { description: 'Done at once (production had not started)', content: { 'application/json': { schema: changed } } },
  202: { description: 'Production has started: a request it will decide (see richieste in GET)', content: { 'application/json': { schema: requested } } },
  401: generic(401, 'Invalid API key'),
  404: generic(404, 'Order not found'),
  409: { description: 'Not allowed in the order\'s state (ORDER_LOCKED) or a request already waiting (REQUEST_PENDING), shape B', content: { 'application/json': { schema: errorB } } },
  412: { description: 'If-Match names a version the order has moved on from (VERSION_MOVED), shape B', content: { 'application/json': { schema: errorB } } },
};
const status = {
  type: 'object',
  properties: {
    stato: { type: 'string', enum: ['ricevuto', 'registrato', 'rifiutato', 'annullato'] },
    id_ordine: { type: 'string' }, numero_ordine: { type: 'string', example: '2026-000042' },
    codice_cliente: { type: 'string' }, riferimento_ordine: { type: 'string' },
    data_ordine: { type: 'string', format: 'date' }, data_consegna: { type: 'string', format: 'date' },
    note: { type: 'string', maxLength: MAX_NOTE_CHARS },
    righe: { type: 'array', items: line }, canale: { type: 'string' },
    ricevuto_il: { type: 'string', format: 'date-time' }, registrato_il: { type: 'string', format: 'date-time' },
    message: { type: 'array', items: { type: 'string' } }, errori: errorB.properties.errori,
    sito_produzione: { type: 'string', example: 'VR' },
    ...productionProperties,
    versione: { type: 'integer', minimum: 1, description: 'The current version: 1 at registration, one more with each change applied' },
    versioni: { type: 'array', items: versionEntry, description: 'Every version, oldest first (GET only)' },
    richieste: { type: 'array', items: requestEntry, description: 'Changes and cancellations production decides (GET only)' },
  },
};
const orderPage = {
  type: 'object', required: ['ordini', 'cursore_successivo'],
  properties: {
    ordini: { type: 'array', items: status },
    cursore_successivo: { type: 'string', nullable: true, description: 'Pass as cursore for the next page; null on the last page' },
  },
};

const EXAMPLE: ExampleOrder = {
  codice_cliente: 'DEMO', riferimento_ordine: 'PO-1', data_ordine: '2026-11-20', righe: [{ codice_articolo: 'BV-STD', quantita: 500, unita_misura: 'PZ' }],
};

/** Every media type of every registered format: JSON has its schema, text formats their example, a workbook is bytes. */
function requestBodies(): Record<string, unknown> {
  return Object.fromEntries(FORMATS.flatMap((f) => f.mediaTypes.map((type) => [
    type, f.name === 'json' ? { schema: order } : f.magic ? { schema: { type: 'string', format: 'binary' } } : { schema: { type: 'string' }, example: f.example(EXAMPLE) },
  ])));
}

export function openApiDocument(serverUrl: string) {
  return {
    openapi: '3.0.3',
    info: {
      title: 'Order intake REST API', version: '1',
      description: `Submit purchase orders (${formatList('en')}; one order per call) and follow their state. Every channel (e-mail, FTP/SFTP, SOAP, connectors) registers orders the same way; an order is identified by (codice_cliente, riferimento_ordine) whatever channel brought it.`,
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' }, ...connectorSecuritySchemes },
      schemas: { Ordine: order, Riga: line, ErroreA: errorA, ErroreB: errorB, StatoOrdine: status, PaginaOrdini: orderPage },
    },
    security: [{ apiKey: [] }],
    paths: {
      '/api/v1/ordini': {
        post: {
          summary: 'Submit one order',
          // No example nor default on Prefer: Swagger UI's "Try it out" would fill it in, and a first try would get
          // 202 instead of the documented 201. The enum still offers the one value in a drop-down, empty by default.
          parameters: [{ name: 'Prefer', in: 'header', required: false, schema: { type: 'string', enum: ['respond-async'] }, description: 'respond-async: answer 202 at once (shape B) and process in the background. Leave it out to get the outcome (201) in the answer.' }],
          requestBody: {
            required: true,
            content: requestBodies(),
          },
          responses: {
            201: { description: 'Registered (shape A)', content: { 'application/json': { schema: { type: 'object', properties: { esito: { type: 'string', enum: ['ok'] }, id_ordine: { type: 'string' }, numero_ordine: { type: 'string' }, messaggio: { type: 'string' } } } } } },
            200: { description: 'Already registered with identical content: same body as 201 plus duplicato: true. With azione modifica or annulla: done at once (versione or stato)' },
            202: { description: 'Received, processed in the background (shape B, with Prefer: respond-async); Location points at the status', content: { 'application/json': { schema: { type: 'object', properties: { esito: { type: 'string', enum: ['ok'] }, id_ordine: { type: 'string' }, messaggio: { type: 'string' } } } } } },
            400: { description: 'Structure errors (shape A) or business errors (shape B)', content: { 'application/json': { schema: { oneOf: [errorA, errorB] } } } },
            401: generic(401, 'Missing X-API-Key header'),
            403: generic(403, 'codice_cliente "C999" does not belong to the authenticated customer'),
            409: { description: 'The reference was already registered with different content (shape B)', content: { 'application/json': { schema: errorB } } },
            413: generic(413, 'Request body is larger than the limit'),
            415: generic(415, 'Unsupported media type'),
          },
        },
        get: {
          summary: 'State of an order by the customer reference, or the list of the customer\'s orders',
          description: 'With riferimento_ordine (alone): that order, as GET /api/v1/ordini/{id_ordine} shows it. Without it: the customer\'s registered orders, oldest first by registration time, in pages; pass cursore_successivo as cursore for the next page (an order registered meanwhile never shifts a page, none is listed twice). dal and al are days (inclusive) of the service\'s time zone (Europe/Rome unless configured otherwise). With an integration key (ERP/MIS) the list holds every customer\'s orders, or one customer\'s with cliente. See docs/customers/rest.md.',
          parameters: [
            { name: 'riferimento_ordine', in: 'query', required: false, schema: { type: 'string' }, description: 'The one order with this reference (the other parameters are then ignored)' },
            { name: 'dal', in: 'query', required: false, schema: { type: 'string', format: 'date' }, description: 'Registered on this day or later (YYYY-MM-DD, service time zone)' },
            { name: 'al', in: 'query', required: false, schema: { type: 'string', format: 'date' }, description: 'Registered on this day or earlier (YYYY-MM-DD, service time zone)' },
            { name: 'stato', in: 'query', required: false, schema: { type: 'string', enum: ['registrato', 'in_lavorazione', 'spedito', 'consegnato', 'annullato'] }, description: 'Production state last reported; registrato: nothing reported yet' },
            { name: 'limite', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 }, description: 'Orders per page' },
            { name: 'cursore', in: 'query', required: false, schema: { type: 'string' }, description: 'cursore_successivo of the previous page' },
            { name: 'cliente', in: 'query', required: false, schema: { type: 'string' }, description: 'Integration keys only: one customer\'s orders (codice_cliente)' },
          ],
          responses: {
            200: {
              description: 'The order (with riferimento_ordine), or a page of orders',
              content: { 'application/json': { schema: { oneOf: [status, { $ref: '#/components/schemas/PaginaOrdini' }] } } },
            },
            400: generic(400, 'dal deve essere una data nella forma AAAA-MM-GG (per esempio 2026-11-28)'),
            401: generic(401, 'Invalid API key'),
            404: generic(404, 'No order with that reference'),
          },
        },
      },
      '/api/v1/ordini/{id_ordine}': {
        get: {
          summary: 'State of an order by id_ordine',
          parameters: [{ name: 'id_ordine', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            200: { description: 'The order; the ETag header is its version ("2")', headers: { ETag: { schema: { type: 'string' } } }, content: { 'application/json': { schema: status } } },
            401: generic(401, 'Invalid API key'), 404: generic(404, 'Order not found'),
          },
        },
        put: {
          summary: 'Change an order: the whole new order replaces the current version',
          description: 'Validated like a new order (400 in shapes A and B). The same content as the current version makes no version. See docs/customers/orders.md for what is allowed in which state.',
          parameters: [{ name: 'id_ordine', in: 'path', required: true, schema: { type: 'string' } }, ifMatch],
          requestBody: { required: true, content: requestBodies() },
          responses: { ...lifecycleAnswers, 400: { description: 'Structure errors (shape A) or business errors (shape B)', content: { 'application/json': { schema: { oneOf: [errorA, errorB] } } } }, 415: generic(415, 'Unsupported media type') },
        },
      },
      '/api/v1/ordini/{id_ordine}/annulla': {
        post: {
          summary: 'Cancel an order',
          parameters: [{ name: 'id_ordine', in: 'path', required: true, schema: { type: 'string' } }, ifMatch],
          requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', properties: { motivo: { type: 'string', maxLength: MAX_NOTE_CHARS } } } } } },
          responses: { ...lifecycleAnswers, 200: { description: 'Cancelled (also when it already was)', content: { 'application/json': { schema: changed } } } },
        },
      },
      '/api/v1/ordini/{id_ordine}/order-response': {
        get: {
          summary: 'The Peppol Order Response of an order that came as a UBL document (docs/customers/peppol.md), as things stand now',
          parameters: [{ name: 'id_ordine', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            200: { description: 'UBL OrderResponse (order_response:3, or order_response_advanced:3 after a change or cancellation)', content: { 'application/xml': { schema: { type: 'string' } } } },
            401: generic(401, 'Invalid API key'), 404: generic(404, 'Order not found, or it did not come as a UBL document'),
          },
        },
      },
      '/api/v1/ordini/{id_ordine}/documento': {
        get: {
          summary: 'The document the order came as, byte for byte (a UBL Order, a JSON body, a file)',
          parameters: [{ name: 'id_ordine', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: { description: 'The document, with the media type it was sent with' }, 401: generic(401, 'Invalid API key'), 404: generic(404, 'Order not found') },
        },
      },
      ...connectorPaths,
      ...integrationPaths,
      '/healthz': { get: { summary: 'Liveness', security: [], responses: { 200: { description: 'Alive' }, 503: { description: 'The database does not answer' } } } },
      '/readyz': { get: { summary: 'Readiness', security: [], responses: { 200: { description: 'Ready: the database answers and every enabled channel accepts connections' }, 503: { description: 'Starting, stopping, or the database or a channel unavailable' } } } },
    },
  };
}
