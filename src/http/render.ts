/**
 * Outcome → HTTP status and body, in the spec's shapes:
 * - 201 shape A success `{esito, id_ordine, numero_ordine, messaggio}`; 200 with `duplicato: true` for an order
 *   already registered with identical content;
 * - 400 shape A `{statusCode, message[], error}` for structure errors (and files that cannot be read);
 * - 400 shape B `{esito: 'errore', errori[]}` for business errors, 409 in shape B for a reference already used by
 *   different content (the body still names the field, the status lets a client branch without parsing);
 * - the catalog's status in the `{statusCode, message, error}` form for the rest (403 other customer's code, 415 …).
 * - a change or cancellation (src/intake/lifecycle.ts): 200 with `versione` or `stato: "annullato"`, 202 with
 *   `id_richiesta` when production decides; refusals in shape B with the catalog's status (409 ORDER_LOCKED, …).
 */
import { ERROR_CATALOG } from '../domain/errors.ts';
import { errorBody } from './errors.ts';
import { changeMessage } from '../render/lifecycle-text.ts';
import { messageCells, withCells } from '../render/cells.ts';
import type { OrderOutcome, Outcome, StoredSubmission } from '../domain/types.ts';

export interface HttpAnswer {
  status: number;
  body: unknown;
}

export const MESSAGES = {
  accepted: 'Ordine ricevuto ed elaborato correttamente',
  duplicate: 'Ordine già registrato con lo stesso contenuto: nessuna nuova registrazione',
  queued: "Ordine ricevuto: è in elaborazione; lo stato è consultabile all'indirizzo indicato in Location",
};

/** REST answers one order per call; the outcome therefore has one order or a file-level error. */
export function renderOutcome(outcome: Outcome): HttpAnswer {
  if (outcome.fileError) {
    const body = errorBody(outcome.fileError.code, outcome.fileError.message);
    return { status: body.statusCode, body };
  }
  const o = outcome.orders[0];
  if (!o) return { status: 500, body: errorBody('INTERNAL', 'Internal server error') };
  if (o.esito === 'ok' && o.azione !== undefined) return changeAnswer(o);
  if (o.esito === 'ok') {
    return {
      status: o.duplicate ? 200 : 201,
      body: {
        esito: 'ok', id_ordine: o.id_ordine, numero_ordine: o.numero_ordine,
        messaggio: o.duplicate ? MESSAGES.duplicate : MESSAGES.accepted,
        ...(o.duplicate ? { duplicato: true } : {}),
        ...(o.sito_produzione ? { sito_produzione: o.sito_produzione } : {}),
      },
    };
  }
  const code = o.code ?? 'BUSINESS';
  if (o.message) {
    const body = errorBody(code, o.message);
    // An Excel order's messages name fields; `celle` gives the cell of each.
    const celle = o.foglio_file ? messageCells(o.message, o.foglio_file) : [];
    return { status: body.statusCode, body: celle.length > 0 ? { ...body, celle } : body };
  }
  return { status: ERROR_CATALOG[code].http, body: { esito: 'errore', errori: withCells(o.errori ?? [], o.foglio_file), code } };
}

function changeAnswer(o: OrderOutcome): HttpAnswer {
  const body: Record<string, unknown> = { esito: 'ok', id_ordine: o.id_ordine, numero_ordine: o.numero_ordine };
  if (o.id_richiesta !== undefined) {
    return { status: 202, body: { ...body, id_richiesta: o.id_richiesta, stato_richiesta: o.stato_richiesta, messaggio: changeMessage(o) } };
  }
  if (o.stato === 'annullato') body.stato = 'annullato';
  else body.versione = o.versione;
  return { status: 200, body: { ...body, messaggio: changeMessage(o) } };
}

/** 202 shape B: received durably, judged in the background. */
export function renderQueued(s: StoredSubmission): HttpAnswer {
  return { status: 202, body: { esito: 'ok', id_ordine: s.reservedOrderId, messaggio: MESSAGES.queued } };
}
