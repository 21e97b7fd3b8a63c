/**
 * SOAP 1.1 responses and faults as text. Every value goes through escapeXml. Each element in the Body declares
 * the `ord` namespace itself, so it stands alone (what the WSDL's schema validates, and what a client sees if it
 * copies it out of the envelope); faultcode, faultstring and detail are unqualified, as SOAP 1.1 requires.
 *
 * Element order follows the sequences of the schema in wsdl.ts; the tests validate real responses against it.
 */
import { MESSAGES } from '../../http/render.ts';
import type { OrderStatus } from '../../intake/status.ts';
import type { RequestEntry, VersionEntry } from '../../domain/order-view.ts';
import { changeMessage } from '../../render/lifecycle-text.ts';
import type { FieldError, OrderLine, OrderOutcome, ProductionStep } from '../../domain/types.ts';
import { SOAP11_NS } from './envelope.ts';
import type { SoapFault } from './fault.ts';
import { decimalText, escapeXml } from './xml-text.ts';

type Value = string | number | boolean | undefined;

function el(name: string, value: Value): string {
  if (value === undefined) return '';
  const text = typeof value === 'number' ? decimalText(value) : String(value);
  return `<ord:${name}>${escapeXml(text)}</ord:${name}>`;
}

function group(name: string, inner: string): string {
  return `<ord:${name}>${inner}</ord:${name}>`;
}

function root(name: string, ns: string, inner: string): string {
  return `<ord:${name} xmlns:ord="${escapeXml(ns)}">${inner}</ord:${name}>`;
}

export function envelope(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<soap:Envelope xmlns:soap="${SOAP11_NS}"><soap:Body>${body}</soap:Body></soap:Envelope>\n`;
}

function errori(list: readonly FieldError[] | undefined): string {
  if (!list || list.length === 0) return '';
  return group('errori', list.map((e) => group('errore', el('campo', e.campo) + el('messaggio', e.messaggio))).join(''));
}

function righe(lines: readonly OrderLine[] | undefined): string {
  if (!lines || lines.length === 0) return '';
  return group('righe', lines.map((r) => group('riga', el('codice_articolo', r.codice_articolo) + el('quantita', r.quantita) + el('unita_misura', r.unita_misura))).join(''));
}

/** Production's reports, oldest first (issue 17): optional, so the responses of before stay valid. */
function storico(steps: readonly ProductionStep[] | undefined): string {
  if (!steps || steps.length === 0) return '';
  return group('storico_produzione', steps.map((p) => group('passo', el('stato', p.stato) + el('nota', p.nota) + el('aggiornato_il', p.aggiornato_il))).join(''));
}

function versioni(list: readonly VersionEntry[] | undefined): string {
  if (!list || list.length === 0) return '';
  return group('versioni', list.map((v) => group('versione', el('versione', v.versione) + el('ricevuto_il', v.ricevuto_il) + el('canale', v.canale) + el('azione', v.azione))).join(''));
}

function richieste(list: readonly RequestEntry[] | undefined): string {
  if (!list || list.length === 0) return '';
  return group('richieste', list.map((r) => group('richiesta', el('id_richiesta', r.id_richiesta) + el('tipo', r.tipo)
    + el('stato_richiesta', r.stato_richiesta) + el('motivo', r.motivo) + el('nota', r.nota)
    + el('ricevuta_il', r.ricevuta_il) + el('decisa_il', r.decisa_il))).join(''));
}

/**
 * The answer to ModificaOrdine and AnnullaOrdine for a change that was accepted (applied, or a request production
 * decides) or refused by stage B: `versione` after a change applied, `stato` after a cancellation, `id_richiesta` and
 * `stato_richiesta` when production must decide; the words are changeMessage's, as on every channel.
 */
export function changeResponse(ns: string, operation: 'ModificaOrdine' | 'AnnullaOrdine', o: OrderOutcome): string {
  let inner: string;
  if (o.esito !== 'ok') inner = el('esito', 'errore') + errori(o.errori);
  else {
    const request = o.id_richiesta !== undefined;
    inner = el('esito', 'ok') + el('id_ordine', o.id_ordine) + el('numero_ordine', o.numero_ordine)
      + el('versione', request || o.stato === 'annullato' ? undefined : o.versione) + el('stato', request ? undefined : o.stato)
      + el('id_richiesta', o.id_richiesta) + el('stato_richiesta', o.stato_richiesta)
      + el('messaggio', changeMessage(o)) + el('duplicato', o.duplicate ? true : undefined);
  }
  return envelope(root(`${operation}Response`, ns, inner));
}

/** The answer to InviaOrdine for an order that was judged (accepted, or refused for business reasons). */
export function inviaOrdineResponse(ns: string, o: OrderOutcome): string {
  const inner = o.esito === 'ok'
    ? el('esito', 'ok') + el('id_ordine', o.id_ordine) + el('numero_ordine', o.numero_ordine)
      // An envelope may name azione itself: then the message says what the change did.
      + el('messaggio', changeMessage(o) ?? (o.duplicate ? MESSAGES.duplicate : MESSAGES.accepted)) + el('duplicato', o.duplicate ? true : undefined)
    : el('esito', 'errore') + errori(o.errori);
  return envelope(root('InviaOrdineResponse', ns, inner));
}

/** The state view of src/intake/status.ts, field for field. */
export function statoOrdineResponse(ns: string, v: OrderStatus): string {
  const messaggi = v.message && v.message.length > 0 ? group('messaggi', v.message.map((m) => el('messaggio', m)).join('')) : '';
  const inner = el('stato', v.stato) + el('id_ordine', v.id_ordine) + el('numero_ordine', v.numero_ordine)
    + el('codice_cliente', v.codice_cliente) + el('riferimento_ordine', v.riferimento_ordine)
    + el('data_ordine', v.data_ordine) + el('data_consegna', v.data_consegna) + el('note', v.note) + righe(v.righe)
    + el('sito_produzione', v.sito_produzione) + el('canale', v.canale)
    + el('ricevuto_il', v.ricevuto_il) + el('registrato_il', v.registrato_il)
    + el('stato_produzione', v.stato_produzione) + storico(v.storico_produzione)
    + messaggi + errori(v.errori)
    + el('versione', v.versione) + versioni(v.versioni) + richieste(v.richieste);
  return envelope(root('StatoOrdineResponse', ns, inner));
}

export function faultResponse(ns: string, f: SoapFault): string {
  const detail = f.detail
    ? `<detail>${root('erroriValidazione', ns, f.detail.map((m) => el('messaggio', m)).join(''))}</detail>`
    : '';
  return envelope(`<soap:Fault><faultcode>soap:${f.faultcode}</faultcode><faultstring>${escapeXml(f.faultstring)}</faultstring>${detail}</soap:Fault>`);
}
