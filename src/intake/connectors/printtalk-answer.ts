/**
 * PrintTalk 2.x answers, written for the sender of a PrintTalk request (printtalk.ts): a `Confirmation`, a `Refusal`
 * or an `OrderStatusResponse`, each in its own PrintTalk document with a fresh `Request/@BusinessID`,
 * `@BusinessRefID` = the request's BusinessID, and the request's Header with From and To swapped. Every answer
 * validates against PrintTalk 2.2 and XJDF 2.x (test/channels/connectors/printtalk.test.ts runs xmllint).
 *
 * Where our ids go: the Confirmation's `xjdf:Comment` says them in Italian, and one `oi:Ordine` element per order
 * (namespace ORDER_NS) follows the business object, in the slot PrintTalk's Request keeps for other namespaces
 * (`xs:any namespace="##other"`), so that a program reads numero_ordine and id_ordine without parsing a sentence.
 *
 * `Refusal/@ReasonDetails` is a list of NMTOKENs in the schema: each error becomes one token (spaces and punctuation
 * turned into `_`); the same errors as plain Italian sentences are in the Refusal's `xjdf:Comment`.
 */
import { randomUUID } from 'node:crypto';
import { escapeXml, SENDER_ID } from './jmf-response.ts';
import { DEFAULT_PRINTTALK_VERSION, PRINTTALK_NS, PRINTTALK_VERSIONS, type PrintTalkCredential, type PrintTalkInfo } from './printtalk.ts';

const XJDF_NS = 'http://www.CIP4.org/JDFSchema_2_0';
/** Our own namespace for the order ids added to a Confirmation (see above). */
export const ORDER_NS = 'urn:order-intake:printtalk';
/** PrintTalk has no registered media type of its own; its documents are XML. */
export const PRINTTALK_CONTENT_TYPE = 'application/xml; charset=utf-8';

export type PrintTalkReason = 'Busy' | 'InvalidPrice' | 'Milestone' | 'Other' | 'WrongProduct';

export interface ConfirmedOrder {
  riferimento_ordine?: string;
  numero_ordine?: string;
  id_ordine?: string;
  duplicato?: boolean;
  /** What the order's request became when it is not a new order: e.g. `annullato`, `in_attesa`. */
  stato?: string;
  id_richiesta?: string;
}

export interface StatusNotification {
  /** ISO date-time. */
  time: string;
  cls: 'Event' | 'Information' | 'Warning' | 'Error';
  milestone?: string;
  comments: string[];
}

export type PrintTalkAnswerBody =
  | { object: 'Confirmation'; comment: string; orders: ConfirmedOrder[] }
  | { object: 'Refusal'; reason: PrintTalkReason; errors: string[] }
  | { object: 'OrderStatusResponse'; jobIdRef: string; notifications: StatusNotification[] };

export interface PrintTalkAnswer {
  contentType: string;
  body: string;
}

/** Errors listed in one Refusal, and characters of its comment: a sender reads the first ones and fixes them. */
const MAX_ERRORS = 50;
const MAX_TEXT = 8000;
const MAX_TOKEN = 300;

/** An NMTOKEN: name characters only (letters of any script, digits, `.`, `-`, `_`, `:`). */
export function nmtoken(value: string): string {
  const t = value.normalize('NFC').replace(/[^\p{L}\p{N}\p{M}._:-]+/gu, '_').replace(/^_+|_+$/g, '').slice(0, MAX_TOKEN);
  return t === '' ? '_' : t;
}

const isNmtoken = (v: string | undefined): v is string => v !== undefined && /^[\p{L}\p{N}\p{M}._:-]+$/u.test(v);

function attrs(values: Record<string, string | undefined>): string {
  return Object.entries(values)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => ` ${k}="${escapeXml(v)}"`)
    .join('');
}

function credentialXml(list: PrintTalkCredential[], fallback: PrintTalkCredential): string {
  const shown = list.length > 0 ? list : [fallback];
  return shown.map((c) => `<Credential domain="${escapeXml(nmtoken(c.domain))}"><Identity>${escapeXml(c.identity)}</Identity></Credential>`).join('');
}

const newToken = (prefix: string): string => `${prefix}${randomUUID().replace(/-/g, '')}`;

function comment(textValue: string): string {
  return `<xjdf:Comment Language="it">${escapeXml(textValue.slice(0, MAX_TEXT))}</xjdf:Comment>`;
}

function orderElement(o: ConfirmedOrder): string {
  return `<oi:Ordine${attrs({
    riferimento_ordine: o.riferimento_ordine, numero_ordine: o.numero_ordine, id_ordine: o.id_ordine,
    duplicato: o.duplicato ? 'true' : undefined, stato: o.stato, id_richiesta: o.id_richiesta,
  })}/>`;
}

function businessObject(a: PrintTalkAnswerBody, now: string): string {
  switch (a.object) {
    case 'Confirmation':
      return `<Confirmation>${comment(a.comment)}</Confirmation>${a.orders.map(orderElement).join('')}`;
    case 'Refusal': {
      const errors = a.errors.slice(0, MAX_ERRORS);
      const details = errors.map(nmtoken).join(' ');
      return `<Refusal${attrs({ Reason: a.reason, ReasonDetails: details === '' ? undefined : details })}>${errors.length ? comment(errors.join('; ')) : ''}</Refusal>`;
    }
    case 'OrderStatusResponse': {
      const audits = a.notifications.map((n) => `<xjdf:AuditNotification><xjdf:Header${attrs({ DeviceID: SENDER_ID, Time: n.time || now })}/>`
        + `<xjdf:Notification${attrs({ Class: n.cls, JobID: nmtoken(a.jobIdRef) })}>${n.comments.map((c) => comment(c)).join('')}`
        + `${n.milestone ? `<xjdf:Milestone${attrs({ MilestoneType: n.milestone })}/>` : ''}</xjdf:Notification></xjdf:AuditNotification>`);
      return `<OrderStatusResponse${attrs({ JobIDRef: nmtoken(a.jobIdRef) })}><xjdf:AuditPool>${audits.join('')}</xjdf:AuditPool></OrderStatusResponse>`;
    }
  }
}

/**
 * The answer to `req` (undefined when the request could not be read at all: then no BusinessRefID, and the Header
 * names us and `peer`, the connector).
 */
export function renderPrintTalk(req: PrintTalkInfo | undefined, answer: PrintTalkAnswerBody, peer = 'connector'): PrintTalkAnswer {
  const now = new Date().toISOString();
  const version = req?.version !== undefined && PRINTTALK_VERSIONS.includes(req.version) ? req.version : DEFAULT_PRINTTALK_VERSION;
  const body = '<?xml version="1.0" encoding="UTF-8"?>\n'
    + `<PrintTalk xmlns="${PRINTTALK_NS}" xmlns:xjdf="${XJDF_NS}" xmlns:oi="${ORDER_NS}"${attrs({ Version: version, payloadID: newToken('P'), timestamp: now })}>`
    + `<Header><From>${credentialXml(req?.to ?? [], { domain: 'SenderID', identity: SENDER_ID })}</From>`
    + `<To>${credentialXml(req?.from ?? [], { domain: 'Connector', identity: peer })}</To></Header>`
    + `<Request${attrs({ BusinessID: newToken('B'), BusinessRefID: isNmtoken(req?.businessId) ? req.businessId : undefined })}>`
    + `${businessObject(answer, now)}</Request></PrintTalk>\n`;
  return { contentType: PRINTTALK_CONTENT_TYPE, body };
}
