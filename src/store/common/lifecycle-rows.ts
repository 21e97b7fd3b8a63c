/**
 * Rows of the lifecycle's tables (migration 034) and their domain objects (src/domain/store/lifecycle.ts), shared by
 * both engines.
 */
import type { Channel, Order, RequestKind, RequestState } from '../../domain/types.ts';
import type { ChangeRequest, StoredVersion } from '../../domain/store/lifecycle.ts';
import { isoOut, jsonOut, optIsoOut } from './rows.ts';

export interface VersionRow {
  versione: number; made_at: unknown; channel: string; action: string; submission_id: string; content: unknown;
}

export interface RequestRow {
  id: string; order_id: string; customer_id: string; kind: string; state: string; reason: string | null; note: string | null;
  content: unknown; content_hash: string | null; base_version: number; submission_id: string; channel: string;
  created_at: unknown; decided_at: unknown;
}

export const REQUEST_COLUMNS = `id, order_id, customer_id, kind, state, reason, note, content, content_hash, base_version,
  submission_id, channel, created_at, decided_at`;

/** An order's content as a version keeps it: what the customer asked, not how it was asked. */
export function versionContent(o: Order): string {
  const c: Order = { codice_cliente: o.codice_cliente, riferimento_ordine: o.riferimento_ordine, data_ordine: o.data_ordine, righe: o.righe };
  if (o.data_consegna !== undefined) c.data_consegna = o.data_consegna;
  if (o.note !== undefined) c.note = o.note;
  return JSON.stringify(c);
}

export function toVersion(r: VersionRow): StoredVersion {
  return {
    versione: Number(r.versione), ricevuto_il: isoOut(r.made_at), canale: r.channel as Channel,
    azione: r.action === 'modifica' ? 'modifica' : 'nuovo', submissionId: r.submission_id, order: jsonOut<Order>(r.content),
  };
}

export function toRequest(r: RequestRow): ChangeRequest {
  const q: ChangeRequest = {
    id_richiesta: r.id, orderId: r.order_id, customerId: r.customer_id, tipo: r.kind as RequestKind,
    stato_richiesta: r.state as RequestState, baseVersion: Number(r.base_version), submissionId: r.submission_id,
    channel: r.channel as Channel, createdAt: isoOut(r.created_at),
  };
  if (r.reason !== null) q.motivo = r.reason;
  if (r.note !== null) q.nota = r.note;
  if (r.content !== null && r.content !== undefined) q.order = jsonOut<Order>(r.content);
  if (r.content_hash !== null) q.contentHash = r.content_hash;
  const decided = optIsoOut(r.decided_at);
  if (decided !== undefined) q.decidedAt = decided;
  return q;
}

/**
 * Thrown inside a write that carries out a request which another writer decided meanwhile (a refusal racing an
 * acceptance): the transaction is rolled back and the write answers false, like any write whose order moved on.
 */
export class RequestMoved extends Error {
  constructor() {
    super('the request is no longer waiting');
    this.name = 'RequestMoved';
  }
}

export async function undoneIfMoved(write: () => Promise<boolean>): Promise<boolean> {
  try {
    return await write();
  } catch (e) {
    if (e instanceof RequestMoved) return false;
    throw e;
  }
}
