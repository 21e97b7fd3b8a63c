/**
 * The OpenAPI 3 document of the REST channel, written out rather than generated from route schemas: fastify
 * would also use response schemas to serialize (dropping fields they do not name), and the document must say
 * exactly what the spec says. Served as JSON at /api/docs/json and browsable at /api/docs.
 *
 * It is OpenAPI 3.0, the version every code generator reads, so schemas use 3.0 forms (boolean exclusiveMinimum
 * beside minimum, `nullable` rather than type arrays); test/channels/rest/openapi.test.ts validates what is served.
 */
import { MAX_NOTE_CHARS } from '../../domain/types.ts';
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
    righe: { type: 'array', minItems: 1, items: line },
  },
};
const status = {
  type: 'object',
  properties: {
    stato: { type: 'string', enum: ['ricevuto', 'registrato', 'rifiutato'] },
    id_ordine: { type: 'string' }, numero_ordine: { type: 'string', example: '2026-000042' },
    codice_cliente: { type: 'string' }, riferimento_ordine: { type: 'string' },
    data_ordine: { type: 'string', format: 'date' }, data_consegna: { type: 'string', format: 'date' },
    note: { type: 'string', maxLength: MAX_NOTE_CHARS },
    righe: { type: 'array', items: line }, canale: { type: 'string' },
    ricevuto_il: { type: 'string', format: 'date-time' }, registrato_il: { type: 'string', format: 'date-time' },
    message: { type: 'array', items: { type: 'string' } }, errori: errorB.properties.errori,
    sito_produzione: { type: 'string', example: 'VR' },
    ...productionProperties,
  },
};
const orderPage = {
  type: 'object', required: ['ordini', 'cursore_successivo'],
  properties: {
    ordini: { type: 'array', items: status },
    cursore_successivo: { type: 'string', nullable: true, description: 'Pass as cursore for the next page; null on the last page' },
  },
};
const generic = (status: number, example: string) => ({
  description: example, content: { 'application/json': { schema: errorA, example: { statusCode: status, message: example } } },
});

const EXAMPLE: ExampleOrder = {
  codice_cliente: 'DEMO', riferimento_ordine: 'PO-1', data_ordine: '2026-11-20', righe: [{ codice_articolo: 'BV-STD', quantita: 500, unita_misura: 'PZ' }],
};

/** Every media type of every registered format: JSON has its schema, the others are text with the format's example. */
function requestBodies(): Record<string, unknown> {
  return Object.fromEntries(FORMATS.flatMap((f) => f.mediaTypes.map((type) => [
    type, f.name === 'json' ? { schema: order } : { schema: { type: 'string' }, example: f.example(EXAMPLE) },
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
            200: { description: 'Already registered with identical content: same body as 201 plus duplicato: true' },
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
          responses: { 200: { description: 'The order', content: { 'application/json': { schema: status } } }, 401: generic(401, 'Invalid API key'), 404: generic(404, 'Order not found') },
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
