/**
 * The production states' allowed moves, shared by production's reports (src/handoff/production.ts) and the lifecycle's
 * cancellations (src/intake/lifecycle.ts). The diagram is in production.ts.
 */
import type { ProductionState } from './types.ts';

export const TRANSITIONS: Readonly<Record<ProductionState | 'nessuno', readonly ProductionState[]>> = {
  nessuno: ['in_lavorazione', 'spedito', 'consegnato', 'annullato'],
  in_lavorazione: ['spedito', 'consegnato', 'annullato'],
  spedito: ['consegnato'],
  consegnato: [],
  annullato: [],
};

export function canMove(from: ProductionState | undefined, to: ProductionState): boolean {
  return TRANSITIONS[from ?? 'nessuno'].includes(to);
}
