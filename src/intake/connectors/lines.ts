/**
 * Stage B's word on a ticket's lines, made useful to the integrator: a product the connector's table does not map
 * is refused on righe[i].codice_articolo naming the product key to add, not as an unknown article code the sender
 * never wrote.
 */
import type { FieldError } from '../../domain/types.ts';
import type { LineKey } from './ticket.ts';

const FIELD = /^righe\[(\d+)\]\.codice_articolo$/;

export function explainLines(errori: FieldError[], lineKeys: readonly LineKey[] | undefined): FieldError[] {
  if (!lineKeys) return errori;
  return errori.map((e) => {
    const m = FIELD.exec(e.campo);
    const k = m ? lineKeys[Number(m[1])] : undefined;
    if (!k || k.mapped) return e;
    if (k.key === undefined) {
      return {
        campo: e.campo,
        messaggio: 'Il prodotto non ha una chiave (né ExternalID, ProductType, DescriptiveName, né quella scelta per il connettore): '
          + "chiedete all'operatore di impostare la chiave prodotto del connettore",
      };
    }
    return {
      campo: e.campo,
      messaggio: `Nessun articolo per il prodotto con chiave "${k.key}": aggiungete la chiave "${k.key}" alla tabella di conversione del connettore`,
    };
  });
}
