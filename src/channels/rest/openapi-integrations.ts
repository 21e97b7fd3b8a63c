/**
 * The OpenAPI paths of what integrations call (integration-routes.ts): the event feed and production status. Kept
 * beside openapi.ts, which spreads them in, as it does for the connectors' paths.
 */
import { ORDER_EVENT_TYPES } from '../../domain/order-events.ts';

const errorA = {
  type: 'object', required: ['statusCode', 'message', 'error'],
  properties: { statusCode: { type: 'integer' }, message: { oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }] }, error: { type: 'string' } },
};
const generic = (status: number, example: string) => ({
  description: example, content: { 'application/json': { schema: errorA, example: { statusCode: status, message: example } } },
});
const states = ['in_lavorazione', 'spedito', 'consegnato', 'annullato'];

/** Added to the order view (StatoOrdine) once production has reported. */
export const productionProperties = {
  stato_produzione: { type: 'string', enum: states },
  storico_produzione: {
    type: 'array',
    items: { type: 'object', required: ['stato', 'aggiornato_il'], properties: { stato: { type: 'string', enum: states }, nota: { type: 'string' }, aggiornato_il: { type: 'string', format: 'date-time' } } },
  },
};

const event = {
  type: 'object', required: ['id', 'type', 'time', 'cursor', 'data'],
  properties: {
    id: { type: 'string', description: 'Stable event id (UUIDv7); the same on every read and webhook delivery' },
    type: { type: 'string', enum: [...ORDER_EVENT_TYPES] },
    time: { type: 'string', format: 'date-time' },
    cursor: { type: 'string', description: 'Opaque position: pass it as dopo to read what follows' },
    data: { type: 'object', description: 'The order as GET /api/v1/ordini/{id_ordine} shows it (for ordine.rifiutato: the refusal)' },
  },
};

export const integrationPaths = {
  '/api/v1/eventi': {
    get: {
      summary: 'Order events of every customer, in order (integration key)',
      description: 'Reading from the last cursor handled never skips nor repeats an event. See docs/customers/eventi.md.',
      parameters: [
        { name: 'dopo', in: 'query', required: false, schema: { type: 'string' }, description: 'Cursor of the last event handled; omitted: from the first event' },
        { name: 'limite', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
        { name: 'attesa', in: 'query', required: false, schema: { type: 'integer', minimum: 0, maximum: 30, default: 0 }, description: 'Seconds to wait for a first event (long polling)' },
      ],
      responses: {
        200: { description: 'Events after dopo', content: { 'application/json': { schema: { type: 'object', properties: { eventi: { type: 'array', items: event }, cursore: { type: 'string', nullable: true } } } } } },
        400: generic(400, 'Il cursore "x" non è valido'),
        401: generic(401, 'Invalid API key'),
        403: generic(403, 'Questo endpoint è riservato alle integrazioni (ERP/MIS)'),
        429: generic(429, 'Troppe richieste in attesa su questa istanza: riprova tra poco'),
      },
    },
  },
  '/api/v1/ordini/{id_ordine}/stato': {
    post: {
      summary: 'Report the production status of an order (integration key)',
      parameters: [{ name: 'id_ordine', in: 'path', required: true, schema: { type: 'string' } }],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object', required: ['stato'], properties: { stato: { type: 'string', enum: states }, nota: { type: 'string', maxLength: 500 } } } } },
      },
      responses: {
        200: { description: 'Recorded (aggiornato: false when the order already had that state)', content: { 'application/json': { schema: { type: 'object', properties: { esito: { type: 'string', enum: ['ok'] }, aggiornato: { type: 'boolean' }, ordine: { type: 'object' } } } } } },
        400: generic(400, 'stato deve essere uno di: in_lavorazione, spedito, consegnato, annullato'),
        401: generic(401, 'Invalid API key'),
        403: generic(403, 'Questo endpoint è riservato alle integrazioni (ERP/MIS)'),
        404: generic(404, 'Ordine non trovato'),
        409: generic(409, 'L\'ordine 2026-000042 è "spedito" e non può passare a "in lavorazione"'),
        415: generic(415, 'Unsupported media type'),
      },
    },
  },
  '/api/v1/ordini/{id_ordine}/richieste/{id_richiesta}': {
    post: {
      summary: 'Decide a change or cancellation the customer asked once production had started (integration key)',
      description: 'accettata applies it (a new version, or the order cancelled); rifiutata leaves the order as it is. The same decision sent again answers 200 with aggiornato: false.',
      parameters: [{ name: 'id_ordine', in: 'path', required: true, schema: { type: 'string' } }, { name: 'id_richiesta', in: 'path', required: true, schema: { type: 'string' } }],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object', required: ['esito'], properties: { esito: { type: 'string', enum: ['accettata', 'rifiutata'] }, nota: { type: 'string', maxLength: 500 } } } } },
      },
      responses: {
        200: { description: 'Decided (aggiornato: false for a repeated decision)', content: { 'application/json': { schema: { type: 'object', properties: { esito: { type: 'string', enum: ['ok'] }, aggiornato: { type: 'boolean' }, richiesta: { type: 'object' }, ordine: { type: 'object' } } } } } },
        400: generic(400, 'esito deve essere "accettata" oppure "rifiutata"'),
        401: generic(401, 'Invalid API key'),
        403: generic(403, 'Questo endpoint è riservato alle integrazioni (ERP/MIS)'),
        404: generic(404, 'Richiesta non trovata'),
        409: generic(409, 'La richiesta è già stata decisa'),
        415: generic(415, 'Unsupported media type'),
      },
    },
  },
};
