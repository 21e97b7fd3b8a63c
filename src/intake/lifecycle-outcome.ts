/**
 * A change or cancellation of a submission judged (src/intake/judge.ts): the lifecycle applied, its result as the
 * order's outcome, which every channel renders (REST and SOAP bodies, e-mail replies, outcome files).
 */
import type { OrderOutcome, Order, StoredSubmission } from '../domain/types.ts';
import { applyChange, type LifecycleDeps } from './lifecycle.ts';

type Base = Pick<OrderOutcome, 'index' | 'codice_cliente' | 'riferimento_ordine' | 'sito_produzione'>;

export async function changeOutcome(
  deps: LifecycleDeps, base: Base, order: Order, customerId: string, s: Pick<StoredSubmission, 'id' | 'channel'>,
  opts: { orderId?: string; ifMatch?: number; by?: string } = {},
): Promise<OrderOutcome> {
  const azione = order.azione!;
  const r = await applyChange(deps, {
    customerId, order, azione, channel: s.channel, submissionId: s.id,
    ...(order.motivo !== undefined ? { motivo: order.motivo } : {}), ...opts,
  });
  if (r.kind === 'refused') {
    return {
      ...base, esito: 'errore', azione, code: r.code, errori: [{ campo: r.campo, messaggio: r.messaggio }],
      ...(r.order ? { id_ordine: r.order.id_ordine, numero_ordine: r.order.numero_ordine, versione: r.order.versione } : {}),
    };
  }
  const o = r.order;
  const done: OrderOutcome = { ...base, esito: 'ok', azione, id_ordine: o.id_ordine, numero_ordine: o.numero_ordine, versione: o.versione };
  if (r.kind === 'request') {
    done.id_richiesta = r.request.id_richiesta;
    done.stato_richiesta = r.request.stato_richiesta;
  } else {
    // Nothing to do (the same change resent, a cancelled order cancelled again): answered as done, like a duplicate.
    if (!r.changed) done.duplicate = true;
    if (r.kind === 'cancelled') done.stato = 'annullato';
  }
  return done;
}
