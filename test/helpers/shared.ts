/**
 * The project's shared folder (spec, CIP4 schema and samples) lies beside the checkout (`../shared`), in a
 * developer's tree and in CI's clone alike, never at a fixed absolute path. It is looked for in the ancestors of the
 * project, so a git worktree one level deeper finds the same folder; INTAKE_TEST_CIP4_DIR overrides the CIP4 part.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { skipUnlessPresent } from './required.ts';

function findCip4(): string {
  const set = process.env.INTAKE_TEST_CIP4_DIR?.trim();
  if (set) return path.resolve(set);
  const root = path.resolve(import.meta.dirname, '../..');
  for (let dir = path.dirname(root); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared', 'cip4');
    if (existsSync(candidate) || dir === path.dirname(dir)) return candidate;
  }
}

export const CIP4_DIR = findCip4();
/** CIP4's published sample tickets. */
export const CIP4_SAMPLES = path.join(CIP4_DIR, 'samples');
/** CIP4's official XJDF 2.x schema, for `xmllint --schema`. */
export const XJDF_XSD = path.join(CIP4_DIR, 'xjdf.xsd');
/** The `skip` option of a test that needs them: false when present; a failure in CI when not. */
export const CIP4_SKIP = skipUnlessPresent(existsSync(CIP4_SAMPLES) && existsSync(XJDF_XSD) ? undefined : `no shared/cip4 beside the project (${CIP4_DIR})`);

function findShared(name: string): string {
  const root = path.resolve(import.meta.dirname, '../..');
  for (let dir = path.dirname(root); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared', name);
    if (existsSync(candidate) || dir === path.dirname(dir)) return candidate;
  }
}

/** OASIS UBL 2.1 and 2.3 schemas of the ordering documents, for `xmllint --schema` (never copied into the project). */
export const UBL_DIR = findShared('ubl');
export const UBL_SKIP = skipUnlessPresent(existsSync(path.join(UBL_DIR, 'ubl21')) ? undefined : `no shared/ubl beside the project (${UBL_DIR})`);
