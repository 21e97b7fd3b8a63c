/**
 * What the CIP4 tests share: where CIP4's published samples and schema are (../shared/cip4, never copied into the
 * project), an integrator's setup of an XJDF connector (lookup table, customer table, product key) done through
 * the same code the CLI runs, and xmllint validation of the XJMF the service writes.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { importCustomerTable } from '../../../src/connectors/customers-csv.ts';
import { importLookup } from '../../../src/connectors/lookup-csv.ts';
import type { ConnectorService } from './helpers.ts';
import { CIP4_SAMPLES, XJDF_XSD } from '../../helpers/shared.ts';

export { CIP4_DIR, CIP4_SAMPLES as SAMPLES_DIR, XJDF_XSD, CIP4_SKIP } from '../../helpers/shared.ts';

export const XJDF = 'application/vnd.cip4-xjdf+xml';
export const XJMF = 'application/vnd.cip4-xjmf+xml';

/**
 * CIP4's CommandSubmitQueueEntry sample packaged with the ticket it names (product.xjdf), as an MIS sends it:
 * multipart/related, the ticket part standing for the URL the sample's QueueSubmissionParams names (RFC 2557).
 */
export function submitQueueEntryPackage(): { body: Buffer; contentType: string } {
  const jmf = readFileSync(path.join(CIP4_SAMPLES, 'command-submitqueueentry.xjmf'));
  const ticket = readFileSync(path.join(CIP4_SAMPLES, 'product.xjdf'));
  const boundary = 'cip4-sample-boundary';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Type: ${XJMF}\r\n\r\n`), jmf,
    Buffer.from(`\r\n--${boundary}\r\nContent-Type: ${XJDF}\r\nContent-Location: http://mis.example.org/xjdf/job-1234.xjdf\r\n\r\n`), ticket,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/related; boundary=${boundary}; type="${XJMF}"` };
}

/** The catalog an integrator maps CIP4's sample products to. */
export const CIP4_ARTICLES = [
  ['FLY-A6', 'Volantino A6'], ['FLY-STD', 'Volantino'], ['LEAF-F6', 'Pieghevole 6 ante'], ['MAG-A4', 'Rivista A4'],
  ['NOTE-A4', 'Blocco A4'], ['ROLLUP', 'Roll-up'], ['BANNER', 'Striscione con occhielli'], ['POSTER-A1', 'Manifesto A1'],
  ['POSTER-A3', 'Manifesto A3'],
].map(([codice_articolo, descrizione]) => ({ codice_articolo: codice_articolo!, descrizione: descrizione!, unita_misura: 'PZ' }));

/**
 * The lookup table: DescriptiveName for most samples; book-product.xjdf's two posters have no name, type or id, so
 * the connector's product key falls back to media and finished size (1683.779 x 2383.937 pt is A1, 841.889 x
 * 1190.551 pt is A3).
 */
export const LOOKUP_CSV = `chiave_prodotto;codice_articolo;unita_misura
FLYER A6;FLY-A6;PZ
FLYER;FLY-STD;PZ
My Folded Leaflet;LEAF-F6;PZ
Folded Leaflet 6-Panels;LEAF-F6;PZ
My Magazine A4;MAG-A4;PZ
Notepad A4;NOTE-A4;PZ
Roll-Up Display;ROLLUP;PZ
Banner with Grommets;BANNER;PZ
135_GLOSS 1683.779 2383.937 0.0;POSTER-A1;PZ
135_GLOSS 841.889 1190.551 0.0;POSTER-A3;PZ
`;
export const PRODUCT_KEY = 'auto||{MediaIntent/@MediaQuality} {LayoutIntent/@FinishedDimensions}';

/** Writes `text` to a temporary file, runs `fn` with its path, removes it. */
export async function withFile<T>(name: string, text: string, fn: (file: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), 'intake-cip4-'));
  const file = path.join(dir, name);
  writeFileSync(file, text);
  try {
    return await fn(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An XJDF connector of `customer` at site VR, set up as an integrator would, with `customerTable` rows id;code. */
export async function integratorConnector(svc: ConnectorService, customer: string, customerTable: string[], lookup = LOOKUP_CSV): Promise<{ id: string; key: string }> {
  const c = await svc.connector({ customer, sites: 'VR', format: 'xjdf', productKey: PRODUCT_KEY });
  await withFile('lookup.csv', lookup, (f) => importLookup(svc.store, c.id, f));
  await withFile('clienti.csv', `id_esterno;codice_cliente\n${customerTable.join('\n')}\n`, (f) => importCustomerTable(svc.store, c.id, f));
  return c;
}

/** xmllint's verdict on an XJMF/XJDF document against CIP4's schema: '' when it validates, else its complaint. */
export async function schemaErrors(xml: string): Promise<string> {
  return withFile('answer.xml', xml, async (file) => {
    try {
      const { stderr } = await promisify(execFile)('xmllint', ['--noout', '--schema', XJDF_XSD, file]);
      return /validates/.test(stderr) ? '' : stderr;
    } catch (e) {
      return (e as { stderr?: string }).stderr ?? String(e);
    }
  });
}

/** The calendar day of now in Europe/Rome (the service's default time zone). */
export function todayInRome(): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Rome', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}
