/**
 * The connector path in the OpenAPI document (src/channels/rest/openapi.ts appends these), written out like the
 * rest of it. The JMF/XJMF answers are XML and always HTTP 200; the document can only describe them in words.
 */
const errorA = { $ref: '#/components/schemas/ErroreA' };
const errorB = { $ref: '#/components/schemas/ErroreB' };
const status = { $ref: '#/components/schemas/StatoOrdine' };
const security = [{ serviceXKey: [] }];

const generic = (code: number, example: string) => ({
  description: example, content: { 'application/json': { schema: errorA, example: { statusCode: code, message: example } } },
});

const xml = { schema: { type: 'string' } };

const submit = (withSite: boolean) => ({
  summary: withSite ? 'Submit orders for one production site (connectors)' : 'Submit orders (connectors: prepress JDF/XJDF/JMF/XJMF, ERP JSON/XML)',
  description: 'Authenticated by the service-x-key header. The site is taken from the path, else from the payload, else the key\'s only site. '
    + 'JMF/XJMF requests are answered as a device would (HTTP 200, ReturnCode, QueueEntryID = id_ordine); queries such as KnownMessages, and ResubmitQueueEntry (105: no such order; 5: orders cannot be replaced yet), are answered without storing anything. '
    + 'A PrintTalk 2.x document (XJDF connectors) is answered in PrintTalk (HTTP 200): Confirmation, Refusal or OrderStatusResponse. '
    + 'Other callers get the REST shapes with sito_produzione; a payload holding several orders gets 200 with one entry per order (ordini[], each with its own statusCode).',
  security,
  ...(withSite ? { parameters: [{ name: 'sito', in: 'path', required: true, schema: { type: 'string', example: 'VR' } }] } : {}),
  requestBody: {
    required: true,
    content: {
      'application/vnd.cip4-jdf+xml': xml, 'application/vnd.cip4-xjdf+xml': xml, 'application/vnd.cip4-jmf+xml': xml,
      'application/vnd.cip4-xjmf+xml': xml, 'multipart/related': xml, 'application/json': { schema: { type: 'object' } },
      'application/xml': xml, 'text/xml': xml,
    },
  },
  responses: {
    201: { description: 'One order registered (shape A, with sito_produzione)' },
    200: { description: 'Duplicate of a registered order; or a JMF/XJMF Response; or a PrintTalk answer; or several orders: {esito, sito_produzione, ordini: [{indice, riferimento_ordine, statusCode, esito, …}]}' },
    400: { description: 'Structure errors (shape A) or business errors (shape B)', content: { 'application/json': { schema: { oneOf: [errorA, errorB] } } } },
    401: generic(401, 'Invalid connector key'),
    403: generic(403, 'The connector key is not bound to that production site'),
    409: { description: 'The reference was already registered with different content (shape B)', content: { 'application/json': { schema: errorB } } },
    413: generic(413, 'Request body is larger than the limit'),
    415: generic(415, 'Unsupported media type'),
  },
});

export const connectorSecuritySchemes = { serviceXKey: { type: 'apiKey', in: 'header', name: 'service-x-key' } };

export const connectorPaths = {
  '/api/v1/connettori/ordini': {
    post: submit(false),
    get: {
      summary: 'State of an order by the customer reference (connectors)',
      security,
      parameters: [
        { name: 'riferimento_ordine', in: 'query', required: true, schema: { type: 'string' } },
        // Connectors serving several customers: which one's order (our codice_cliente or an id of the customer table).
        { name: 'codice_cliente', in: 'query', required: false, schema: { type: 'string' } },
      ],
      responses: {
        200: { description: 'The order, among the customers the connector is bound to, with `ticket` (intents, comments, artwork) for CIP4 tickets', content: { 'application/json': { schema: status } } },
        401: generic(401, 'Invalid connector key'),
        404: generic(404, 'No order with that reference'),
        409: generic(409, 'More than one order has that riferimento_ordine (customers C001, C002): add codice_cliente'),
      },
    },
  },
  '/api/v1/connettori/{sito}/ordini': { post: submit(true) },
  '/api/v1/connettori/ordini/{id_ordine}': {
    get: {
      summary: 'State of an order by id_ordine (connectors)',
      security,
      parameters: [{ name: 'id_ordine', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { 200: { description: 'The order', content: { 'application/json': { schema: status } } }, 401: generic(401, 'Invalid connector key'), 404: generic(404, 'Order not found') },
    },
  },
};
