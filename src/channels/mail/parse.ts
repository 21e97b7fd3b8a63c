/**
 * Reading a stored message (mailparser): who wrote it and where the reply goes, whether a reply is allowed at all,
 * and its order files: every attachment that is a JSON, XML, CSV or Excel file, and those inside ZIP attachments. File
 * names arrive decoded from RFC 2047 and RFC 2231 by mailparser. Parsing is deterministic, so a message read again
 * after a restart gives the same parts in the same order (their index is part of their identity).
 */
import { simpleParser, type AddressObject, type Attachment, type HeaderValue, type ParsedMail } from 'mailparser';
import { MAIL_LIMITS } from './limits.ts';
import { noReplyReason } from './loops.ts';
import { readZip, ZipRefused } from './zip.ts';
import { formatOfFileName, formatOfMediaType, usualExtension } from '../../intake/formats/index.ts';

export interface OrderPart {
  /** Position among the message's order files, from 0: with the message id, the part's identity. */
  idx: number;
  fileName: string;
  /** Declared media type when it names an order format (otherwise the core detects the format). */
  mediaType?: string;
  charset?: string;
  raw: Buffer;
  /** The ZIP attachment the file came from. */
  zip?: string;
}

export interface ParsedMessage {
  messageId?: string;
  subject: string;
  /** The From address (lower case), if any. */
  from?: string;
  /** Where a reply goes: Reply-To, else From, else the envelope sender. Undefined: nowhere. */
  replyTo?: string;
  /** Message-IDs for the reply's References header (the original's references, then its own id). */
  references: string[];
  /** Why no reply may be sent (bounce, auto-submitted, list mail, …); undefined: a reply is due. */
  noReply?: string;
  parts: OrderPart[];
  /** Attachments (and ZIP entries) that are not order files, by name. */
  ignored: string[];
  /** Italian sentences: attachments that look like orders but could not be read, and why. */
  problems: string[];
}

const ZIP_EXT = /\.zip$/i;
/** Any other extension says what the file is (a PDF, a logo, a signature) and that it is not an order file. */
const OTHER_EXT = /\.[A-Za-z0-9]{1,8}$/;
/**
 * Spreadsheets saved in a form we do not read: people mean them as order files, so the reply says how to save them
 * (ignoring them as "not order files" would leave the sender guessing).
 */
const OTHER_SPREADSHEETS: [RegExp, string][] = [
  [/\.xls$/i, 'è una cartella di lavoro Excel di vecchio formato (.xls), che non è accettata: la salvi come .xlsx (Cartella di lavoro di Excel) e la invii di nuovo'],
  [/\.ods$/i, 'è un foglio di calcolo OpenDocument (.ods), che non è accettato: lo salvi come .xlsx (Cartella di lavoro di Excel) e lo invii di nuovo'],
];
const ZIP_TYPES = new Set(['application/zip', 'application/x-zip-compressed', 'application/x-zip', 'multipart/x-zip']);
/** An order file by its name: an extension of a registered format. */
const isOrderName = (name: string) => formatOfFileName(name) !== undefined;
/**
 * The declared type of an order attachment, when it names a format exactly: handed to the core. Loose labels (Excel's
 * type for .csv) are not: they would only mislead it.
 */
const declared = (type: string) => (formatOfMediaType(type) !== undefined ? type : undefined);
/** Longest file name kept: file systems stop at 255 bytes, and a name is a label, not data. */
const MAX_NAME = 200;

/** The last path segment, without control characters (some clients send "C:\\Export\\ordine.csv"). */
export function cleanFileName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const base = name.split(/[\\/]/).pop()!.replace(/[\x00-\x1f\x7f]/g, '').trim();
  return base.length > MAX_NAME ? base.slice(base.length - MAX_NAME) : base;
}

type Kind = 'order' | 'zip' | 'other';

function kindOf(name: string | undefined, type: string): Kind {
  if (name && isOrderName(name)) return 'order';
  if (name && ZIP_EXT.test(name)) return 'zip';
  // A type that names an order format exactly wins over a name that says nothing of it: mail programs name an
  // attachment they have no extension for `attachment-1.txt`.
  if (formatOfMediaType(type) !== undefined) return 'order';
  if (name && OTHER_EXT.test(name)) return 'other';
  if (ZIP_TYPES.has(type)) return 'zip';
  return 'other';
}

function nameFor(a: Attachment, kind: Kind, n: number): string {
  const given = a.filename ? cleanFileName(a.filename) : '';
  if (given) return given;
  const format = kind === 'order' ? formatOfMediaType(a.contentType) : undefined;
  const ext = kind === 'zip' ? '.zip' : format ? `.${usualExtension(format)}` : '';
  return `allegato-${n + 1}${ext}`;
}

function charsetOf(a: Attachment): string | undefined {
  const ct = a.headers.get('content-type') as { params?: Record<string, string> } | undefined;
  const cs = ct?.params?.charset?.trim().toLowerCase();
  return cs && /^[a-z0-9._:-]{1,40}$/.test(cs) ? cs : undefined;
}

function firstAddress(v: AddressObject | AddressObject[] | undefined): string | undefined {
  const list = Array.isArray(v) ? v : v ? [v] : [];
  for (const obj of list) {
    for (const a of obj.value) {
      if (a.address && /^[^\s@<>]+@[^\s@<>]+$/.test(a.address)) return a.address.toLowerCase();
    }
  }
  return undefined;
}

function text(v: HeaderValue | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : '')).join(', ');
  if (typeof v === 'object' && 'value' in v && typeof v.value === 'string') return v.value;
  return undefined;
}

/** The Return-Path header a delivering server adds (IMAP): '' for the null sender, undefined when absent. */
function returnPath(v: HeaderValue | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'object' && 'value' in v && Array.isArray(v.value)) {
    const first = (v as AddressObject).value[0];
    return first ? (first.address ?? '').toLowerCase() : '';
  }
  const t = text(v)?.trim();
  return t === undefined ? undefined : t.replace(/^<|>$/g, '').toLowerCase();
}

function messageIds(v: string | string[] | undefined): string[] {
  const list = Array.isArray(v) ? v : v ? v.split(/\s+/) : [];
  return list.map((x) => x.trim()).filter((x) => /^<[^<>\s]{1,250}>$/.test(x));
}

/** Italian PEC: the provider's envelope carries its own XML (daticert.xml), which is a receipt, never an order. */
function isPecEnvelope(parsed: ParsedMail): boolean {
  return text(parsed.headers.get('x-trasporto'))?.trim().toLowerCase() === 'posta-certificata';
}

export interface ParseOptions {
  /** The SMTP MAIL FROM ('' = null sender); undefined when not known (IMAP: the Return-Path header is used). */
  envelopeFrom?: string;
  /** Largest order file, inflated ZIP entries too (config.maxFileBytes). */
  maxFileBytes: number;
  /** Addresses the service itself answers from: never replied to, so it cannot answer its own replies. */
  ownDomain: string;
}

export async function parseMessage(raw: Buffer, opts: ParseOptions): Promise<ParsedMessage> {
  const parsed = await simpleParser(raw, {
    skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, skipTextLinks: true, maxHtmlLengthToParse: 1024 * 1024,
  });
  const envelopeFrom = opts.envelopeFrom ?? returnPath(parsed.headers.get('return-path'));
  const from = firstAddress(parsed.from);
  const replyTo = firstAddress(parsed.replyTo) ?? from ?? (envelopeFrom ? envelopeFrom.toLowerCase() : undefined);
  const noReply = noReplyReason({ envelopeFrom, headers: parsed.headers, replyTo, ownDomain: opts.ownDomain });
  const own = messageIds(parsed.messageId);
  const references = [...messageIds(parsed.references), ...own].slice(-20);

  const out: ParsedMessage = {
    messageId: own[0], subject: (parsed.subject ?? '').replace(/\s+/g, ' ').trim(), from, replyTo, references, noReply,
    parts: [], ignored: [], problems: [],
  };
  const pec = isPecEnvelope(parsed);
  const add = (p: Omit<OrderPart, 'idx'>): boolean => {
    if (out.parts.length >= MAIL_LIMITS.partsPerMessage) {
      out.problems.push(`${p.fileName}: il messaggio contiene troppi file d'ordine, al massimo ${MAIL_LIMITS.partsPerMessage}; inviare i restanti in un altro messaggio`);
      return false;
    }
    out.parts.push({ idx: out.parts.length, ...p });
    return true;
  };

  for (const [n, a] of parsed.attachments.entries()) {
    // Pictures of an HTML body (logos, signatures) are part of the text, not attachments the sender chose.
    if (a.related && !a.filename) continue;
    const type = a.contentType.toLowerCase();
    const kind = kindOf(a.filename ? cleanFileName(a.filename) : undefined, type);
    const fileName = nameFor(a, kind, n);
    const spreadsheet = kind === 'other' ? OTHER_SPREADSHEETS.find(([re]) => re.test(fileName)) : undefined;
    if (spreadsheet) {
      out.problems.push(`${fileName}: ${spreadsheet[1]}`);
      continue;
    }
    if (kind === 'other' || (pec && fileName.toLowerCase() === 'daticert.xml')) {
      out.ignored.push(fileName);
      continue;
    }
    if (a.content.length > opts.maxFileBytes) {
      out.problems.push(`${fileName}: il file supera ${opts.maxFileBytes} byte e non è stato elaborato`);
      continue;
    }
    if (kind === 'order') {
      add({ fileName, mediaType: declared(type), charset: charsetOf(a), raw: a.content });
      continue;
    }
    try {
      const zip = await readZip(a.content, { maxBytes: opts.maxFileBytes, maxFiles: MAIL_LIMITS.partsPerMessage - out.parts.length },
        isOrderName);
      for (const f of zip.files) if (!add({ fileName: cleanFileName(f.name), raw: f.raw, zip: fileName })) break;
      out.ignored.push(...zip.ignored.map((i) => `${fileName}: ${i}`));
      out.problems.push(...zip.problems.map((p) => `${fileName}: ${p}`));
    } catch (e) {
      if (!(e instanceof ZipRefused)) throw e;
      out.problems.push(`${fileName}: ${e.message}`);
    }
  }
  return out;
}
