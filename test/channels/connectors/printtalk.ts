/**
 * What the PrintTalk tests share: the PrintTalk 2.2 schema and samples in ../shared/cip4/printtalk (never copied
 * into the project), xmllint against PrintTalk 2.2 + XJDF 2.x, curl as the sender, and an integrator's XJDF
 * connector set up for a web-to-print shop.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { importCustomerTable } from '../../../src/connectors/customers-csv.ts';
import { importLookup } from '../../../src/connectors/lookup-csv.ts';
import { CIP4_DIR, XJDF_XSD } from '../../helpers/shared.ts';
import { skipUnlessPresent } from '../../helpers/required.ts';
import { withFile } from './cip4.ts';
import type { ConnectorService } from './helpers.ts';

export const PRINTTALK_DIR = path.join(CIP4_DIR, 'printtalk');
export const PRINTTALK_SAMPLES = path.join(PRINTTALK_DIR, 'samples');
export const PRINTTALK_XSD = path.join(PRINTTALK_DIR, 'PrintTalk.xsd');
export const PRINTTALK_SKIP = skipUnlessPresent(
  existsSync(PRINTTALK_XSD) && existsSync(XJDF_XSD) ? undefined : `no shared/cip4/printtalk beside the project (${PRINTTALK_DIR})`,
);
/** Our own PrintTalk requests (our text, written from the schema). */
export const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/connectors/printtalk');

/** Articles of the shop's products: its business cards, and the flyer of CIP4's web-to-print sample. */
export const SHOP_ARTICLES = [
  { codice_articolo: 'BIGL-85', descrizione: 'Biglietti da visita 85x55', unita_misura: 'PZ' },
  { codice_articolo: 'FLY-A6', descrizione: 'Volantino A6', unita_misura: 'PZ' },
];
/** The shop's products by name; CIP4's flyer has none, so paper and finished size name it (297.64 x 419.53 pt: A6). */
export const SHOP_LOOKUP = `chiave_prodotto;codice_articolo;unita_misura
Biglietti da visita;BIGL-85;PZ
Paper 297.64 419.53 0;FLY-A6;PZ
`;
export const SHOP_PRODUCT_KEY = 'auto||{MediaIntent/@MediaType} {LayoutIntent/@FinishedDimensions}';

/** An XJDF connector for `customer` at site VR; the shop's id SHOP-77 and CIP4's CID-123 map to it. */
export async function shopConnector(svc: ConnectorService, customer: string): Promise<{ id: string; key: string }> {
  const c = await svc.connector({ customer, sites: 'VR', format: 'xjdf', productKey: SHOP_PRODUCT_KEY });
  await withFile('lookup.csv', SHOP_LOOKUP, (f) => importLookup(svc.store, c.id, f));
  await withFile('clienti.csv', `id_esterno;codice_cliente\nSHOP-77;${customer}\nCID-123;${customer}\n`, (f) => importCustomerTable(svc.store, c.id, f));
  return c;
}

export interface CurlAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** POST with curl, the body on stdin, as a shop's script would send it. */
export async function curlPost(url: string, key: string, body: string | Buffer, contentType = 'application/xml'): Promise<CurlAnswer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'intake-ptk-'));
  try {
    const out = path.join(dir, 'body');
    const child = execFile('curl', [
      '-sS', '-X', 'POST', '-H', `service-x-key: ${key}`, '-H', `Content-Type: ${contentType}`, '--data-binary', '@-',
      '-o', out, '-w', '%{http_code} %{content_type}', url,
    ]);
    child.stdin!.end(body);
    const stdout = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout!.on('data', (d: Buffer) => { text += d.toString(); });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`curl exited with ${code}`))));
    });
    const [status, ...type] = stdout.trim().split(' ');
    return { status: Number(status), contentType: type.join(' '), body: readFileSync(out, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * xmllint's verdict on a PrintTalk document against PrintTalk 2.2 and XJDF 2.x: '' when it validates. PrintTalk.xsd
 * imports XJDF's namespace without a location, so a small schema imports both from where they are.
 */
export async function printTalkSchemaErrors(xml: string): Promise<string> {
  const wrapper = `<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:import namespace="http://www.CIP4.org/JDFSchema_2_0" schemaLocation="${XJDF_XSD}"/>
  <xs:import namespace="http://www.printtalk.org/schema_20" schemaLocation="${PRINTTALK_XSD}"/>
</xs:schema>
`;
  return withFile('both.xsd', wrapper, async (xsd) => withFile('answer.xml', xml, async (file) => {
    try {
      const { stderr } = await promisify(execFile)('xmllint', ['--noout', '--schema', xsd, file]);
      return /validates/.test(stderr) ? '' : stderr;
    } catch (e) {
      return (e as { stderr?: string }).stderr ?? String(e);
    }
  }));
}

/** The attribute `name` of the first element `element` (any prefix) in `xml`. */
export function attrOf(xml: string, element: string, name: string): string | undefined {
  const tag = new RegExp(`<(?:\\w+:)?${element}\\b([^>]*)>`).exec(xml)?.[1];
  return tag === undefined ? undefined : new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
}

/** The text of every `<xjdf:Comment>`. */
export function comments(xml: string): string[] {
  return [...xml.matchAll(/<xjdf:Comment[^>]*>([^<]*)<\/xjdf:Comment>/g)].map((m) => m[1]!.replace(/&apos;/g, '\'').replace(/&quot;/g, '"').replace(/&amp;/g, '&'));
}

/** The business object the answer holds: Confirmation, Refusal, OrderStatusResponse. */
export function objectOf(xml: string): string | undefined {
  return /<Request\b[^>]*>\s*<(\w+)/.exec(xml)?.[1];
}

/** Every Credential Identity of Header/From or Header/To. */
export function identities(xml: string, side: 'From' | 'To'): string[] {
  const part = new RegExp(`<${side}>([\\s\\S]*?)</${side}>`).exec(xml)?.[1] ?? '';
  return [...part.matchAll(/<Identity>([^<]*)<\/Identity>/g)].map((m) => m[1]!);
}
