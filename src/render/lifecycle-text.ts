/**
 * What became of a change or cancellation, in the words every channel uses for people and API clients alike
 * (REST's and SOAP's `messaggio`, e-mail replies, FTP/SFTP outcome files, the portal): one wording, so a customer
 * reads the same sentence whichever way the order went.
 */
import type { OrderOutcome } from '../domain/types.ts';

/** The sentence for an accepted change or cancellation; undefined for any other outcome. */
export function changeMessage(o: OrderOutcome): string | undefined {
  if (o.azione === undefined || o.esito !== 'ok') return undefined;
  const n = o.numero_ordine ?? o.riferimento_ordine ?? '';
  if (o.id_richiesta !== undefined) {
    const what = o.azione === 'modifica' ? 'modifica' : 'annullamento';
    return `Ordine ${n} in lavorazione: richiesta di ${what} inoltrata alla produzione (richiesta ${o.id_richiesta}); riceverà l'esito`;
  }
  if (o.azione === 'annulla') return o.duplicate ? `Ordine ${n} già annullato: nessuna modifica` : `Ordine ${n} annullato`;
  return o.duplicate
    ? `Ordine ${n} già alla versione ${o.versione} con lo stesso contenuto: nessuna nuova versione`
    : `Ordine ${n} modificato: versione ${o.versione}`;
}
