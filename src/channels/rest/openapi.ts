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
const generic = (status: number, example: string) => ({
  description: example, content: { 'application/json': { schema: errorA, example: { statusCode: status, message: example } } },
});

export function openApiDocument(serverUrl: string) {
  return {
    openapi: '3.0.3',
    info: {
      title: 'Order intake REST API', version: '1',
      description: 'Submit purchase orders (JSON, XML or CSV; one order per call) and follow their state. Every channel (e-mail, FTP/SFTP, SOAP, connectors) registers orders the same way; an order is identified by (codice_cliente, riferimento_ordine) whatever channel brought it.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' }, ...connectorSecuritySchemes },
      schemas: { Ordine: order, Riga: line, ErroreA: errorA, ErroreB: errorB, StatoOrdine: status },
    },
    security: [{ apiKey: [] }],
    paths: {
      '/api/v1/ordini': {
        post: {
          summary: 'Submit one order',
          parameters: [{ name: 'Prefer', in: 'header', required: false, schema: { type: 'string', example: 'respond-async' }, description: 'respond-async: answer 202 at once (shape B) and process in the background' }],
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: order },
              'application/xml': { schema: { type: 'string' }, example: '<ordine><codice_cliente>DEMO</codice_cliente>…<righe><riga>…</riga></righe></ordine>' },
              'text/csv': { schema: { type: 'string' }, example: 'codice_cliente;riferimento_ordine;data_ordine;data_consegna;codice_articolo;quantita;unita_misura\nDEMO;PO-1;2026-11-20;2026-12-01;BV-STD;500;PZ' },
            },
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
          summary: 'State of an order by the customer reference',
          parameters: [{ name: 'riferimento_ordine', in: 'query', required: true, schema: { type: 'string' } }],
          responses: { 200: { description: 'The order', content: { 'application/json': { schema: status } } }, 401: generic(401, 'Invalid API key'), 404: generic(404, 'No order with that reference') },
        },
      },
      '/api/v1/ordini/{id_ordine}': {
        get: {
          summary: 'State of an order by id_ordine',
          parameters: [{ name: 'id_ordine', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: { description: 'The order', content: { 'application/json': { schema: status } } }, 401: generic(401, 'Invalid API key'), 404: generic(404, 'Order not found') },
        },
      },
      ...connectorPaths,
      ...integrationPaths,
      '/healthz': { get: { summary: 'Readiness', security: [], responses: { 200: { description: 'Ready' }, 503: { description: 'The database does not answer' } } } },
    },
  };
}
