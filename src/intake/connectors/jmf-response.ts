/**
 * Answers a prepress system understands: what a JDF device or XJMF controller sends back. Every echoed value is
 * escaped, and characters XML 1.0 cannot carry are dropped, so a sender's text can never break the document.
 */
import { randomUUID } from 'node:crypto';
import type { JmfRequestInfo } from './types.ts';
import { JMF_MEDIA_TYPE, XJMF_MEDIA_TYPE } from './jmf.ts';

/** ReturnCode values from the JDF 1.x specification (appendix "Supported Error Codes in JMF"), reused by XJMF. */
export const JMF_RETURN_CODES = {
  ok: 0,
  general: 1,
  internal: 2,
  xmlParserError: 3,
  xmlValidationError: 4,
  notImplemented: 5,
  invalidParameters: 6,
  insufficientParameters: 7,
  deviceNotAvailable: 8,
  /** JDF 1.x 105: the QueueEntryID names no queue entry (what a controller answers for an unknown entry). */
  queueEntryNotFound: 105,
} as const;

const JDF_NS = 'http://www.CIP4.org/JDFSchema_1_1';
const XJDF_NS = 'http://www.CIP4.org/JDFSchema_2_0';
/** Who we say we are in SenderID / DeviceID. */
export const SENDER_ID = 'order-intake';
const DEFAULT_JMF_VERSION = '1.4';
const DEFAULT_XJMF_VERSION = '2.1';

// eslint-disable-next-line no-control-regex
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function escapeXml(value: string): string {
  return value.replace(NOT_XML_CHAR, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function attrs(values: Record<string, string | number | undefined>): string {
  return Object.entries(values)
    .filter((e): e is [string, string | number] => e[1] !== undefined)
    .map(([k, v]) => ` ${k}="${escapeXml(String(v))}"`)
    .join('');
}

const newId = (): string => `R${randomUUID().replace(/-/g, '')}`;
const now = (): string => new Date().toISOString();

export type JmfResult = { ok: true; queueEntryId: string; text?: string } | { ok: false; returnCode: number; text: string[] };

/**
 * The body of a response: QueueEntry on success, a Notification with one Comment per text otherwise. The
 * Notification comes first: XJMF's schema puts Response's own children (Header, Notification) before those of
 * ResponseSubmitQueueEntry (QueueEntry), and JMF 1.x takes either order.
 */
function content(result: JmfResult): string {
  if (result.ok) {
    const note = result.text ? `<Notification Class="Information"><Comment>${escapeXml(result.text)}</Comment></Notification>` : '';
    return `${note}<QueueEntry${attrs({ QueueEntryID: result.queueEntryId, Status: 'Waiting' })}/>`;
  }
  const texts = result.text.length > 0 ? result.text : ['The submission was refused'];
  return `<Notification Class="Error">${texts.map((t) => `<Comment>${escapeXml(t)}</Comment>`).join('')}</Notification>`;
}

/** XJMF names a response after its request: CommandSubmitQueueEntry → ResponseSubmitQueueEntry. */
export function xjmfResponseName(messageType: string | undefined): string {
  const bare = (messageType ?? 'SubmitQueueEntry').replace(/^(Command|Query|Signal|Response)/, '');
  return `Response${/^[A-Za-z][A-Za-z0-9]*$/.test(bare) ? bare : 'SubmitQueueEntry'}`;
}

export function jmfDocument(req: JmfRequestInfo | undefined, returnCode: number, inner: string): string {
  return '<?xml version="1.0" encoding="UTF-8"?>\n'
    + `<JMF xmlns="${JDF_NS}"${attrs({ SenderID: SENDER_ID, TimeStamp: now(), Version: req?.version ?? DEFAULT_JMF_VERSION })}>`
    + `<Response${attrs({ ID: newId(), Type: req?.messageType ?? 'SubmitQueueEntry', refID: req?.messageId, ReturnCode: returnCode })}>`
    + `${inner}</Response></JMF>\n`;
}

/** XJDF 2.x versions the schema knows; another echoed Version would make the answer invalid. */
const XJMF_VERSIONS: ReadonlySet<string> = new Set(['2.0', '2.1', '2.2', '2.3']);
/** xs:NMTOKEN, what Header/@refID must be: a request ID that is not one is not echoed. */
const NMTOKEN = /^[\p{L}\p{N}._:-]+$/u;

export function xjmfDocument(req: JmfRequestInfo | undefined, returnCode: number, inner: string): string {
  const name = xjmfResponseName(req?.messageType);
  const time = now();
  const version = req?.version !== undefined && XJMF_VERSIONS.has(req.version) ? req.version : DEFAULT_XJMF_VERSION;
  const refID = req?.messageId !== undefined && NMTOKEN.test(req.messageId) ? req.messageId : undefined;
  return '<?xml version="1.0" encoding="UTF-8"?>\n'
    + `<XJMF xmlns="${XJDF_NS}"${attrs({ Version: version })}>`
    + `<Header${attrs({ DeviceID: SENDER_ID, ID: newId(), Time: time })}/>`
    + `<${name}${attrs({ ReturnCode: returnCode })}>`
    + `<Header${attrs({ DeviceID: SENDER_ID, ID: newId(), Time: time, refID })}/>`
    + `${inner}</${name}></XJMF>\n`;
}

export function renderJmfResponse(
  req: JmfRequestInfo | undefined,
  result: JmfResult,
  kind?: 'jmf' | 'xjmf',
): { contentType: string; body: string } {
  const k = req?.kind ?? kind ?? 'jmf';
  const code = result.ok ? JMF_RETURN_CODES.ok : result.returnCode;
  return k === 'xjmf'
    ? { contentType: `${XJMF_MEDIA_TYPE}; charset=UTF-8`, body: xjmfDocument(req, code, content(result)) }
    : { contentType: `${JMF_MEDIA_TYPE}; charset=UTF-8`, body: jmfDocument(req, code, content(result)) };
}

/**
 * What this service answers: SubmitQueueEntry, Status signals, and the queries a controller sends to learn that. ResubmitQueueEntry
 * is answered (channels/connectors/resubmit.ts) but not carried out, so it is not announced.
 */
const SUPPORTED = [
  { type: 'SubmitQueueEntry', family: 'Command' },
  { type: 'KnownMessages', family: 'Query' },
  { type: 'SubmissionMethods', family: 'Query' },
  // Production status of submitted jobs (jmf-status.ts): a controller learns here that it may send it.
  { type: 'Status', family: 'Signal' },
] as const;

/**
 * KnownMessages: the list above. SubmissionMethods (JMF): tickets only by `cid:` inside a MIME package,
 * because fetching a URL the sender names would let anyone make this service call hosts on their behalf.
 */
export function answerJmfQuery(req: JmfRequestInfo): { contentType: string; body: string } | undefined {
  const bare = req.kind === 'xjmf' ? req.messageType.replace(/^Query/, '') : req.messageType;
  if (req.kind === 'xjmf' && !req.messageType.startsWith('Query')) return undefined;
  let inner: string;
  if (bare === 'KnownMessages') {
    // JMF 1.x: Type plus a family flag; XJMF 2.x names the message whole (CommandSubmitQueueEntry) and has no flags.
    // SubmissionMethods is a JMF 1.x query only (XJMF 2.x has none), so an XJMF controller is not told of it.
    inner = SUPPORTED.filter((s) => req.kind === 'jmf' || s.type !== 'SubmissionMethods').map((s) => (req.kind === 'xjmf'
      ? `<MessageService${attrs({ Type: `${s.family}${s.type}` })}/>`
      : `<MessageService${attrs({ Type: s.type, [s.family]: 'true' })}/>`)).join('');
  } else if (bare === 'SubmissionMethods' && req.kind === 'jmf') {
    inner = `<SubmissionMethods${attrs({ Packaging: 'MIME', URLSchemes: 'cid' })}/>`;
  } else {
    return undefined;
  }
  return req.kind === 'xjmf'
    ? { contentType: `${XJMF_MEDIA_TYPE}; charset=UTF-8`, body: xjmfDocument(req, JMF_RETURN_CODES.ok, inner) }
    : { contentType: `${JMF_MEDIA_TYPE}; charset=UTF-8`, body: jmfDocument(req, JMF_RETURN_CODES.ok, inner) };
}
