/**
 * One export delivery: the event rendered in the folder's format and written atomically (export-file.ts). XJDF
 * lines carry the prepress system's product names where a connector of the order's customer has a lookup table
 * (the connector bound to the order's production site first, then the others, oldest first; the first row naming
 * an article wins).
 */
import type { OrderEvent } from '../domain/order-events.ts';
import { exportFileName, renderXmlExport, writeExportFile } from './export-file.ts';
import { renderXjdf, type XjdfOrder } from './export-xjdf.ts';
import type { Subscriber } from '../domain/store/handoff.ts';
import type { HandoffPort } from '../domain/store/ports.ts';

export async function productNames(store: HandoffPort, data: Record<string, unknown>): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const customer = typeof data.codice_cliente === 'string' ? await store.getCustomerByCode(data.codice_cliente) : undefined;
  if (!customer) return names;
  const site = typeof data.sito_produzione === 'string' ? data.sito_produzione.toUpperCase() : undefined;
  const connectors = (await store.listConnectors({ customerId: customer.id }))
    .sort((a, b) => Number(site !== undefined && b.sites.includes(site)) - Number(site !== undefined && a.sites.includes(site)));
  for (const c of connectors) {
    for (const row of await store.connectorLookup(c.id)) if (!names.has(row.codice_articolo)) names.set(row.codice_articolo, row.productKey);
  }
  return names;
}

function xjdfOrder(event: OrderEvent): XjdfOrder {
  const data = event.data;
  const text = (k: string): string => {
    const v = data[k];
    if (typeof v !== 'string' || v === '') throw new Error(`the event's order has no ${k}: it cannot be written as XJDF`);
    return v;
  };
  const righe = Array.isArray(data.righe) ? data.righe as XjdfOrder['righe'] : [];
  return {
    id_ordine: text('id_ordine'), numero_ordine: text('numero_ordine'), codice_cliente: text('codice_cliente'),
    riferimento_ordine: text('riferimento_ordine'),
    ...(typeof data.data_consegna === 'string' ? { data_consegna: data.data_consegna } : {}),
    ...(typeof data.note === 'string' ? { note: data.note } : {}),
    ...(typeof data.sito_produzione === 'string' ? { sito_produzione: data.sito_produzione } : {}),
    ...(typeof data.versione === 'number' && Number.isInteger(data.versione) && data.versione > 0 ? { versione: data.versione } : {}),
    ...(data.stato === 'annullato' ? { annullato: typeof data.motivo === 'string' ? data.motivo : '' } : {}),
    righe: righe.map((r) => ({ codice_articolo: String(r.codice_articolo), quantita: Number(r.quantita), unita_misura: String(r.unita_misura) })),
  };
}

export async function renderExport(store: HandoffPort, s: Subscriber, event: OrderEvent, agentVersion: string): Promise<string> {
  switch (s.format) {
    case 'xml':
      return renderXmlExport(event);
    case 'xjdf':
      return renderXjdf(xjdfOrder(event), event.time, await productNames(store, event.data), agentVersion);
    default:
      return `${JSON.stringify(event, null, 2)}\n`;
  }
}

export async function deliverExport(store: HandoffPort, s: Subscriber, body: string, agentVersion: string): Promise<string> {
  const event = JSON.parse(body) as OrderEvent;
  const name = exportFileName(event, s.format ?? 'json');
  await writeExportFile(s.dir!, name, await renderExport(store, s, event, agentVersion));
  return name;
}
