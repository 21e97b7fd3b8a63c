/**
 * Connector payloads (issue 6) → order candidates: JDF/JMF, XJDF/XJMF, and an ERP's JSON/XML through the
 * connector's JSONata mapping. Pure decoding: the connector's profile comes in, candidates and the site the
 * payload names go out; the judge validates and registers as for every channel.
 *
 * Every failure on bad input is an IntakeError: NOT_PARSEABLE (malformed, hostile, a ticket that cannot be
 * reached) or UNSUPPORTED_MEDIA_TYPE (a content type the connector's format does not take).
 */
import { IntakeError } from '../../domain/errors.ts';
import type { ConnectorFormat } from '../../domain/store/connectors.ts';
import { decodeOrders } from '../formats/decode.ts';
import { MAX_JSON_DEPTH } from '../formats/json/index.ts';
import { decodeText, printable } from '../formats/text.ts';
import { decodeJdf } from './jdf.ts';
import { jmfInfo, JMF_MEDIA_TYPE, submissionParams, XJMF_MEDIA_TYPE } from './jmf.ts';
import { ordersWithSite, runMapping } from './mapping.ts';
import { parseMediaType, partForCid, partForLocation, readRelatedParts, rootPartPeek, type MimePart } from './multipart.ts';
import type { Alternative } from './product-key-template.ts';
import type { DecodedTicket, TicketContext, TicketNotes } from './ticket.ts';
import { decodePrintTalk, printTalkInfo, sniffPrintTalk, unsupportedPrintTalk, type PrintTalkInfo } from './printtalk.ts';
import { decodeXjdf } from './xjdf.ts';
import type { ArticleLookup, JmfRequestInfo } from './types.ts';
import { attr, readPlain, readTree, type XmlRoot } from './xml-tree.ts';

export { compileMapping } from './mapping.ts';
export { answerJmfQuery, escapeXml, jmfDocument, JMF_RETURN_CODES, renderJmfResponse, xjmfDocument, type JmfResult } from './jmf-response.ts';
export { JMF_STATUS_MAPPING, MAX_JOB_PHASES, statusMapping, type JobStatusReport, type StatusMapping } from './jmf-status.ts';
export { normaliseProductKey, DEFAULT_UNIT } from './product-key.ts';
export { cancellationRefs, PRINTTALK_NS, type PrintTalkInfo } from './printtalk.ts';
export {
  renderPrintTalk, PRINTTALK_CONTENT_TYPE, type ConfirmedOrder, type PrintTalkAnswer, type PrintTalkReason, type StatusNotification,
} from './printtalk-answer.ts';

/** How a connector's payloads are read (defined with the Connector in src/domain/store/connectors.ts). */
export type { ConnectorFormat };
export type { ArticleLookup, JmfRequestInfo } from './types.ts';

export interface ConnectorProfile {
  format: ConnectorFormat;
  /** Product key → article, keys already normalised with normaliseProductKey(); see product-key.ts. */
  lookup: ReadonlyMap<string, ArticleLookup>;
  /** JSONata expression for json/xml formats. */
  mapping?: string;
  /** The connector's product key template, parsed (product-key-template.ts); unset: the built-in keys. */
  productKey?: readonly Alternative[];
}

export type PayloadKind = 'jdf' | 'xjdf' | 'jmf' | 'xjmf' | 'printtalk' | 'json' | 'xml';

export interface ConnectorDecoded {
  kind: PayloadKind;
  /** Order candidates in the core's plain shape, not yet validated. */
  candidates: unknown[];
  /** A production site named inside the payload, if any. The caller checks it against the key's sites. */
  site?: string;
  jmf?: JmfRequestInfo;
  /** JDF/XJDF: one per candidate, what the judge needs beyond it (product keys, details, defaulted date). */
  notes?: TicketNotes[];
  /** PrintTalk Cancellation: per candidate, other references it may mean when no order has its own. */
  otherRefs?: Array<string[] | undefined>;
}

export interface ConnectorInput {
  raw: Buffer;
  /** The full Content-Type header as received (parameters included: multipart/related needs its boundary). */
  contentType?: string;
  profile: ConnectorProfile;
  /** ISO date-time the submission was received: data_ordine when the ticket carries no date of its own. */
  receivedAt: string;
}

/**
 * Largest payload decoded. Parsed XML takes several times its size in memory and the judge holds one payload
 * at a time; the routes' body limits are lower, so this only guards other callers (reprocessing, tests).
 */
export const MAX_CONNECTOR_PAYLOAD_BYTES = 32 * 1024 * 1024;

const JDF_TYPES: ReadonlySet<string> = new Set(['application/vnd.cip4-jdf+xml', JMF_MEDIA_TYPE]);
const XJDF_TYPES: ReadonlySet<string> = new Set(['application/vnd.cip4-xjdf+xml', XJMF_MEDIA_TYPE]);
const XML_TYPES: ReadonlySet<string> = new Set(['application/xml', 'text/xml']);
const JSON_TYPES: ReadonlySet<string> = new Set(['application/json', 'text/json']);
/** Labels that say nothing about the content: the connector's format decides. */
const GENERIC_TYPES: ReadonlySet<string> = new Set(['text/plain', 'application/octet-stream']);
const MULTIPART_RELATED = 'multipart/related';

export function isJmfContentType(contentType?: string): boolean {
  const { base, params } = parseMediaType(contentType);
  if (base === JMF_MEDIA_TYPE || base === XJMF_MEDIA_TYPE) return true;
  const type = params.get('type')?.trim().toLowerCase();
  return base === MULTIPART_RELATED && (type === JMF_MEDIA_TYPE || type === XJMF_MEDIA_TYPE);
}

/** A quick look at a JMF/XJMF request, for the route; never throws. */
export function readJmfRequest(raw: Buffer, contentType?: string): JmfRequestInfo | undefined {
  try {
    const { base, params } = parseMediaType(contentType);
    const body = base === MULTIPART_RELATED && contentType !== undefined ? rootPartPeek(raw, contentType) : raw;
    if (body === undefined || body.length > MAX_CONNECTOR_PAYLOAD_BYTES) return undefined;
    return jmfInfo(readTree(body, base === MULTIPART_RELATED ? undefined : params.get('charset'), 'JMF'));
  } catch {
    return undefined;
  }
}

/**
 * A quick look at a PrintTalk request, for the route: undefined when the body is not a PrintTalk document; else what
 * it says, or why it cannot be read (the route answers that in a Refusal). Never throws.
 */
export function readPrintTalkRequest(raw: Buffer, contentType?: string): { info?: PrintTalkInfo; problem?: string } | undefined {
  const sniffed = raw.length <= MAX_CONNECTOR_PAYLOAD_BYTES ? sniffPrintTalk(raw) : undefined;
  if (!sniffed) return undefined;
  try {
    const root = readTree(raw, parseMediaType(contentType).params.get('charset'), 'PrintTalk');
    if (root.name !== 'PrintTalk') return undefined;
    const info = printTalkInfo(root);
    const problem = unsupportedPrintTalk(sniffed.namespace, info.version);
    return problem === undefined ? { info } : { info, problem };
  } catch (e) {
    return { problem: `Il documento PrintTalk non può essere letto: ${e instanceof Error ? printable(e.message, 300) : 'illeggibile'}` };
  }
}

const FORMAT_NAMES: Readonly<Record<ConnectorFormat, string>> = {
  jdf: 'JDF 1.x tickets or JMF 1.x messages',
  xjdf: 'XJDF 2.x tickets, XJMF 2.x messages or PrintTalk 2.x',
  json: 'JSON',
  xml: 'XML',
};

function refuseType(format: ConnectorFormat, type: string): never {
  throw new IntakeError('UNSUPPORTED_MEDIA_TYPE', `this connector takes ${FORMAT_NAMES[format]}, not ${printable(type)}`);
}

function acceptsType(format: ConnectorFormat, base: string): boolean {
  if (GENERIC_TYPES.has(base)) return true;
  switch (format) {
    case 'jdf': return JDF_TYPES.has(base) || XML_TYPES.has(base) || base === MULTIPART_RELATED;
    case 'xjdf': return XJDF_TYPES.has(base) || XML_TYPES.has(base) || base === MULTIPART_RELATED;
    case 'json': return JSON_TYPES.has(base) || base.endsWith('+json');
    case 'xml': return XML_TYPES.has(base) || base.endsWith('+xml');
  }
}

export async function decodeConnectorPayload(input: ConnectorInput): Promise<ConnectorDecoded> {
  const { raw, profile } = input;
  if (raw.length > MAX_CONNECTOR_PAYLOAD_BYTES) {
    throw new IntakeError('NOT_PARSEABLE', `the payload is larger than ${MAX_CONNECTOR_PAYLOAD_BYTES / (1024 * 1024)} MiB`);
  }
  const { base, params } = parseMediaType(input.contentType);
  if (base !== undefined && !acceptsType(profile.format, base)) refuseType(profile.format, base);
  if (raw.length === 0 || raw.every((b) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d)) {
    throw new IntakeError('NOT_PARSEABLE', 'the body is empty');
  }
  const charset = params.get('charset');
  if (profile.format === 'json' || profile.format === 'xml') return decodeErp(input, charset);
  const ctx: TicketContext = { lookup: profile.lookup, receivedAt: input.receivedAt, ...(profile.productKey ? { productKey: profile.productKey } : {}) };
  if (base === MULTIPART_RELATED) {
    const parts = await readRelatedParts(raw, input.contentType ?? '');
    return decodeCip4(readTree(parts.root.content, parts.root.charset, 'JMF'), profile.format, ctx, parts.others);
  }
  return decodeCip4(readTree(raw, charset, profile.format === 'jdf' ? 'JDF' : 'XJDF'), profile.format, ctx, undefined);
}

const TICKET_ROOT = { jdf: 'JDF', xjdf: 'XJDF' } as const;
const PRINTTALK_ROOT = 'PrintTalk';
const MESSAGE_ROOT = { jdf: 'JMF', xjdf: 'XJMF' } as const;

function decodeTicket(root: XmlRoot, format: 'jdf' | 'xjdf', ctx: TicketContext): DecodedTicket {
  return format === 'jdf' ? decodeJdf(root.node, ctx) : decodeXjdf(root.node, ctx);
}

function wrongRoot(root: XmlRoot, format: 'jdf' | 'xjdf'): never {
  const other = format === 'jdf' ? 'xjdf' : 'jdf';
  if (root.name === TICKET_ROOT[other] || root.name === MESSAGE_ROOT[other]) {
    throw new IntakeError('UNSUPPORTED_MEDIA_TYPE', `this connector takes ${FORMAT_NAMES[format]}; <${root.name}> needs a connector with format ${other}`);
  }
  throw new IntakeError('NOT_PARSEABLE', `the root element must be <${TICKET_ROOT[format]}> or <${MESSAGE_ROOT[format]}>, not <${printable(root.name)}>`);
}

async function decodeCip4(root: XmlRoot, format: 'jdf' | 'xjdf', ctx: TicketContext, parts: MimePart[] | undefined): Promise<ConnectorDecoded> {
  if (root.name === PRINTTALK_ROOT) {
    if (format !== 'xjdf') throw new IntakeError('UNSUPPORTED_MEDIA_TYPE', `this connector takes ${FORMAT_NAMES[format]}; <PrintTalk> needs a connector with format xjdf`);
    const p = decodePrintTalk(root, ctx);
    return {
      kind: 'printtalk', candidates: p.candidates, notes: p.notes,
      ...(p.site === undefined ? {} : { site: p.site }), ...(p.otherRefs === undefined ? {} : { otherRefs: p.otherRefs }),
    };
  }
  if (root.name === TICKET_ROOT[format]) {
    const t = decodeTicket(root, format, ctx);
    return { kind: format, candidates: [t.candidate], notes: [t.notes], ...(t.site === undefined ? {} : { site: t.site }) };
  }
  if (root.name !== MESSAGE_ROOT[format]) wrongRoot(root, format);
  const jmf = jmfInfo(root);
  const params = submissionParams(root);
  if (!jmf || !params) {
    const what = jmf ? `a ${jmf.messageType} message` : 'no message';
    throw new IntakeError('NOT_PARSEABLE', `the ${root.name} holds ${printable(what, 60)}; only ${format === 'jdf' ? 'SubmitQueueEntry' : 'CommandSubmitQueueEntry'} brings orders`);
  }
  const ticketBytes = ticketPart(attr(params, 'URL'), parts);
  const ticket = readTree(ticketBytes.content, ticketBytes.charset, TICKET_ROOT[format]);
  if (ticket.name !== TICKET_ROOT[format]) {
    if (ticket.name === TICKET_ROOT[format === 'jdf' ? 'xjdf' : 'jdf']) wrongRoot(ticket, format);
    throw new IntakeError('NOT_PARSEABLE', `the submitted ticket must be a <${TICKET_ROOT[format]}>, not <${printable(ticket.name)}>`);
  }
  const t = decodeTicket(ticket, format, ctx);
  return { kind: format === 'jdf' ? 'jmf' : 'xjmf', candidates: [t.candidate], notes: [t.notes], jmf, ...(t.site === undefined ? {} : { site: t.site }) };
}

const SEND_IN_PACKAGE = 'send the ticket in the same multipart/related request, as the part with that Content-ID (cid:) or Content-Location';

/**
 * Where the ticket of a submission is: a part of the same multipart/related package, named by `cid:<Content-ID>`
 * (RFC 2392) or by a Content-Location equal to the URL (RFC 2557: how CIP4's own sample names it, an http URL).
 * Nothing is ever fetched: fetching an http(s), ftp or file URL a sender names would let anyone make this service
 * reach hosts and files on their behalf (SSRF). A package with the JMF and exactly one other part and no URL is
 * read as that part, which is what some workflows send.
 */
function ticketPart(url: string | undefined, parts: MimePart[] | undefined): MimePart {
  if (url === undefined) {
    if (parts?.length === 1 && parts[0]) return parts[0];
    throw new IntakeError('NOT_PARSEABLE', `QueueSubmissionParams has no URL; ${SEND_IN_PACKAGE}`);
  }
  if (!/^cid:/i.test(url)) {
    const located = parts && partForLocation(url, parts);
    if (located) return located;
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
    throw new IntakeError('NOT_PARSEABLE', `tickets are not fetched from ${scheme ? `${printable(scheme)}: URLs` : `"${printable(url)}"`} (${printable(url, 120)}); ${SEND_IN_PACKAGE}`);
  }
  if (parts === undefined) throw new IntakeError('NOT_PARSEABLE', `the URL ${printable(url)} names a MIME part, but the request is not multipart/related; ${SEND_IN_PACKAGE}`);
  const part = partForCid(url, parts);
  if (!part) throw new IntakeError('NOT_PARSEABLE', `the request holds no part with Content-ID ${printable(url.slice(4))}`);
  return part;
}

async function decodeErp(input: ConnectorInput, charset: string | undefined): Promise<ConnectorDecoded> {
  const { raw, profile } = input;
  const kind = profile.format === 'json' ? 'json' : 'xml';
  if (profile.mapping === undefined || profile.mapping.trim() === '') {
    // The spec's own order JSON/XML: the core decodes it, told which of the two it is.
    const mediaType = `${kind === 'json' ? 'application/json' : 'application/xml'}${charset ? `; charset=${charset}` : ''}`;
    const mapped = ordersWithSite(decodeOrders({ raw, mediaType }));
    return { kind, ...mapped };
  }
  const data = kind === 'json' ? readJsonValue(raw, charset) : readPlain(raw, charset, 'XML');
  return { kind, ...(await runMapping(profile.mapping, data, input.receivedAt)) };
}

function readJsonValue(raw: Buffer, charset: string | undefined): unknown {
  const text = decodeText(raw, { charset, label: 'JSON' });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new IntakeError('NOT_PARSEABLE', `body must be valid JSON (${printable(e instanceof Error ? e.message : 'unreadable', 200)})`);
  }
  checkJsonDepth(value);
  return value;
}

/** Same bound as the core's JSON orders, for the same reason (everything after the parse recurses). */
function checkJsonDepth(root: unknown): void {
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_JSON_DEPTH) throw new IntakeError('NOT_PARSEABLE', `body must not nest objects or arrays more than ${MAX_JSON_DEPTH} levels deep`);
    for (const child of Object.values(value)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
}
