/**
 * The one entry point: bytes in, order candidates out. Candidates are plain objects, not yet validated; a
 * file that cannot be read at all is an IntakeError here, and each candidate is judged later on its own.
 */
import { IntakeError } from '../../domain/errors.ts';
import type { DecodeInput } from './input.ts';
import { binaryKind, declaredForeign, detectFormat } from './detect.ts';
import { formatList, formatNamed } from './registry.ts';
import { isBlank } from './text.ts';

export function decodeOrders(input: DecodeInput): unknown[] {
  const kind = binaryKind(input.raw);
  if (kind !== undefined) {
    throw new IntakeError('UNSUPPORTED_MEDIA_TYPE', `the file is ${kind}; send the order as ${formatList('en')}`);
  }
  if (isBlank(input.raw)) throw new IntakeError('NOT_PARSEABLE', 'the file is empty');
  const format = detectFormat(input);
  if (format === undefined) {
    const foreign = declaredForeign(input);
    if (foreign !== undefined) {
      throw new IntakeError('UNSUPPORTED_MEDIA_TYPE', `${foreign} is not accepted; send the order as ${formatList('en')}`);
    }
    throw new IntakeError(
      'NOT_PARSEABLE',
      `the file is not ${formatList('en')} (a CSV file must start with a header row naming codice_cliente)`,
    );
  }
  const orders = formatNamed(format).decode(input);
  if (orders.length === 0) throw new IntakeError('NO_ORDERS', 'the file holds no order');
  return orders;
}
