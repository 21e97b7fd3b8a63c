/**
 * SOAP 1.1 responses and faults as text. Every value goes through escapeXml. Each element in the Body declares
 * the `ord` namespace itself, so it stands alone (what the WSDL's schema validates, and what a client sees if it
 * copies it out of the envelope); faultcode, faultstring and detail are unqualified, as SOAP 1.1 requires.
 *
 * Element order follows the sequences of the schema in wsdl.ts; the tests validate real responses against it.
 */
import { MESSAGES } from '../../http/render.ts';
import type { OrderStatus } from '../../intake/status.ts';
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

/** The answer to InviaOrdine for an order that was judged (accepted, or refused for business reasons). */
export function inviaOrdineResponse(ns: string, o: OrderOutcome): string {
  const inner = o.esito === 'ok'
    ? el('esito', 'ok') + el('id_ordine', o.id_ordine) + el('numero_ordine', o.numero_ordine)
      + el('messaggio', o.duplicate ? MESSAGES.duplicate : MESSAGES.accepted) + el('duplicato', o.duplicate ? true : undefined)
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
    + messaggi + errori(v.errori);
  return envelope(root('StatoOrdineResponse', ns, inner));
}

export function faultResponse(ns: string, f: SoapFault): string {
  const detail = f.detail
    ? `<detail>${root('erroriValidazione', ns, f.detail.map((m) => el('messaggio', m)).join(''))}</detail>`
    : '';
  return envelope(`<soap:Fault><faultcode>soap:${f.faultcode}</faultcode><faultstring>${escapeXml(f.faultstring)}</faultstring>${detail}</soap:Fault>`);
}
