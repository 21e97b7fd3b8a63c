/**
 * The e-mail that tells a customer an order's production status changed (issue 17): Italian plain text, from the
 * customer's order mailbox, threaded under the order e-mail when the order came by e-mail. Composed once into RFC 5322
 * bytes and queued in the reply outbox, so every attempt sends the same Message-ID and content.
 *
 * What reaches a header comes from senders (the order reference) or integrations (the note goes only in the body):
 * control characters, CR and LF among them, are replaced by spaces before anything is written, so no value can end a
 * header line and start another (nodemailer encodes headers too; this does not rely on it alone).
 */
import MailComposer from 'nodemailer/lib/mail-composer';
import type { ProductionState, RequestKind } from '../domain/types.ts';
import { localTime } from './local-time.ts';

/** The order reference shown in the subject: a reference is a few dozen characters; a longer one is cut. */
const MAX_SUBJECT_REF = 80;
/** The note as written in the body: production notes are a line or two (MAX_NOTE_LENGTH, 500, at the API). */
const MAX_NOTE = 500;

/** What the new state means, as the sentence "L'ordine … <phrase>." says it. */
export const STATE_PHRASES: Readonly<Record<ProductionState, string>> = {
  in_lavorazione: 'è in lavorazione',
  spedito: 'è stato spedito',
  consegnato: 'è stato consegnato',
  annullato: 'è stato annullato',
};

const STATE_LABELS: Readonly<Record<ProductionState, string>> = {
  in_lavorazione: 'in lavorazione', spedito: 'spedito', consegnato: 'consegnato', annullato: 'annullato',
};

/** What every notice the service sends on its own carries: who from and to, its id, the thread it belongs to. */
export interface NoticeEnvelope {
  /** Unique per notice: its Message-ID is built from it. */
  id: string;
  to: string;
  /** The customer's order mailbox: the sender, as for the acknowledgements. */
  mailbox: string;
  mailDomain: string;
  /** The Message-ID of the customer's message or order e-mail: the notice is shown in its thread. */
  inReplyTo?: string;
  now: Date;
}

/** A status notification: the order, what production reported and when. */
export interface StatusMailInput extends NoticeEnvelope {
  timeZone: string;
  numeroOrdine: string;
  riferimentoOrdine?: string;
  stato: ProductionState;
  nota?: string;
  /** When production reported it (ISO 8601). */
  at: string;
}

/** One line of text: every control character (CR and LF included) becomes a space, runs of space one. */
export function oneLine(s: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = s.replace(/[\x00-\x1f\x7f\u0085\u2028\u2029]+/g, ' ').replace(/ {2,}/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function statusMailSubject(i: Pick<StatusMailInput, 'numeroOrdine' | 'riferimentoOrdine' | 'stato'>): string {
  const ref = i.riferimentoOrdine ? ` (rif. ${oneLine(i.riferimentoOrdine, MAX_SUBJECT_REF)})` : '';
  return `Ordine ${oneLine(i.numeroOrdine, 40)}${ref}: ${STATE_LABELS[i.stato]}`;
}

export function statusMailText(i: StatusMailInput): string {
  const ref = i.riferimentoOrdine ? ` (Suo riferimento ${oneLine(i.riferimentoOrdine, MAX_SUBJECT_REF)})` : '';
  const lines = [
    'Gentile cliente,',
    '',
    `L'ordine ${oneLine(i.numeroOrdine, 40)}${ref} ${STATE_PHRASES[i.stato]}.`,
    '',
    `Aggiornamento del ${localTime(i.at, i.timeZone)} (ora di ${i.timeZone === 'Europe/Rome' ? 'Roma' : i.timeZone}).`,
  ];
  const nota = i.nota ? oneLine(i.nota, MAX_NOTE) : '';
  if (nota) lines.push(`Nota: ${nota}`);
  lines.push('', 'Questo è un messaggio automatico del servizio ordini: le risposte a questo indirizzo non sono lette da una persona.');
  return `${lines.join('\n')}\n`;
}

/** The outcome of a change or cancellation production decided (event `ordine.richiesta_esito`). */
export interface RequestMailInput extends NoticeEnvelope {
  timeZone: string;
  numeroOrdine: string;
  riferimentoOrdine?: string;
  tipo: RequestKind;
  esito: 'accettata' | 'rifiutata';
  /** The order's version after the decision. */
  versione?: number;
  /** Production's note on its decision. */
  nota?: string;
  /** When production decided (ISO 8601). */
  at: string;
}

const REQUEST_WORDS: Readonly<Record<RequestKind, string>> = { modifica: 'modifica', annullamento: 'annullamento' };

export function requestMailSubject(i: Pick<RequestMailInput, 'numeroOrdine' | 'riferimentoOrdine' | 'tipo' | 'esito'>): string {
  const ref = i.riferimentoOrdine ? ` (rif. ${oneLine(i.riferimentoOrdine, MAX_SUBJECT_REF)})` : '';
  return `Ordine ${oneLine(i.numeroOrdine, 40)}${ref}: richiesta di ${REQUEST_WORDS[i.tipo]} ${i.esito}`;
}

/** What the decision did to the order, as the sentence after the colon says it. */
function requestEffect(i: RequestMailInput): string {
  if (i.esito === 'rifiutata') {
    return i.versione !== undefined ? `l'ordine resta com'era (versione ${i.versione}) e la lavorazione prosegue` : "l'ordine resta com'era e la lavorazione prosegue";
  }
  if (i.tipo === 'annullamento') return "l'ordine è annullato";
  return i.versione !== undefined ? `l'ordine è stato modificato ed è ora alla versione ${i.versione}` : "l'ordine è stato modificato";
}

export function requestMailText(i: RequestMailInput): string {
  const ref = i.riferimentoOrdine ? ` (Suo riferimento ${oneLine(i.riferimentoOrdine, MAX_SUBJECT_REF)})` : '';
  const lines = [
    'Gentile cliente,',
    '',
    `la Sua richiesta di ${REQUEST_WORDS[i.tipo]} dell'ordine ${oneLine(i.numeroOrdine, 40)}${ref} è stata ${i.esito} dalla produzione: ${requestEffect(i)}.`,
  ];
  const nota = i.nota ? oneLine(i.nota, MAX_NOTE) : '';
  if (nota) lines.push('', `Nota della produzione: ${nota}`);
  lines.push('', `Decisione del ${localTime(i.at, i.timeZone)} (ora di ${i.timeZone === 'Europe/Rome' ? 'Roma' : i.timeZone}).`);
  lines.push('', 'Questo è un messaggio automatico del servizio ordini: le risposte a questo indirizzo non sono lette da una persona.');
  return `${lines.join('\n')}\n`;
}

export function composeRequestMail(i: RequestMailInput): Promise<{ subject: string; raw: Buffer }> {
  return composeNotice(i, requestMailSubject(i), requestMailText(i));
}

/** A notice (a status e-mail, a correction's), not a reply to a message just received: RFC 3834 3.1.7. */
export async function composeNotice(e: NoticeEnvelope, subject: string, text: string): Promise<{ subject: string; raw: Buffer }> {
  const inReplyTo = e.inReplyTo ? oneLine(e.inReplyTo, 998) : undefined;
  const mail = new MailComposer({
    from: { name: 'Servizio ordini', address: e.mailbox },
    to: e.to,
    subject,
    date: e.now,
    messageId: `<${e.id}@${e.mailDomain}>`,
    ...(inReplyTo ? { inReplyTo, references: [inReplyTo] } : {}),
    // Robots must not answer it.
    headers: { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' },
    text,
  });
  return { subject, raw: await mail.compile().build() };
}

export function composeStatusMail(i: StatusMailInput): Promise<{ subject: string; raw: Buffer }> {
  return composeNotice(i, statusMailSubject(i), statusMailText(i));
}
