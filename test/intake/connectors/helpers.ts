/** Shared pieces of the connector decoding tests: samples, profiles, multipart bodies, error assertions. */
import { readFileSync } from 'node:fs';
import type { ErrorCode, IntakeError } from '../../../src/domain/errors.ts';
import {
  normaliseProductKey, type ArticleLookup, type ConnectorFormat, type ConnectorProfile,
} from '../../../src/intake/connectors/index.ts';
import { assertIntakeError } from '../formats/helpers.ts';

export const RECEIVED_AT = '2026-11-22T08:30:00.000Z';

export function fixture(name: string): Buffer {
  return readFileSync(new URL(`../../fixtures/connectors/${name}`, import.meta.url));
}

export function profile(format: ConnectorFormat, lookup: Record<string, ArticleLookup> = {}, mapping?: string): ConnectorProfile {
  const map = new Map(Object.entries(lookup).map(([k, v]) => [normaliseProductKey(k), v]));
  return mapping === undefined ? { format, lookup: map } : { format, lookup: map, mapping };
}

export interface Part {
  contentType: string;
  contentId?: string;
  body: Buffer | string;
  base64?: boolean;
}

/** A multipart/related body as a JMF sender builds it (CRLF line ends), and its Content-Type header. */
export function multipart(parts: Part[], opts: { type?: string; start?: string; boundary?: string } = {}): { raw: Buffer; contentType: string } {
  const boundary = opts.boundary ?? 'JMF-boundary-7d1f0c';
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const headers = [`--${boundary}`, `Content-Type: ${p.contentType}`];
    if (p.contentId) headers.push(`Content-ID: <${p.contentId}>`);
    if (p.base64) headers.push('Content-Transfer-Encoding: base64');
    const body = Buffer.isBuffer(p.body) ? p.body : Buffer.from(p.body, 'utf8');
    chunks.push(Buffer.from(`${headers.join('\r\n')}\r\n\r\n`, 'latin1'));
    chunks.push(p.base64 ? Buffer.from(body.toString('base64').replace(/.{76}/g, '$&\r\n'), 'latin1') : body);
    chunks.push(Buffer.from('\r\n', 'latin1'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`, 'latin1'));
  const params = [`boundary="${boundary}"`, `type="${opts.type ?? 'application/vnd.cip4-jmf+xml'}"`];
  if (opts.start) params.push(`start="<${opts.start}>"`);
  return { raw: Buffer.concat(chunks), contentType: `multipart/related; ${params.join('; ')}` };
}

/** Awaits fn, asserts it rejects with an IntakeError of this code (and message); no internals in the text. */
export async function rejectsIntake(fn: () => Promise<unknown>, code: ErrorCode, message?: RegExp): Promise<IntakeError> {
  let caught: unknown;
  try {
    await fn();
  } catch (e) {
    caught = e;
  }
  return assertIntakeError(caught, code, message);
}
