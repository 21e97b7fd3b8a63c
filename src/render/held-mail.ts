/**
 * The notice a customer may ask for (its sender policy's notifyHeld): a message sent in its name was held, not
 * registered and not answered. It goes to the customer's registered address, never to the held message's sender.
 */
import { composeNotice, oneLine, type NoticeEnvelope } from './status-mail.ts';
import { localTime } from './local-time.ts';

const REASONS: Record<string, string> = {
  'dmarc-fail': 'il mittente risulta falsificato (il messaggio non supera DMARC per il dominio del mittente)',
  'not-allowed': "il mittente non è nell'elenco dei mittenti autorizzati",
  'not-authenticated': 'il mittente non è autenticato (il messaggio non supera DMARC)',
};

export function composeHeldNotice(e: NoticeEnvelope, i: { sender?: string; reason: string; receivedAt: string; timeZone: string }): Promise<{ subject: string; raw: Buffer }> {
  const sender = i.sender ? oneLine(i.sender, 320) : 'mittente sconosciuto';
  const text = [
    'Gentile cliente,',
    '',
    `un messaggio inviato alla Sua casella ordini il ${localTime(i.receivedAt, i.timeZone)} da ${sender} è stato trattenuto: ${REASONS[i.reason] ?? i.reason}.`,
    'Gli ordini che contiene non sono stati registrati e il mittente non ha ricevuto risposta.',
    '',
    "Se il messaggio è Suo, contatti l'ufficio ordini, che può elaborarlo; altrimenti non deve fare nulla.",
    '',
    'Questo è un messaggio automatico del servizio ordini: le risposte a questo indirizzo non sono lette da una persona.',
  ].join('\n');
  return composeNotice(e, `Messaggio trattenuto da ${sender}`.slice(0, 200), `${text}\n`);
}
