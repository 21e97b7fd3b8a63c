/**
 * multipart/related (RFC 2387) as JMF senders use it: the JMF is the root part, the JDF travels in another part
 * and QueueSubmissionParams/@URL names it as `cid:<Content-ID>` (RFC 2392).
 *
 * The full decode uses mailparser, which already parses every MIME entity the mail channels receive (transfer
 * encodings, charsets, nesting). readJmfRequest needs a synchronous peek at the root part only; rootPartPeek
 * does that for the common case (root part 7bit/8bit/binary or base64) and gives up otherwise.
 */
import { simpleParser } from 'mailparser';
import { IntakeError } from '../../domain/errors.ts';
import { printable } from '../formats/text.ts';

/**
 * Parts accepted in one request. A submission needs two (JMF + JDF); a few more leave room for previews or a
 * second ticket. The bound keeps a request with thousands of tiny parts from costing thousands of objects.
 */
export const MAX_PARTS = 16;

export interface MediaType {
  base: string | undefined;
  params: ReadonlyMap<string, string>;
}

/** `multipart/related; boundary="x"; type="application/vnd.cip4-jmf+xml"` → base type and parameters. */
export function parseMediaType(contentType: string | undefined): MediaType {
  const params = new Map<string, string>();
  if (contentType === undefined) return { base: undefined, params };
  const [head = '', ...rest] = contentType.split(';');
  const re = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;]*))\s*$/;
  for (const p of rest) {
    const m = re.exec(p);
    if (m?.[1]) params.set(m[1].toLowerCase(), m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3] ?? '');
  }
  const base = head.trim().toLowerCase();
  return { base: base === '' ? undefined : base, params };
}

export interface MimePart {
  /** Bare media type, lower case. */
  contentType: string;
  charset?: string;
  /** Without the angle brackets. */
  contentId?: string;
  /** RFC 2557: the URL this part stands for, so a JMF naming the ticket by its http URL finds it in the package. */
  contentLocation?: string;
  content: Buffer;
}

export interface RelatedParts {
  root: MimePart;
  others: MimePart[];
}

const stripAngles = (id: string): string => id.trim().replace(/^<|>$/g, '').trim();

/** The parts of a multipart/related body, root first (the `start` parameter's part, else the first part). */
export async function readRelatedParts(raw: Buffer, contentType: string): Promise<RelatedParts> {
  const { params } = parseMediaType(contentType);
  if (!params.get('boundary')) throw new IntakeError('NOT_PARSEABLE', 'multipart/related needs a boundary parameter');
  // mailparser reads a whole MIME entity; the header line makes the body one. Header folding is not needed:
  // a line break in the received header would already have ended it.
  const header = Buffer.from(`Content-Type: ${contentType.replace(/[\r\n]+/g, ' ')}\r\nMIME-Version: 1.0\r\n\r\n`, 'latin1');
  let parsed;
  try {
    parsed = await simpleParser(Buffer.concat([header, raw]), { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true });
  } catch (e) {
    throw new IntakeError('NOT_PARSEABLE', `the multipart/related body cannot be read (${printable(e instanceof Error ? e.message : 'unreadable', 120)})`);
  }
  const parts: MimePart[] = parsed.attachments.map((a) => {
    // mailparser keeps the part's Content-Type parameters in its header map only.
    const header = a.headers.get('content-type');
    const charset = typeof header === 'object' && header !== null && 'params' in header ? header.params.charset : undefined;
    return {
      contentType: a.contentType,
      ...(charset ? { charset } : {}),
      ...(a.contentId ? { contentId: stripAngles(a.contentId) } : {}),
      ...(typeof a.headers.get('content-location') === 'string' ? { contentLocation: String(a.headers.get('content-location')).trim() } : {}),
      content: a.content,
    };
  });
  if (parts.length > MAX_PARTS) throw new IntakeError('NOT_PARSEABLE', `a multipart/related request may hold at most ${MAX_PARTS} parts`);
  const start = params.get('start');
  const rootIndex = start === undefined ? 0 : parts.findIndex((p) => p.contentId === stripAngles(start));
  const root = parts[rootIndex];
  if (root === undefined) {
    throw new IntakeError('NOT_PARSEABLE', start === undefined
      ? 'the multipart/related body holds no part (a text/plain part is not read: send the JMF as application/vnd.cip4-jmf+xml)'
      : `the multipart/related start part "${printable(start)}" is not in the body`);
  }
  return { root, others: parts.filter((_, i) => i !== rootIndex) };
}

/** The part a `cid:` URL names (RFC 2392: the Content-ID, URL-encoded, without angle brackets). */
export function partForCid(url: string, parts: readonly MimePart[]): MimePart | undefined {
  const raw = url.replace(/^cid:/i, '');
  let id = raw;
  try {
    id = decodeURIComponent(raw);
  } catch {
    // A malformed escape: compare it as written.
  }
  return parts.find((p) => p.contentId === id || p.contentId === raw);
}

/** The part whose Content-Location is this URL (RFC 2557), compared as written. */
export function partForLocation(url: string, parts: readonly MimePart[]): MimePart | undefined {
  return parts.find((p) => p.contentLocation !== undefined && p.contentLocation === url.trim());
}

/** Root part body, synchronously, for a quick look at the JMF header; undefined when it cannot be had cheaply. */
export function rootPartPeek(raw: Buffer, contentType: string): Buffer | undefined {
  const { params } = parseMediaType(contentType);
  const boundary = params.get('boundary');
  if (!boundary) return undefined;
  const text = raw.toString('latin1');
  const delimiter = `--${boundary}`;
  const sections = text.split(delimiter).slice(1, MAX_PARTS + 1);
  const start = params.get('start');
  for (const section of sections) {
    if (section.startsWith('--')) break; // the close delimiter
    const body = section.replace(/^[ \t]*\r?\n/, '');
    const split = /\r?\n\r?\n/.exec(body);
    if (!split) continue;
    const headers = body.slice(0, split.index);
    const content = body.slice(split.index + split[0].length).replace(/\r?\n$/, '');
    const id = /^content-id:\s*(.+)$/im.exec(headers)?.[1];
    if (start !== undefined && (id === undefined || stripAngles(id) !== stripAngles(start))) continue;
    const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase();
    if (encoding === 'base64') return Buffer.from(content, 'base64');
    if (encoding === undefined || encoding === '7bit' || encoding === '8bit' || encoding === 'binary') return Buffer.from(content, 'latin1');
    return undefined;
  }
  return undefined;
}
