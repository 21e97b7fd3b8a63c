/**
 * The outcome of an order once the store has answered its registration: accepted (new or a duplicate) or refused as
 * a conflict. One builder for the two places that make it: judging (src/intake/judge.ts, every order of a file) and
 * the store's one write of a single order (Store.saveSingleOrder, REST and SOAP), which builds the outcome inside the
 * transaction that registers the order, so that the submission row is written once, already processed. Pure.
 */
import type { RegisterItem, RegisterResult } from './store/store.ts';
import type { Order, OrderOutcome, Outcome } from './types.ts';

/**
 * A registered order's outcome. Written out as two literals rather than spread from a base object: V8 gives every
 * object made by spreading one object and adding properties a hidden class of its own (some 300 bytes more per
 * order, 30 MiB for a file of 100,000), where one literal shares one. Same keys in the same order as judge.ts's
 * outcomeBase and the rest. `repeat`: the same order earlier in the same file (a duplicate whatever the store said).
 */
export function okOutcome(index: number, order: Order, site: string | undefined, r: Pick<RegisterResult, 'status' | 'id_ordine' | 'numero_ordine'>, repeat = false): OrderOutcome {
  const duplicate = repeat || r.status === 'duplicate';
  return site === undefined
    ? { index, codice_cliente: order.codice_cliente, riferimento_ordine: order.riferimento_ordine, esito: 'ok', duplicate, id_ordine: r.id_ordine, numero_ordine: r.numero_ordine }
    : {
      index, codice_cliente: order.codice_cliente, riferimento_ordine: order.riferimento_ordine, sito_produzione: site,
      esito: 'ok', duplicate, id_ordine: r.id_ordine, numero_ordine: r.numero_ordine,
    };
}

/** The outcome of an order the store refused: registered before with other content (the number it has then). */
export function conflictOutcome(index: number, order: Order, site: string | undefined, numero: string): OrderOutcome {
  const errori = [{ campo: 'riferimento_ordine', messaggio: `L'ordine "${order.riferimento_ordine}" è già stato registrato (numero ${numero}) con un contenuto diverso: per cambiarlo, inviarlo con azione "modifica"; per un nuovo ordine, usare un altro riferimento` }];
  return site === undefined
    ? { index, codice_cliente: order.codice_cliente, riferimento_ordine: order.riferimento_ordine, esito: 'errore', code: 'CONFLICT', errori }
    : {
      index, codice_cliente: order.codice_cliente, riferimento_ordine: order.riferimento_ordine, sito_produzione: site,
      esito: 'errore', code: 'CONFLICT', errori,
    };
}

/** An order's outcome from the store's answer to its registration. */
export function registeredOutcome(index: number, order: Order, site: string | undefined, r: RegisterResult, repeat = false): OrderOutcome {
  return r.status === 'conflict' ? conflictOutcome(index, order, site, r.numero_ordine) : okOutcome(index, order, site, r, repeat);
}

/** The outcome of a submission of one order (`item`, at position 0) that the store answered with `r`. */
export function singleOrderOutcome(item: Pick<RegisterItem, 'submissionId' | 'order' | 'site'>, r: RegisterResult): Outcome {
  const o = registeredOutcome(0, item.order, item.site, r);
  return { submissionId: item.submissionId, esito: o.esito, orders: [o] };
}
