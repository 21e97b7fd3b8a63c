/**
 * Resolution of UBL candidates (src/intake/formats/ubl/): what a Peppol or NSO document names by identifiers is turned
 * into our codes before stage A, since only the store knows them: the buyer's Peppol identifier → the customer, a
 * line's GTIN or buyer's own code → the article, the UN/ECE unit code → the unit. Refusals speak the document's
 * language (`campo` as a path in the document, `OrderLine[2]/LineItem/Quantity/@unitCode`), and so do stage A's and
 * B's once translated back (documentCampo).
 */
import { normaliseGtin } from '../catalog/gtin.ts';
import type { FieldError, OrderOutcome, Principal } from '../domain/types.ts';
import type { JudgeStore } from '../domain/store/ports.ts';
import type { PeppolId } from '../domain/store/store.ts';
import type { UblInfo } from './formats/ubl/decode.ts';
import { unitOf } from './formats/ubl/units.ts';

/** The service's own Peppol side (INTAKE_PEPPOL_ID, INTAKE_PEPPOL_UNITS). */
export interface PeppolSettings {
  /** Our participant identifier: a document whose seller is someone else is refused. */
  sellerId?: PeppolId;
  /** Operator's unit mapping (unitCode → unita_misura), upper-case. */
  units: ReadonlyMap<string, string>;
}

export const NO_PEPPOL: PeppolSettings = { units: new Map() };

export type ResolveStore = Pick<JudgeStore, 'customersByPeppolId' | 'articlesByGtin' | 'articleXrefs' | 'getCustomer' | 'getOrderByRef' | 'ublChangeSequence'>;

/** An Order Change's SequenceNumberID as a number, when it is one (Peppol writes it as an integer). */
export function sequenceOf(info: UblInfo): number | undefined {
  return info.document === 'OrderChange' && info.sequence !== undefined && /^\d{1,15}$/.test(info.sequence) ? Number(info.sequence) : undefined;
}

/** The UBL side of a candidate, if it is a UBL document's. */
export function ublOf(candidate: unknown): UblInfo | undefined {
  const u = (candidate as { ubl?: unknown } | null)?.ubl;
  return typeof u === 'object' && u !== null && 'document' in u ? (u as UblInfo) : undefined;
}

const idKey = (i: PeppolId) => `${i.scheme}:${i.identifier}`;

/**
 * Resolves the UBL candidates among `candidates` in place (codice_cliente, each line's codice_articolo and
 * unita_misura); returns the refusals by position in `candidates` for those that cannot be resolved.
 */
export async function resolveUbl(
  store: ResolveStore, principal: Principal, peppol: PeppolSettings, candidates: readonly unknown[], first: number,
): Promise<Map<number, OrderOutcome>> {
  const refusals = new Map<number, OrderOutcome>();
  const ubl = candidates.map(ublOf);
  if (ubl.every((u) => u === undefined)) return refusals;
  const buyerIds = ubl.flatMap((u) => u?.buyerIds ?? []);
  const owners = await store.customersByPeppolId(buyerIds);
  const codes = new Map<string, string>();
  for (const id of new Set(owners.values())) {
    const c = id === principal.customerId ? { code: principal.customerCode } : await store.getCustomer(id);
    if (c) codes.set(id, c.code);
  }
  const gtins = ubl.flatMap((u) => u?.lines.flatMap((l) => (l.sellers === undefined && l.gtin !== undefined ? [normaliseGtin(l.gtin) ?? l.gtin] : [])) ?? []);
  const byGtin = await store.articlesByGtin(gtins);
  const buyerCodes = ubl.flatMap((u) => u?.lines.flatMap((l) => (l.sellers === undefined && l.gtin === undefined && l.buyers !== undefined ? [l.buyers] : [])) ?? []);
  const xrefs = await store.articleXrefs(principal.customerId, buyerCodes);

  // An Order Change older than one the order already took would undo it: refused (SequenceNumberID).
  const taken = new Map<number, number>();
  for (const [k, info] of ubl.entries()) {
    const seq = info && sequenceOf(info);
    if (seq === undefined || info?.orderReference === undefined) continue;
    const order = await store.getOrderByRef(principal.customerId, info.orderReference);
    const last = order && await store.ublChangeSequence(order.id_ordine);
    if (last !== undefined && seq < last) taken.set(k, last);
  }

  ubl.forEach((info, k) => {
    if (!info) return;
    const c = candidates[k] as Record<string, unknown>;
    const errori: FieldError[] = [];
    const base = { index: first + k, riferimento_ordine: typeof c.riferimento_ordine === 'string' ? c.riferimento_ordine : undefined };

    const seller = peppol.sellerId;
    if (seller && info.sellerIds.length > 0 && !info.sellerIds.some((i) => idKey(i) === idKey(seller))) {
      errori.push({
        campo: info.sellerIds[0]!.path,
        messaggio: `Il documento è indirizzato a un altro fornitore (${info.sellerIds.map(idKey).join(', ')}), non a ${idKey(seller)}`,
      });
    }

    const found = [...new Set(info.buyerIds.map((i) => owners.get(idKey(i))).filter((v): v is string => v !== undefined))];
    if (found.length === 0) {
      errori.push(info.buyerIds.length === 0
        ? { campo: 'BuyerCustomerParty/Party/EndpointID', messaggio: "Manca l'identificativo Peppol dell'acquirente (EndpointID o PartyIdentification/ID con schemeID)" }
        : {
          campo: info.buyerIds[0]!.path,
          messaggio: `L'acquirente ${info.buyerIds.map(idKey).join(', ')} non è registrato presso di noi: chiedere al fornitore di associare l'identificativo al proprio codice cliente`,
        });
    } else if (!found.includes(principal.customerId)) {
      const other = codes.get(found[0]!) ?? '?';
      refusals.set(k, {
        ...base, codice_cliente: other, esito: 'errore', code: 'FORBIDDEN_CUSTOMER',
        errori: [{ campo: info.buyerIds[0]!.path, messaggio: `L'acquirente del documento (cliente "${other}") non corrisponde al cliente autenticato` }],
        message: [`the buyer of the document (customer "${other}") does not belong to the authenticated customer`],
      });
      return;
    }
    c.codice_cliente = principal.customerCode;

    const last = taken.get(k);
    if (last !== undefined) {
      errori.push({ campo: 'SequenceNumberID', messaggio: `La modifica numero ${info.sequence} è precedente alla modifica numero ${last}, già ricevuta: non viene applicata` });
    }

    if (info.document === 'OrderCancellation' && typeof c.motivo !== 'string') {
      errori.push({ campo: 'CancellationNote', messaggio: "Manca il motivo dell'annullamento (CancellationNote)" });
    }

    const righe = Array.isArray(c.righe) ? (c.righe as Record<string, unknown>[]) : [];
    info.lines.forEach((l, i) => {
      const row = righe[i];
      if (!row) return;
      if (l.sellers !== undefined) row.codice_articolo = l.sellers;
      else if (l.gtin !== undefined) {
        const gtin = normaliseGtin(l.gtin);
        const code = gtin === undefined ? undefined : byGtin.get(gtin);
        if (code !== undefined) row.codice_articolo = code;
        else {
          errori.push({
            campo: `${l.path}/Item/StandardItemIdentification/ID`,
            messaggio: gtin === undefined ? `«${l.gtin}» non è un GTIN valido` : `Il GTIN ${l.gtin} non corrisponde a nessun articolo del catalogo`,
          });
        }
      } else if (l.buyers !== undefined) {
        const code = xrefs.get(l.buyers);
        if (code !== undefined) row.codice_articolo = code;
        else errori.push({ campo: `${l.path}/Item/BuyersItemIdentification/ID`, messaggio: `Il codice articolo del cliente «${l.buyers}» non ha una corrispondenza con i nostri articoli` });
      } else {
        errori.push({
          campo: `${l.path}/Item`,
          messaggio: `La riga non identifica l'articolo: manca SellersItemIdentification/ID, StandardItemIdentification/ID con schemeID 0160 (GTIN) o BuyersItemIdentification/ID${l.otherStandard ? ` (identificativo ${l.otherStandard} non gestito)` : ''}`,
        });
      }
      if (l.unitCode !== undefined) row.unita_misura = unitOf(l.unitCode, peppol.units);
      else errori.push({ campo: `${l.path}/Quantity/@unitCode`, messaggio: "Manca l'unità di misura (unitCode)" });
    });

    if (errori.length > 0) {
      refusals.set(k, { ...base, codice_cliente: principal.customerCode, esito: 'errore', code: 'BUSINESS', errori });
    }
  });
  return refusals;
}

/** Where a field of our order is in the UBL document (`righe[1].unita_misura` → `OrderLine[2]/LineItem/Quantity/@unitCode`). */
export function documentCampo(campo: string, info: UblInfo): string {
  const m = /^righe(?:\[(\d+)\]|\.(\d+))\.?(\w+)?/.exec(campo);
  if (m) {
    const line = info.lines[Number(m[1] ?? m[2])];
    const path = line?.path ?? `OrderLine[${Number(m[1] ?? m[2]) + 1}]/LineItem`;
    switch (m[3]) {
      case 'quantita': return `${path}/Quantity`;
      case 'unita_misura': return `${path}/Quantity/@unitCode`;
      case 'codice_articolo':
        return `${path}/Item/${line?.sellers !== undefined ? 'SellersItemIdentification/ID' : line?.gtin !== undefined ? 'StandardItemIdentification/ID' : 'BuyersItemIdentification/ID'}`;
      default: return path;
    }
  }
  const reference = info.document === 'Order' && info.orderReference === undefined ? 'ID' : info.document === 'Order' ? 'OrderDocumentReference/ID' : 'OrderReference/ID';
  const fields: Record<string, string> = {
    codice_cliente: 'BuyerCustomerParty/Party/EndpointID',
    riferimento_ordine: reference,
    data_ordine: 'IssueDate',
    data_consegna: 'Delivery/RequestedDeliveryPeriod',
    note: 'Note',
    righe: 'OrderLine',
    motivo: info.document === 'OrderCancellation' ? 'CancellationNote' : 'Note',
  };
  return fields[campo] ?? campo;
}

/** Stage A's English messages (`righe.0.quantita must be …`) as document errors in Italian, for people. */
export function documentErrors(messages: readonly string[], info: UblInfo): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const m of messages) {
    const field = /^(\S+)\s/.exec(m)?.[1];
    if (field === undefined) continue;
    const campo = documentCampo(field, info);
    if (seen.has(campo)) continue;
    seen.add(campo);
    out.push({ campo, messaggio: /should not be empty|must contain at least 1/.test(m) ? 'Valore mancante' : 'Valore non valido' });
  }
  return out;
}

/** What GET shows of the document an order came as (`documento`): kept with the order when it is registered. */
export interface DocumentDetails {
  formato: 'ubl';
  documento: UblInfo['document'];
  id?: string;
  customization_id?: string;
  extra: UblInfo['extra'];
  righe: ({ riga?: string; gtin?: string; codice_articolo_cliente?: string } & UblInfo['lines'][number]['extra'])[];
}

export function documentDetails(info: UblInfo): DocumentDetails {
  return {
    formato: 'ubl', documento: info.document,
    ...(info.id !== undefined ? { id: info.id } : {}),
    ...(info.customizationId !== undefined ? { customization_id: info.customizationId } : {}),
    extra: info.extra,
    righe: info.lines.map((l) => ({
      ...(l.id !== undefined ? { riga: l.id } : {}),
      ...(l.gtin !== undefined ? { gtin: l.gtin } : {}),
      ...(l.buyers !== undefined ? { codice_articolo_cliente: l.buyers } : {}),
      ...l.extra,
    })),
  };
}
