/**
 * Peppol BIS 3 Order Responses: what the service answers a buyer's UBL ordering document with, the way the document
 * came (e-mail attachment, FTP/SFTP outcome file, `GET /api/v1/ordini/{id}/order-response`).
 *
 * - To an Order: transaction `urn:fdc:peppol.eu:poacc:trns:order_response:3` (UBL 2.1), OrderResponseCode AP
 *   (accepted) or RE (rejected, each reason a Note).
 * - To an Order Change or Order Cancellation (and NSO's replacing or revoking Order): the advanced response
 *   `urn:fdc:peppol.eu:poacc:trns:order_response_advanced:3` (UBL 2.3), AP, RE, or AB (received: production decides,
 *   a new response follows its decision).
 * OrderReference/ID is the buyer's order ID; our numero_ordine is SalesOrderID. Texts are Italian (the buyer reads
 * the Notes); values are escaped, and control characters XML cannot carry are dropped.
 */
import type { UblInfo } from '../intake/formats/ubl/decode.ts';
import { PEPPOL_ORDER_RESPONSE, PEPPOL_ORDER_RESPONSE_ADVANCED, PEPPOL_PROFILE_ADVANCED_ORDERING, PEPPOL_PROFILE_ORDERING } from '../intake/formats/ubl/names.ts';

export type ResponseCode = 'AP' | 'RE' | 'AB';

export interface OrderResponseInput {
  document: UblInfo;
  code: ResponseCode;
  /** Reasons of a refusal, or what the buyer should know (each a Note). */
  notes: readonly string[];
  /** Unique per response: the buyer's system keys responses by it. */
  id: string;
  /** When it is issued (its date and time are written in `timeZone`). */
  at: Date;
  timeZone: string;
  numero_ordine?: string;
  /** Our Peppol identifier (INTAKE_PEPPOL_ID), else the document's seller identifier is answered with. */
  seller?: { scheme: string; identifier: string };
}

/** Notes per response, and characters per note: a refusal of a 10,000-line order names its first errors, not all. */
const MAX_NOTES = 50;
const MAX_NOTE_CHARS = 1000;

// eslint-disable-next-line no-control-regex
const esc = (v: string) => v.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
  .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Whether a document is answered with the advanced response (changes and cancellations, NSO's included). */
export function isAdvanced(document: UblInfo): boolean {
  return document.document !== 'Order' || document.orderReference !== undefined;
}

function party(tag: string, id: { scheme: string; identifier: string } | undefined, name: string | undefined): string {
  const endpoint = id ? `<cbc:EndpointID schemeID="${esc(id.scheme)}">${esc(id.identifier)}</cbc:EndpointID>` : '';
  return `<cac:${tag}><cac:Party>${endpoint}<cac:PartyLegalEntity><cbc:RegistrationName>${esc(name ?? '-')}</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:${tag}>`;
}

function dateTime(at: Date, timeZone: string): { date: string; time: string } {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-CA', {
    timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
  }).formatToParts(at).map((p) => [p.type, p.value]));
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}:${parts.second}` };
}

/** The Order Response as UTF-8 XML text. */
export function renderOrderResponse(r: OrderResponseInput): string {
  const d = r.document;
  const advanced = isAdvanced(d);
  const namespace = 'urn:oasis:names:specification:ubl:schema:xsd:OrderResponse-2';
  const { date, time } = dateTime(r.at, r.timeZone);
  const reference = d.orderReference ?? d.id ?? '-';
  const notes = r.notes.slice(0, MAX_NOTES).map((n) => n.slice(0, MAX_NOTE_CHARS));
  if (r.notes.length > MAX_NOTES) notes.push(`… e altri ${r.notes.length - MAX_NOTES} motivi`);
  const seller = r.seller ?? d.sellerIds[0];
  const buyer = d.buyerIds[0];
  // Peppol allows one Note on the order response: the reasons are joined, one per line.
  const note = notes.length > 0 ? `<cbc:Note>${esc(notes.join('\n'))}</cbc:Note>` : '';
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<OrderResponse xmlns="${namespace}" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">`,
    `<cbc:CustomizationID>${advanced ? PEPPOL_ORDER_RESPONSE_ADVANCED : PEPPOL_ORDER_RESPONSE}</cbc:CustomizationID>`,
    `<cbc:ProfileID>${advanced ? PEPPOL_PROFILE_ADVANCED_ORDERING : PEPPOL_PROFILE_ORDERING}</cbc:ProfileID>`,
    `<cbc:ID>${esc(r.id)}</cbc:ID>`,
    r.numero_ordine ? `<cbc:SalesOrderID>${esc(r.numero_ordine)}</cbc:SalesOrderID>` : '',
    `<cbc:IssueDate>${date}</cbc:IssueDate>`,
    `<cbc:IssueTime>${time}</cbc:IssueTime>`,
    `<cbc:OrderResponseCode>${r.code}</cbc:OrderResponseCode>`,
    note,
    d.extra.valuta ? `<cbc:DocumentCurrencyCode>${esc(d.extra.valuta)}</cbc:DocumentCurrencyCode>` : '',
    `<cac:OrderReference><cbc:ID>${esc(reference)}</cbc:ID></cac:OrderReference>`,
    party('SellerSupplierParty', seller, d.sellerName),
    party('BuyerCustomerParty', buyer, d.buyerName),
    '</OrderResponse>',
    '',
  ].filter((l) => l !== '' || false).join('\n') + '\n';
}
