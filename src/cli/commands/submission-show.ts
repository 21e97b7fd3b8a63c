import { isUtf8 } from 'node:buffer';
import { IntakeError } from '../../domain/errors.ts';
import type { StoredSubmission } from '../../domain/types.ts';
import type { Store } from '../../domain/store/store.ts';
import { clean, printFields, printJson, println } from '../output.ts';

/** Bytes shown in hex when the raw file is not text. */
const HEX_PREVIEW = 64;

function writeRaw(raw: Buffer): Promise<void> {
  // Resolve once the bytes are handed to the OS, so closing the store and exiting cannot cut a large file short.
  return new Promise((resolve, reject) => process.stdout.write(raw, (err) => (err ? reject(err) : resolve())));
}

function printHuman(s: StoredSubmission, authResults?: string): void {
  const meta = Object.entries(s.meta).map(([k, v]) => `${k}=${v}`).join(', ');
  printFields([
    ['id', s.id],
    ['customer', s.customerCode],
    ['channel', s.channel],
    ['file name', s.fileName],
    ['media type', [s.mediaType, s.charset && `charset ${s.charset}`].filter(Boolean).join('; ')],
    ['site', s.site],
    ['received at', s.receivedAt],
    ['state', s.state],
    ['processed at', s.processedAt],
    ['attempts', s.attempts],
    // Sweeper retries after it was left unprocessed; past the limit it is given up as failed (issue 19, item 7).
    ['retries', s.retries],
    ['reserved order id', s.reservedOrderId],
    ['size', `${s.raw.length} bytes`],
    ['sha256', s.sha256],
    ['meta', meta],
  ]);
  println();
  if (authResults) {
    // The sender checks of the e-mail that carried the file, as this service recorded them.
    println(clean(authResults));
    println();
  }
  println('outcome:');
  println(s.outcome ? JSON.stringify(s.outcome, null, 2) : '(not processed yet)');
  println();
  if (s.raw.length === 0) {
    println('raw file: (empty)');
  } else if (isUtf8(s.raw)) {
    println('raw file:');
    println(clean(s.raw.toString('utf8')));
  } else {
    const preview = s.raw.subarray(0, HEX_PREVIEW).toString('hex').replace(/(..)(?!$)/g, '$1 ');
    println(`raw file: ${s.raw.length} bytes, not valid UTF-8${s.charset ? ` (declared charset ${s.charset})` : ''}.`);
    println(`first ${Math.min(HEX_PREVIEW, s.raw.length)} bytes in hex: ${preview}`);
    println('use --raw to write the bytes unchanged, e.g. "order-intake submissions show <id> --raw > file"');
  }
}

export async function showSubmission(store: Store, id: string, opts: { raw?: boolean; json?: boolean }): Promise<void> {
  const s = await store.getSubmission(id);
  if (!s) throw new IntakeError('NOT_FOUND', `no submission with id ${id}`);
  if (opts.raw) {
    await writeRaw(s.raw);
    return;
  }
  const authResults = s.meta.mail_id ? (await store.getMailMessage(s.meta.mail_id))?.auth?.header : undefined;
  if (opts.json) {
    const { raw, ...rest } = s;
    printJson({ ...rest, size: raw.length, raw_base64: raw.toString('base64'), ...(authResults ? { authentication_results: authResults } : {}) });
  } else {
    printHuman(s, authResults);
  }
}
