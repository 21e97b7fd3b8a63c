/**
 * The one entry point: bytes in, order candidates out. Candidates are plain objects, not yet validated; a
 * file that cannot be read at all is an IntakeError here, and each candidate is judged later on its own.
 */
import { IntakeError } from '../../domain/errors.ts';
import type { DecodeInput, Format } from './input.ts';
import { binaryKind, declaredForeign, detectFormat } from './detect.ts';
import { decodeCsv } from './csv.ts';
import { decodeJson } from './json.ts';
import { decodeXml } from './xml.ts';
import { isBlank } from './text.ts';

const DECODERS: Readonly<Record<Format, (input: DecodeInput) => unknown[]>> = {
  json: decodeJson,
  xml: decodeXml,
  csv: decodeCsv,
};

export function decodeOrders(input: DecodeInput): unknown[] {
  const kind = binaryKind(input.raw);
  if (kind !== undefined) {
    throw new IntakeError('UNSUPPORTED_MEDIA_TYPE', `the file is ${kind}; send the order as JSON, XML or CSV`);
  }
  if (isBlank(input.raw)) throw new IntakeError('NOT_PARSEABLE', 'the file is empty');
  const format = detectFormat(input);
  if (format === undefined) {
    const foreign = declaredForeign(input);
    if (foreign !== undefined) {
      throw new IntakeError('UNSUPPORTED_MEDIA_TYPE', `${foreign} is not accepted; send the order as JSON, XML or CSV`);
    }
    throw new IntakeError(
      'NOT_PARSEABLE',
      'the file is not JSON, XML or CSV (a CSV file must start with a header row naming codice_cliente)',
    );
  }
  const orders = DECODERS[format](input);
  if (orders.length === 0) throw new IntakeError('NO_ORDERS', 'the file holds no order');
  return orders;
}
