/**
 * Production status coming back from an integration (ERP/MIS): the state machine, and the update written with its
 * `ordine.stato_aggiornato` event in one transaction.
 *
 * States and moves (src/domain/production-moves.ts; forward only; a step may be skipped, since many systems report only shipment or delivery):
 *
 *   (none) ──► in_lavorazione ──► spedito ──► consegnato
 *      │             │               ▲            ▲
 *      │             └───────────────┼────────────┘  (in_lavorazione → consegnato: collected at the counter)
 *      ├─────────────────────────────┘ (none → spedito, none → consegnato)
 *      └──► annullato ◄── in_lavorazione
 *
 * `consegnato` and `annullato` are final; nothing is cancelled once shipped. Reporting the current state again
 * changes nothing and is not an error (a retried request must not fail), and writes no event.
 */
import { uuidv7 } from '../domain/uuid7.ts';
import { TRANSITIONS, canMove } from '../domain/production-moves.ts';
import { IntakeError } from '../domain/errors.ts';
import { registeredView, type OrderStatus } from '../domain/order-view.ts';
import { namesNothing } from '../intake/status.ts';
import type { ProductionState, ProductionStep, RegisteredOrder } from '../domain/types.ts';
import type { EventStore } from '../domain/store/events.ts';

/** Longest note kept with a report: a line or two for the customer, not a document. */
export const MAX_NOTE_LENGTH = 500;

/** Attempts when another report on the same order lands between our read and our write (each re-checks the move). */
const MAX_ATTEMPTS = 5;

const LABELS: Record<ProductionState, string> = {
  in_lavorazione: 'in lavorazione', spedito: 'spedito', consegnato: 'consegnato', annullato: 'annullato',
};


function refusal(o: RegisteredOrder, to: ProductionState): IntakeError {
  const from = o.productionState!;
  const allowed = TRANSITIONS[from];
  const rest = allowed.length === 0
    ? `lo stato "${LABELS[from]}" è definitivo e non può più cambiare`
    : `da "${LABELS[from]}" l'ordine può passare solo a ${allowed.map((s) => `"${LABELS[s]}"`).join(' o ')}`;
  return new IntakeError('STATE_TRANSITION', `L'ordine ${o.numero_ordine} è "${LABELS[from]}" e non può passare a "${LABELS[to]}": ${rest}`);
}

export interface ProductionUpdate {
  orderId: string;
  stato: ProductionState;
  nota?: string;
  /** Name of the integration reporting it (kept in the history). */
  integration: string;
  /** Only an order of this customer may change (a connector's report); another's is "not found", as a missing one. */
  customerId?: string;
}

export interface ProductionDeps {
  store: Pick<EventStore, 'getOrderAnyCustomer' | 'setProductionState'>;
  now?: () => Date;
  /** Told after an event was committed (wakes the feed's long polls). */
  onEvent?: () => void;
}

/** Apply a report; resolves with the order as customers now see it and whether anything changed. */
export async function updateProductionState(deps: ProductionDeps, u: ProductionUpdate): Promise<{ changed: boolean; order: OrderStatus }> {
  const now = deps.now ?? (() => new Date());
  for (let attempt = 1; ; attempt++) {
    const o = namesNothing(u.orderId) ? undefined : await deps.store.getOrderAnyCustomer(u.orderId);
    if (!o || (u.customerId !== undefined && o.customerId !== u.customerId)) throw new IntakeError('NOT_FOUND', `Ordine ${u.orderId} non trovato`);
    if (o.productionState === u.stato) return { changed: false, order: registeredView(o) };
    if (!canMove(o.productionState, u.stato)) throw refusal(o, u.stato);
    const at = now().toISOString();
    const step: ProductionStep = { stato: u.stato, aggiornato_il: at, ...(u.nota ? { nota: u.nota } : {}) };
    const after: RegisteredOrder = { ...o, productionState: u.stato, productionHistory: [...(o.productionHistory ?? []), step] };
    const view = registeredView(after);
    const written = await deps.store.setProductionState({
      orderId: o.id_ordine, from: o.productionState ?? null, to: u.stato, nota: u.nota, at, integration: u.integration,
      event: { id: uuidv7(), type: 'ordine.stato_aggiornato', time: at, orderId: o.id_ordine, customerId: o.customerId, data: { ...view } },
    });
    if (written) {
      deps.onEvent?.();
      return { changed: true, order: view };
    }
    // Someone else reported on this order between our read and our write: read again and judge the move again.
    if (attempt >= MAX_ATTEMPTS) throw new IntakeError('STATE_TRANSITION', `L'ordine ${o.numero_ordine} è stato aggiornato da un'altra richiesta nello stesso momento: riprova`);
  }
}
