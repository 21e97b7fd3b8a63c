/** Hand-written SOAP requests and the reading of responses, shared by the SOAP channel tests. */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { XMLParser } from 'fast-xml-parser';

export const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
export const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';

const run = promisify(execFile);

export interface Line {
  codice_articolo: string;
  quantita: string | number;
  unita_misura: string;
}

/** The lines of test/helpers/service.ts's order(), so an order sent by REST and by SOAP is the same order. */
export const DEFAULT_LINES: Line[] = [
  { codice_articolo: 'BV-STD', quantita: 500, unita_misura: 'PZ' },
  { codice_articolo: 'VOL-A4', quantita: 1000, unita_misura: 'PZ' },
];

/** The order's fields as `ord:`-prefixed elements (the prefix is the caller's: '' gives unprefixed names). */
export function orderFields(code: string, ref: string, opts: { lines?: Line[]; p?: string; consegna?: string | null } = {}): string {
  const p = opts.p ?? 'ord:';
  const e = (name: string, v: string | number) => `<${p}${name}>${v}</${p}${name}>`;
  const lines = (opts.lines ?? DEFAULT_LINES)
    .map((l) => `<${p}riga>${e('codice_articolo', l.codice_articolo)}${e('quantita', l.quantita)}${e('unita_misura', l.unita_misura)}</${p}riga>`)
    .join('');
  const consegna = opts.consegna === null ? '' : e('data_consegna', opts.consegna ?? '2026-12-01');
  return `${e('codice_cliente', code)}${e('riferimento_ordine', ref)}${e('data_ordine', '2026-11-20')}${consegna}<${p}righe>${lines}</${p}righe>`;
}

/** The usual shape: prefixes declared on the envelope, key in the ord:Autenticazione header. */
export function envelope(ns: string, key: string | undefined, body: string): string {
  const header = key === undefined ? '' : `<soapenv:Header><ord:Autenticazione><ord:ApiKey>${key}</ord:ApiKey></ord:Autenticazione></soapenv:Header>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<soapenv:Envelope xmlns:soapenv="${SOAP11}" xmlns:ord="${ns}">${header}<soapenv:Body>${body}</soapenv:Body></soapenv:Envelope>`;
}

export function inviaOrdine(ns: string, key: string | undefined, code: string, ref: string, opts: Parameters<typeof orderFields>[2] = {}): string {
  return envelope(ns, key, `<ord:InviaOrdine>${orderFields(code, ref, opts)}</ord:InviaOrdine>`);
}

export function statoOrdine(ns: string, key: string | undefined, inner: string): string {
  return envelope(ns, key, `<ord:StatoOrdine>${inner}</ord:StatoOrdine>`);
}

export interface SoapAnswer {
  status: number;
  contentType: string | null;
  text: string;
  /** The Body's one child, prefixes removed, values as text. */
  body: Record<string, unknown>;
}

const reader = new XMLParser({
  removeNSPrefix: true, ignoreAttributes: true, parseTagValue: false,
  isArray: (name, jPath) => name === 'riga' || name === 'errore' || /(erroriValidazione|messaggi)\.messaggio$/.test(String(jPath)),
});

export function bodyOf(text: string): Record<string, unknown> {
  const doc = reader.parse(text) as { Envelope?: { Body?: Record<string, unknown> } };
  const body = doc.Envelope?.Body;
  if (!body) throw new Error(`not a SOAP envelope:\n${text}`);
  return body;
}

export async function post(url: string, xml: string | Buffer, headers: Record<string, string> = {}): Promise<SoapAnswer> {
  const res = await fetch(`${url}/ws/ordini`, {
    method: 'POST', body: xml, headers: { 'content-type': 'text/xml; charset=utf-8', ...headers },
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), text, body: bodyOf(text) };
}

export interface Fault {
  faultcode: string;
  faultstring: string;
  /** Messages of ord:erroriValidazione; undefined when there is no detail element. */
  detail?: string[];
}

/** The fault of an answer, checking the SOAP 1.1 transport rules (HTTP 500, text/xml) on the way. */
export function faultOf(a: SoapAnswer): Fault {
  if (a.status !== 500) throw new Error(`a fault must come with HTTP 500, got ${a.status}:\n${a.text}`);
  if (a.contentType !== 'text/xml; charset=utf-8') throw new Error(`fault content type ${a.contentType}`);
  const f = a.body.Fault as Record<string, unknown> | undefined;
  if (!f) throw new Error(`no soap:Fault in:\n${a.text}`);
  const detail = f.detail as { erroriValidazione?: { messaggio?: string[] } } | undefined;
  const out: Fault = { faultcode: String(f.faultcode), faultstring: String(f.faultstring) };
  if (detail !== undefined) out.detail = detail.erroriValidazione?.messaggio ?? [];
  return out;
}

/** The text between the Body tags: the response element, which declares its own namespace. */
export function bodyElement(text: string): string {
  const m = /<soap:Body>([\s\S]*)<\/soap:Body>/.exec(text);
  if (!m) throw new Error(`no soap:Body in:\n${text}`);
  return m[1]!;
}

/** Runs xmllint; resolves with its stderr, rejects (with stderr in the message) when it refuses. */
export async function xmllint(args: string[]): Promise<string> {
  try {
    const { stderr } = await run('xmllint', args);
    return stderr;
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`xmllint ${args.join(' ')} failed: ${err.stderr ?? err.message}`, { cause: e });
  }
}

/** Validates an XML fragment against the schema file; the fragment is written next to it. */
export async function validateAgainst(xsdPath: string, name: string, xml: string): Promise<void> {
  const file = path.join(path.dirname(xsdPath), `${name}.xml`);
  writeFileSync(file, xml);
  const out = await xmllint(['--noout', '--schema', xsdPath, file]);
  if (!/validates/.test(out)) throw new Error(`xmllint did not validate ${name}: ${out}`);
}
