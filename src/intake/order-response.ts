/**
 * Which Order Response a UBL document gets, from what became of it: at once (its outcome: the e-mail reply's
 * attachment, the FTP/SFTP outcome file) and later (the order as it is now: `GET /api/v1/ordini/{id}/order-response`,
 * which follows production's decision on a change or cancellation). The document is read again from the stored
 * submission: nothing about it is kept twice.
 */
import type { OrderOutcome, RegisteredOrder, StoredSubmission } from '../domain/types.ts';
import type { ChangeRequest } from '../domain/store/lifecycle.ts';
import { decodeXml } from './formats/xml/index.ts';
import { ublRootOf, type UblInfo } from './formats/ubl/decode.ts';
import { ublOf } from './ubl-resolve.ts';
import { renderOrderResponse, type ResponseCode } from '../render/order-response.ts';
import type { PeppolId } from '../domain/store/store.ts';

export interface ResponseSettings {
  seller?: PeppolId;
  timeZone: string;
}

export interface OrderResponseFile {
  /** `OrderResponse-<the buyer's document ID>.xml`, as the buyer's system expects it. */
  fileName: string;
  xml: string;
}

/** The UBL document a submission holds, if it holds one (read again from its bytes; anything else: undefined). */
export function ublOfSubmission(s: Pick<StoredSubmission, 'raw' | 'charset'>): UblInfo | undefined {
  const head = s.raw.subarray(0, 4096).toString('utf8');
  if (!ublRootOf(head.replace(/^\uFEFF/, ''))) return undefined;
  try {
    return ublOf(decodeXml({ raw: s.raw, charset: s.charset })[0]);
  } catch {
    return undefined;
  }
}

const safeName = (id: string) => id.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'documento';

function file(document: UblInfo, xml: string): OrderResponseFile {
  return { fileName: `OrderResponse-${safeName(document.id ?? document.orderReference ?? 'documento')}.xml`, xml };
}

/** A refusal's reasons as Notes: `campo: messaggio` (the campo names the document's element). */
function reasons(o: OrderOutcome): string[] {
  if (o.errori?.length) return o.errori.map((e) => `${e.campo}: ${e.messaggio}`);
  return o.message ?? ['Documento rifiutato'];
}

/** The response to a judged document, from its outcome (one order: a UBL document holds one). */
export function responseToOutcome(s: StoredSubmission, o: OrderOutcome | undefined, fileError: string[] | undefined, settings: ResponseSettings, at: Date): OrderResponseFile | undefined {
  const document = ublOfSubmission(s);
  if (!document) return undefined;
  let code: ResponseCode = 'RE';
  let notes: string[] = fileError ?? ['Documento non leggibile'];
  if (o?.esito === 'ok') {
    code = o.stato_richiesta === 'in_attesa' ? 'AB' : 'AP';
    notes = code === 'AB' ? ['Richiesta ricevuta: la produzione ha già iniziato a lavorare l\'ordine e deciderà; seguirà una nuova risposta']
      : o.stato === 'annullato' ? ['Ordine annullato'] : o.versione !== undefined && o.versione > 1 ? [`Ordine modificato: versione ${o.versione}`] : [];
  } else if (o) notes = reasons(o);
  const xml = renderOrderResponse({
    document, code, notes, id: `OR-${s.id}`, at, timeZone: settings.timeZone,
    ...(o?.numero_ordine ? { numero_ordine: o.numero_ordine } : {}), ...(settings.seller ? { seller: settings.seller } : {}),
  });
  return file(document, xml);
}

export interface OrderResponseStore {
  getSubmission(id: string): Promise<StoredSubmission | undefined>;
  orderRequests(orderId: string): Promise<ChangeRequest[]>;
}

/**
 * The response the order's latest UBL document has now: a waiting request AB, a decided one AP or RE (production's
 * note as the reason); else a cancellation or a change applied AP (advanced); else the order accepted AP. Undefined
 * when the order did not come as a UBL document.
 */
export async function responseToOrder(store: OrderResponseStore, order: RegisteredOrder, settings: ResponseSettings, at: Date): Promise<OrderResponseFile | undefined> {
  const registration = await store.getSubmission(order.submissionId);
  const original = registration && ublOfSubmission(registration);
  if (!original) return undefined;
  const seller = settings.seller ? { seller: settings.seller } : {};
  const base = { timeZone: settings.timeZone, at, numero_ordine: order.numero_ordine, ...seller };
  const request = (await store.orderRequests(order.id_ordine)).at(-1);
  if (request) {
    const s = await store.getSubmission(request.submissionId);
    // A request made by another channel (a JSON change) is answered for the order the buyer sent.
    const document = (s && ublOfSubmission(s)) ?? { ...original, orderReference: original.id };
    const code: ResponseCode = request.stato_richiesta === 'in_attesa' ? 'AB' : request.stato_richiesta === 'accettata' ? 'AP' : 'RE';
    const notes = request.stato_richiesta === 'in_attesa' ? ['Richiesta in attesa della decisione della produzione']
      : request.nota ? [request.nota] : request.stato_richiesta === 'rifiutata' ? ['Richiesta rifiutata dalla produzione'] : [];
    return file(document, renderOrderResponse({ ...base, document, code, notes, id: `OR-${request.id_richiesta}-${request.stato_richiesta}` }));
  }
  if (order.productionState === 'annullato' || order.versione > 1) {
    const document = { ...original, orderReference: original.orderReference ?? original.id };
    const notes = order.productionState === 'annullato' ? ['Ordine annullato'] : [`Ordine modificato: versione ${order.versione}`];
    return file(document, renderOrderResponse({ ...base, document, code: 'AP', notes, id: `OR-${order.id_ordine}-v${order.versione}${order.productionState === 'annullato' ? '-annullato' : ''}` }));
  }
  return file(original, renderOrderResponse({ ...base, document: original, code: 'AP', notes: [], id: `OR-${order.id_ordine}-v1` }));
}
