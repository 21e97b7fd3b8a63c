/**
 * SMTP client, run as its own process: nodemailer with a pool of connections sends order mails to the service, each
 * a short Italian text and one order file attached (JSON and CSV in turn, 10 lines, about 1 KiB), as a customer's
 * mail program would. Closed loop (a fixed number in flight) or open loop (a fixed rate). It records, per accepted
 * message, its Message-ID, when the submission started and when the 250 after DATA came back.
 *
 * Protocol: `{ready:true}` once loaded, then one MailLoad in, one MailLoadResult out, and exit.
 */
import nodemailer from 'nodemailer';
import { csvOrder, jsonOrder } from '../lib/orders.ts';
import { epochMs, runLoop } from '../lib/loop.ts';
import type { AcceptedMail, ClientReady, MailLoad, MailLoadResult } from './protocol.ts';

/** A connection or a message that makes no progress for this long has failed. */
const TIMEOUT_MS = 60_000;
/** Accepted messages recorded at most (about 100 bytes each): far beyond a run, and a bound all the same. */
const MAX_RECORDS = 2_000_000;

interface MailOptions {
  from: string;
  to: string;
  subject: string;
  messageId: string;
  text: string;
  attachments: { filename: string; content: string; contentType: string }[];
}

/** Message n of a run: its order (JSON for even n, CSV for odd n) and its Message-ID. */
export function orderMail(spec: Pick<MailLoad, 'from' | 'to' | 'refPrefix' | 'orderLines'>, n: number): MailOptions {
  const ref = `${spec.refPrefix}-${n}`;
  const json = n % 2 === 0;
  return {
    from: `Ufficio acquisti <${spec.from}>`,
    to: spec.to,
    subject: `Ordine ${ref}`,
    messageId: `<${ref}@bench.localhost>`,
    text: `Buongiorno,\r\nin allegato il nostro ordine ${ref}.\r\nCordiali saluti\r\nUfficio acquisti\r\n`,
    attachments: [json
      ? { filename: `ordine-${ref}.json`, content: jsonOrder(ref, spec.orderLines), contentType: 'application/json' }
      : { filename: `ordine-${ref}.csv`, content: csvOrder(ref, spec.orderLines), contentType: 'text/csv' }],
  };
}

async function run(spec: MailLoad): Promise<MailLoadResult> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1', port: spec.port, secure: false, ignoreTLS: true,
    pool: true, maxConnections: spec.connections, maxMessages: Infinity,
    connectionTimeout: TIMEOUT_MS, greetingTimeout: TIMEOUT_MS, socketTimeout: TIMEOUT_MS,
  });
  const accepted: AcceptedMail[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let sampleBytes = 0;
  const cpu0 = process.cpuUsage();
  let window = { from: 0, to: 0 };
  try {
    const res = await runLoop(spec, async (n, from, clock) => {
      window = clock;
      const mail = orderMail(spec, n);
      try {
        const info = await transport.sendMail(mail);
        const acceptedAt = epochMs();
        if (n === 0) sampleBytes = (info as { messageSize?: number }).messageSize ?? 0;
        if (accepted.length < MAX_RECORDS) {
          accepted.push({ messageId: mail.messageId, startedAt: epochMs(from), acceptedAt, inWindow: from >= clock.from && from < clock.to });
        }
      } catch (e) {
        errors++;
        firstError ??= (e as Error).message;
      }
    });
    const cpu = process.cpuUsage(cpu0);
    return {
      accepted, windowFrom: epochMs(window.from), windowTo: epochMs(window.to), windowSec: spec.durationSec,
      errors: errors + res.undrained, firstError, missed: res.missed, sampleBytes,
      cpuUserMs: Math.round(cpu.user / 1000), cpuSystemMs: Math.round(cpu.system / 1000),
    };
  } finally {
    transport.close();
  }
}

process.send!({ ready: true } satisfies ClientReady);
process.once('message', (spec: MailLoad) => {
  run(spec).then(
    (result) => process.send!(result, () => process.exit(0)),
    (err: unknown) => process.send!({ error: String((err as Error)?.stack ?? err) }, () => process.exit(1)),
  );
});
