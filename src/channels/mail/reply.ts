/**
 * The reply e-mail: Italian plain text and HTML listing every order file and every order (accepted with its
 * numero_ordine, or each error as campo/messaggio), and the outcome as a JSON attachment. Each file's block is the
 * outcome file of the FTP/SFTP channels (outcome-file.ts), so both channels word an outcome the same way.
 *
 * The reply is composed once into RFC 5322 bytes and stored; every delivery attempt sends those same bytes, with
 * the same Message-ID. It answers the customer's message (In-Reply-To, References, "Re: …") and says it is
 * automatic (Auto-Submitted: auto-replied, RFC 3834), so another robot does not answer it in turn.
 */
import { formatList } from '../../intake/formats/index.ts';
import MailComposer from 'nodemailer/lib/mail-composer';
import { acceptedWords, renderOutcomeJson, renderOutcomeText, type OutcomeFileInput } from '../../render/outcome-file.ts';
import type { Outcome } from '../../domain/types.ts';
import { omittedText, type Recap } from '../../render/recap.ts';
import { MAIL_LIMITS } from './limits.ts';
import { localTime } from '../../render/local-time.ts';
import type { OrderPart, ParsedMessage } from './parse.ts';

export interface JudgedPart {
  part: OrderPart;
  submissionId: string;
  receivedAt: string;
  processedAt?: string;
  outcome: Outcome;
}

export interface ReplyInput {
  /** Id of the reply (its Message-ID is built from it). */
  id: string;
  message: ParsedMessage;
  /** When the customer's message was received. */
  receivedAt: string;
  judged: readonly JudgedPart[];
  /** The customer's order mailbox: the reply comes from there, so the customer's "reply" reaches the service. */
  mailbox: string;
  mailDomain: string;
  timeZone: string;
  now: Date;
  /** The message itself could not be read (unreadable.ts): the reply says so instead of listing files. */
  unreadable?: boolean;
  /** The registered lines of the accepted orders of every file (src/render/recap.ts, RECAP_LIMITS.mail). */
  recap?: Recap;
  /** Peppol Order Responses of the files that were UBL ordering documents, attached as they are. */
  orderResponses?: readonly { fileName: string; xml: string }[];
}

export interface ComposedReply {
  recipient: string;
  subject: string;
  raw: Buffer;
  esito: 'ok' | 'errore' | 'nessun_ordine';
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function fileInput(j: JudgedPart, timeZone: string, recap: Recap | undefined): OutcomeFileInput {
  const name = j.part.zip ? `${j.part.zip} / ${j.part.fileName}` : j.part.fileName;
  // The orders left out of the recap are counted once for the whole reply (tailLines), not in every file's block.
  return {
    name, submissionId: j.submissionId, receivedAt: j.receivedAt, processedAt: j.processedAt, outcome: j.outcome, timeZone,
    ...(recap ? { recap: { ...recap, omittedOrders: 0 } } : {}),
  };
}

interface Tally {
  esito: ComposedReply['esito'];
  summary: string;
}

function tally(input: ReplyInput): Tally {
  const { judged, message } = input;
  if (input.unreadable) return { esito: 'errore', summary: 'ERRORE, messaggio non leggibile' };
  if (judged.length === 0) return { esito: 'nessun_ordine', summary: 'nessun file d\'ordine trovato' };
  const orders = judged.flatMap((j) => j.outcome.orders);
  const ok = orders.filter((o) => o.esito === 'ok').length;
  const unreadable = judged.filter((j) => j.outcome.fileError || j.outcome.orders.length === 0).length + message.problems.length;
  const bad = orders.length - ok;
  if (bad === 0 && unreadable === 0) return { esito: 'ok', summary: `OK, ${acceptedWords(orders)}` };
  const parts = [acceptedWords(orders)];
  if (bad > 0) parts.push(count(bad, 'ordine con errori', 'ordini con errori'));
  if (unreadable > 0) parts.push(count(unreadable, 'file non leggibile', 'file non leggibili'));
  return { esito: 'errore', summary: `ERRORE, ${parts.join(', ')}` };
}

function subjectOf(original: string, t: Tally): string {
  // eslint-disable-next-line no-control-regex
  let s = original.replace(/[\x00-\x1f\x7f]/g, ' ').trim();
  if (s.length > MAIL_LIMITS.subjectChars) s = `${s.slice(0, MAIL_LIMITS.subjectChars - 1)}…`;
  const base = s === '' ? 'Re: il Suo messaggio' : /^re:/i.test(s) ? s : `Re: ${s}`;
  return `${base} [esito: ${t.summary}]`;
}

function introLines(input: ReplyInput, t: Tally): string[] {
  const { message, judged } = input;
  // Articulated prepositions: "nel Suo messaggio", never "in il Suo messaggio".
  const quoted = message.subject ? ` "${message.subject}"` : '';
  const lines = ['Gentile cliente,', ''];
  if (input.unreadable) {
    lines.push(`non è stato possibile leggere il Suo messaggio${quoted}, ricevuto il ${localTime(input.receivedAt, input.timeZone)}, quindi nessun ordine è stato registrato.`);
  } else if (judged.length === 0) {
    lines.push(
      `nel Suo messaggio${quoted}, ricevuto il ${localTime(input.receivedAt, input.timeZone)}, non abbiamo trovato nessun file d'ordine, quindi nessun ordine è stato registrato.`,
      '',
      `Per inviare un ordine scriva a ${input.mailbox} allegando il file dell'ordine in formato ${formatList('it')}`,
      "(anche più file nello stesso messaggio, oppure un archivio ZIP che li contiene). Il testo del messaggio non viene letto:",
      "conta solo l'allegato. Riceverà una risposta come questa con il numero di ogni ordine accettato o gli errori da correggere.",
    );
  } else {
    lines.push(
      `abbiamo ricevuto il Suo messaggio${quoted} il ${localTime(input.receivedAt, input.timeZone)} con ${count(judged.length, "file d'ordine", "file d'ordine")}.`,
      `Esito: ${t.summary}.`,
    );
  }
  return lines;
}

function tailLines(input: ReplyInput): string[] {
  const { message } = input;
  const lines: string[] = [];
  if (input.recap?.omittedOrders) lines.push('', omittedText(input.recap.omittedOrders));
  if (message.problems.length > 0) {
    lines.push('', 'File non elaborati:');
    for (const p of message.problems) lines.push(`  - ${p}`);
  }
  if (message.ignored.length > 0) {
    lines.push('', `Allegati ignorati perché non sono file d'ordine (${formatList('it', ['ZIP'])}): ${message.ignored.join(', ')}`);
  }
  if (input.judged.length > 0) lines.push('', "Il dettaglio per i programmi è nell'allegato esito.json.");
  for (const r of input.orderResponses ?? []) lines.push(`La risposta Peppol (Order Response) al documento UBL è nell'allegato ${r.fileName}.`);
  lines.push('', 'Questo è un messaggio automatico del servizio ordini.');
  return lines;
}

function outcomeJson(input: ReplyInput, t: Tally): Buffer {
  const body = {
    messaggio: {
      ...(input.message.messageId ? { message_id: input.message.messageId } : {}),
      oggetto: input.message.subject,
      ricevuto_il: input.receivedAt,
    },
    esito: t.esito,
    file: input.judged.map((j) => JSON.parse(renderOutcomeJson(fileInput(j, input.timeZone, input.recap)).toString('utf8')) as unknown),
    ...(input.recap?.omittedOrders ? { ordini_senza_riepilogo: input.recap.omittedOrders } : {}),
    ...(input.message.problems.length ? { file_non_elaborati: input.message.problems } : {}),
    ...(input.message.ignored.length ? { allegati_ignorati: input.message.ignored } : {}),
  };
  return Buffer.from(JSON.stringify(body, null, 2) + '\n', 'utf8');
}

export async function composeReply(input: ReplyInput): Promise<ComposedReply> {
  const recipient = input.message.replyTo;
  if (!recipient) throw new Error('composeReply: the message has no address to reply to');
  const t = tally(input);
  const blocks = input.judged.map((j) => renderOutcomeText(fileInput(j, input.timeZone, input.recap)).toString('utf8').replace(/\r\n/g, '\n').trimEnd());
  const intro = introLines(input, t);
  const tail = tailLines(input);
  const text = [...intro, ...blocks.flatMap((b) => ['', b]), ...tail].join('\n') + '\n';
  const html = [
    '<!DOCTYPE html><html lang="it"><head><meta charset="utf-8"></head><body>',
    ...intro.filter((l) => l !== '').map((l) => `<p>${escapeHtml(l)}</p>`),
    ...blocks.map((b) => `<pre style="font-family:monospace;white-space:pre-wrap">${escapeHtml(b)}</pre>`),
    ...tail.filter((l) => l !== '').map((l) => `<p>${escapeHtml(l)}</p>`),
    '</body></html>',
  ].join('\n');
  const subject = subjectOf(input.message.subject, t);
  const mail = new MailComposer({
    from: { name: 'Servizio ordini', address: input.mailbox },
    to: recipient,
    subject,
    date: input.now,
    messageId: `<${input.id}@${input.mailDomain}>`,
    ...(input.message.messageId ? { inReplyTo: input.message.messageId } : {}),
    ...(input.message.references.length ? { references: input.message.references } : {}),
    headers: { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All' },
    text,
    html,
    attachments: [
      ...(input.judged.length ? [{ filename: 'esito.json', content: outcomeJson(input, t), contentType: 'application/json; charset=utf-8' }] : []),
      ...(input.orderResponses ?? []).map((r) => ({ filename: r.fileName, content: Buffer.from(r.xml, 'utf8'), contentType: 'application/xml; charset=utf-8' })),
    ],
  });
  const raw = await mail.compile().build();
  return { recipient, subject, raw, esito: t.esito };
}
