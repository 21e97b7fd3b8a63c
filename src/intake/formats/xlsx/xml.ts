/**
 * A small streaming XML reader for the parts of a workbook (SpreadsheetML is regular: elements, attributes, text).
 * Text is fed in pieces of any size as it is inflated; elements are told to the handler as they close or open, so
 * a sheet of a million rows is never held as a document. It refuses DOCTYPE and ENTITY declarations (an entity can
 * expand a few bytes into gigabytes, or reach outside the file) and knows the five predefined entities and character
 * references only. Names are given without their namespace prefix (`x:row` is `row`): writers differ in prefixes.
 */
import { IntakeError } from '../../../domain/errors.ts';

export interface XmlHandler {
  open(name: string, attrs: Record<string, string>, selfClosing: boolean): void;
  close(name: string): void;
  /** Text between tags, entities decoded; may come in several calls for one run of text. */
  text(t: string): void;
}

/** Longest tag or run of text held while waiting for its end: a real tag is short, a cell's text at most 32,767 chars. */
const MAX_PENDING = 1024 * 1024;

const ENTITY = /&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z]+);/g;
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function xmlRefused(part: string, why: string): IntakeError {
  return new IntakeError('NOT_PARSEABLE', `the Excel workbook cannot be read: ${part} ${why}`);
}

function decodeEntities(s: string, part: string): string {
  if (!s.includes('&')) return s;
  return s.replace(ENTITY, (_m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      if (!Number.isFinite(code) || code > 0x10ffff) throw xmlRefused(part, 'has a character reference out of range');
      return String.fromCodePoint(code);
    }
    const v = PREDEFINED[e];
    if (v === undefined) throw xmlRefused(part, `uses the entity &${e}; (only the predefined ones are accepted)`);
    return v;
  });
}

function localName(qname: string): string {
  const colon = qname.indexOf(':');
  return colon === -1 ? qname : qname.slice(colon + 1);
}

export class XmlReader {
  #pending = '';
  readonly #decoder = new TextDecoder('utf-8');

  constructor(private readonly part: string, private readonly h: XmlHandler) {}

  /** The next piece of the part's bytes. */
  feedBytes(chunk: Uint8Array): void {
    this.feed(this.#decoder.decode(chunk, { stream: true }));
  }

  /** The end of the part. */
  end(): void {
    this.feed(this.#decoder.decode());
    if (this.#pending.trim() !== '') throw xmlRefused(this.part, 'ends in the middle of an element');
  }

  feed(piece: string): void {
    const s = this.#pending + piece;
    let at = 0;
    const n = s.length;
    while (at < n) {
      const lt = s.indexOf('<', at);
      if (lt === -1) {
        // Text without its end yet: entities may be cut, so it waits for the next '<'.
        break;
      }
      if (lt > at) this.#text(s.slice(at, lt));
      at = lt;
      const c1 = s.charCodeAt(lt + 1);
      if (c1 === 0x21 /* ! */) {
        const end = this.#special(s, lt);
        if (end === -1) break;
        at = end;
        continue;
      }
      if (c1 === 0x3f /* ? */) {
        const end = s.indexOf('?>', lt + 2);
        if (end === -1) break;
        at = end + 2;
        continue;
      }
      const gt = tagEnd(s, lt + 1);
      if (gt === -1) break;
      this.#tag(s.slice(lt + 1, gt));
      at = gt + 1;
    }
    this.#pending = at >= n ? '' : s.slice(at);
    if (this.#pending.length > MAX_PENDING) throw xmlRefused(this.part, `has a tag or text longer than ${MAX_PENDING} characters`);
  }

  #text(raw: string): void {
    this.h.text(decodeEntities(raw, this.part));
  }

  /** `<!...`: a comment or CDATA; a DOCTYPE or anything else is refused. The index after it, or -1 if not complete. */
  #special(s: string, lt: number): number {
    if (s.startsWith('<!--', lt)) {
      const end = s.indexOf('-->', lt + 4);
      return end === -1 ? -1 : end + 3;
    }
    if (s.startsWith('<![CDATA[', lt)) {
      const end = s.indexOf(']]>', lt + 9);
      if (end === -1) return -1;
      this.h.text(s.slice(lt + 9, end));
      return end + 3;
    }
    if (s.length - lt < 9) return -1;
    if (/^<!DOCTYPE/i.test(s.slice(lt, lt + 9))) throw xmlRefused(this.part, 'has a DOCTYPE declaration, which is not accepted');
    if (/^<!ENTITY/i.test(s.slice(lt, lt + 8))) throw xmlRefused(this.part, 'has an ENTITY declaration, which is not accepted');
    throw xmlRefused(this.part, 'is not well-formed XML');
  }

  #tag(body: string): void {
    if (body.charCodeAt(0) === 0x2f /* / */) {
      this.h.close(localName(body.slice(1).trim()));
      return;
    }
    const selfClosing = body.charCodeAt(body.length - 1) === 0x2f;
    const inner = selfClosing ? body.slice(0, -1) : body;
    const space = firstSpace(inner);
    const name = localName(space === -1 ? inner : inner.slice(0, space));
    const attrs: Record<string, string> = Object.create(null) as Record<string, string>;
    if (space !== -1) readAttributes(inner, space, attrs, this.part);
    this.h.open(name, attrs, selfClosing);
    if (selfClosing) this.h.close(name);
  }
}

function firstSpace(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) return i;
  }
  return -1;
}

/** `name="value"` pairs from `from` on (the hot path of a sheet: a few short attributes per cell). */
function readAttributes(s: string, from: number, attrs: Record<string, string>, part: string): void {
  let i = from;
  for (;;) {
    const eq = s.indexOf('=', i);
    if (eq === -1) return;
    const name = s.slice(i, eq).trim();
    let q = eq + 1;
    while (q < s.length && s.charCodeAt(q) !== 0x22 && s.charCodeAt(q) !== 0x27) q++;
    if (q >= s.length) return;
    const end = s.indexOf(s[q]!, q + 1);
    if (end === -1) throw xmlRefused(part, 'is not well-formed XML');
    attrs[localName(name)] = decodeEntities(s.slice(q + 1, end), part);
    i = end + 1;
  }
}

/** The '>' ending a tag that starts at `from`, skipping quoted attribute values; -1 when not in `s` yet. */
function tagEnd(s: string, from: number): number {
  let quote = 0;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (quote) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) quote = c;
    else if (c === 0x3e) return i;
  }
  return -1;
}
