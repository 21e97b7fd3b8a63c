/** xmllint against the OASIS UBL schemas in ../shared/ubl (read there, never copied into the project). */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UBL_DIR } from './shared.ts';

export { UBL_DIR, UBL_SKIP } from './shared.ts';

export const UBL_SCHEMAS = {
  order: 'ubl21/maindoc/UBL-Order-2.1.xsd',
  orderChange: 'ubl23/maindoc/UBL-OrderChange-2.3.xsd',
  orderCancellation: 'ubl23/maindoc/UBL-OrderCancellation-2.3.xsd',
  orderResponse: 'ubl21/maindoc/UBL-OrderResponse-2.1.xsd',
  orderResponseAdvanced: 'ubl23/maindoc/UBL-OrderResponse-2.3.xsd',
} as const;

/** Throws with xmllint's messages unless `xml` validates against `schema` (a path under ../shared/ubl). */
export function schemaValid(xml: string, schema: string): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'ubl-'));
  try {
    const file = path.join(dir, 'doc.xml');
    writeFileSync(file, xml);
    try {
      execFileSync('xmllint', ['--noout', '--nonet', '--schema', path.join(UBL_DIR, schema), file], { stdio: 'pipe' });
    } catch (e) {
      throw new Error(`not valid against ${schema}: ${String((e as { stderr?: Buffer }).stderr ?? e)}\n${xml}`, { cause: e });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
