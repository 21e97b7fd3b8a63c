// An event stream held in memory, for the tests that exercise subscribers, fan-out and deliveries on their own. The
// service reads the outbox through the store's EventReader; this one follows the same contract (strictly after the
// cursor, in order).
import { v7 as uuidv7 } from 'uuid';
import type { EventReader, OrderEvent, OrderEventType } from '../../src/domain/order-events.ts';

export interface MemoryEvents extends EventReader {
  events: OrderEvent[];
  add(type: OrderEventType, data: Record<string, unknown>): OrderEvent;
}

export function memoryEvents(): MemoryEvents {
  const events: OrderEvent[] = [];
  return {
    events,
    add(type, data) {
      const e: OrderEvent = { id: uuidv7(), type, time: new Date().toISOString(), cursor: String(events.length + 1).padStart(12, '0'), data };
      events.push(e);
      return e;
    },
    async readAfter(cursor, limit) {
      const from = cursor === null ? 0 : Number(cursor);
      return events.slice(from, from + limit);
    },
  };
}

/** An order as the REST GET shows it, as the event's data. */
export function registeredOrder(n: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    stato: 'registrato', id_ordine: uuidv7(), numero_ordine: `2026-${String(n).padStart(6, '0')}`, codice_cliente: 'C001',
    riferimento_ordine: `ODA-${n}`, data_ordine: '2026-11-20', data_consegna: '2026-12-01',
    righe: [{ codice_articolo: 'BV-STD', quantita: 500, unita_misura: 'PZ' }, { codice_articolo: 'CAR-A4-80', quantita: 2.5, unita_misura: 'RS' }],
    canale: 'rest', registrato_il: new Date().toISOString(), ...over,
  };
}
