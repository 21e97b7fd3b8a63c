/**
 * `order-intake connector test-mapping`: what a file would become on the connector path, without storing anything:
 * the order candidates the decoder makes of it (with a stored connector's profile, or a mapping file given on the
 * command line) and the stage A verdict of each. Stage B (articles, units, the customer) is left out on purpose:
 * it depends on the catalog of the day, and this tool is for getting the shape right.
 */
import { parseProductKeyTemplate } from '../intake/connectors/product-key-template.ts';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { IntakeError } from '../domain/errors.ts';
import { decodeConnectorPayload, type ArticleLookup, type ConnectorProfile } from '../intake/connectors/index.ts';
import { validateStructure } from '../intake/validate.ts';
import type { Store } from '../domain/store/store.ts';
import { checkFormat, checkMapping, requireConnector } from './provision.ts';

/** Same bound as a request body on the connector path would usually have; a test file is one export. */
export const MAX_TEST_FILE_BYTES = 100 * 1024 * 1024;

const BY_EXTENSION: Record<string, string> = {
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.jdf': 'application/vnd.cip4-jdf+xml',
  '.xjdf': 'application/vnd.cip4-xjdf+xml',
  '.jmf': 'application/vnd.cip4-jmf+xml',
  '.xjmf': 'application/vnd.cip4-xjmf+xml',
  '.mjm': 'multipart/related',
  '.mjd': 'multipart/related',
};

export function contentTypeForFile(file: string): string | undefined {
  return BY_EXTENSION[path.extname(file).toLowerCase()];
}

export interface TestedOrder {
  index: number;
  candidate: unknown;
  valid: boolean;
  messages: string[];
}

export interface MappingTest {
  kind: string;
  site?: string;
  orders: TestedOrder[];
}

export async function testMapping(store: Store | undefined, input: {
  file: string; connector?: string; mappingFile?: string; format?: string; contentType?: string; now?: Date;
}): Promise<MappingTest> {
  let profile: ConnectorProfile;
  if (input.connector !== undefined) {
    if (!store) throw new Error('a store is needed to read a connector');
    const c = await requireConnector(store, input.connector);
    const lookup = new Map<string, ArticleLookup>();
    for (const r of await store.connectorLookup(c.id)) {
      lookup.set(r.productKey, r.unita_misura === undefined ? { codice_articolo: r.codice_articolo } : { codice_articolo: r.codice_articolo, unita_misura: r.unita_misura });
    }
    profile = {
      format: c.format, lookup, ...(c.mapping === undefined ? {} : { mapping: c.mapping }),
      ...(c.productKey === undefined ? {} : { productKey: parseProductKeyTemplate(c.productKey) }),
    };
  } else if (input.mappingFile !== undefined) {
    const format = checkFormat(input.format ?? (path.extname(input.file).toLowerCase() === '.xml' ? 'xml' : 'json'));
    if (format !== 'json' && format !== 'xml') throw new IntakeError('VALIDATION', '--format must be json or xml with --mapping');
    profile = { format, lookup: new Map(), mapping: checkMapping(await readFile(input.mappingFile, 'utf8')) };
  } else {
    throw new IntakeError('VALIDATION', 'name a stored connector (--connector <id>) or a mapping file (--mapping M.jsonata --format json|xml)');
  }
  if ((await stat(input.file)).size > MAX_TEST_FILE_BYTES) throw new IntakeError('VALIDATION', `the file must not exceed ${MAX_TEST_FILE_BYTES} bytes`);
  const raw = await readFile(input.file);
  const decoded = await decodeConnectorPayload({
    raw,
    contentType: input.contentType ?? contentTypeForFile(input.file) ?? (profile.format === 'json' ? 'application/json' : 'application/xml'),
    profile,
    receivedAt: (input.now ?? new Date()).toISOString(),
  });
  const orders = decoded.candidates.map((candidate, index) => {
    const a = validateStructure(candidate);
    return { index, candidate, valid: a.ok, messages: a.ok ? [] : a.messages };
  });
  return { kind: decoded.kind, ...(decoded.site === undefined ? {} : { site: decoded.site }), orders };
}
