/**
 * The project's shared folder (spec, CIP4 schema and samples) lies beside the repository, in a developer's checkout
 * and in CI's clone alike (`../shared`), never at a fixed absolute path.
 */
import path from 'node:path';

export const SHARED_DIR = path.resolve(import.meta.dirname, '../../../shared');
/** CIP4's official XJDF 2.x schema, for `xmllint --schema`. */
export const XJDF_XSD = path.join(SHARED_DIR, 'cip4/xjdf.xsd');
/** CIP4's published sample tickets. */
export const CIP4_SAMPLES = path.join(SHARED_DIR, 'cip4/samples');
