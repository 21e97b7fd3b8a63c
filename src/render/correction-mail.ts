/**
 * The e-mail that tells a customer the order desk registered an order of a message it had refused: Italian
 * plain text with the order's number and the recap of its registered lines, from the customer's order mailbox, to the
 * address the refusal went to, threaded under the customer's message. Composed once into RFC 5322 bytes and queued in
 * the reply outbox, like the production status notifications (status-mail.ts).
 */
import { localTime } from './local-time.ts';
import { omittedText, recapTextLines, type Recap } from './recap.ts';
import { composeNotice, oneLine, type NoticeEnvelope } from './status-mail.ts';

export interface CorrectionMailInput extends NoticeEnvelope {
  timeZone: string;
  numeroOrdine: string;
  idOrdine: string;
  riferimentoOrdine?: string;
  /** The refused file, as the first reply named it. */
  fileName?: string;
  /** When the customer's message was received. */
  receivedAt: string;
  recap: Recap;
}

export function correctionMailSubject(i: Pick<CorrectionMailInput, 'numeroOrdine' | 'riferimentoOrdine'>): string {
  const ref = i.riferimentoOrdine ? ` (rif. ${oneLine(i.riferimentoOrdine, 80)})` : '';
  return `Ordine ${oneLine(i.numeroOrdine, 40)}${ref} registrato dall'ufficio ordini`;
}

export function correctionMailText(i: CorrectionMailInput): string {
  const ref = i.riferimentoOrdine ? ` con riferimento ${oneLine(i.riferimentoOrdine, 80)}` : '';
  const file = i.fileName ? ` nel file ${oneLine(i.fileName, 200)}` : '';
  const lines = [
    'Gentile cliente,',
    '',
    `l'ordine${ref}${file}, ricevuto il ${localTime(i.receivedAt, i.timeZone)}, non era stato accettato (Le abbiamo risposto con gli errori).`,
    `L'ufficio ordini lo ha corretto e registrato con il numero ${oneLine(i.numeroOrdine, 40)}.`,
  ];
  const r = i.recap.byOrder.get(i.idOrdine);
  if (r) lines.push('', 'Righe registrate:', ...recapTextLines(r));
  else if (i.recap.omittedOrders > 0) lines.push('', omittedText(i.recap.omittedOrders));
  lines.push('', 'Se qualcosa non corrisponde al Suo ordine, contatti l\'ufficio ordini.',
    '', 'Questo è un messaggio automatico del servizio ordini.');
  return `${lines.join('\n')}\n`;
}

export function composeCorrectionMail(i: CorrectionMailInput): Promise<{ subject: string; raw: Buffer }> {
  return composeNotice(i, correctionMailSubject(i), correctionMailText(i));
}
