/**
 * XJDF 2.x (root `<XJDF>`, namespace http://www.CIP4.org/JDFSchema_2_0) → one order.
 *
 * Read from where (first found wins):
 * - codice_cliente / riferimento_ordine: CustomerInfo/@CustomerID and @CustomerOrderID (XJDF 2.x keeps it in
 *   ResourceSet[@Name="CustomerInfo"]/Resource/CustomerInfo; a CustomerInfo anywhere in the ticket is read),
 *   reference falling back to XJDF/@JobID. No CustomerID: the connector's customer (submission.ts maps it).
 * - data_ordine: AuditPool/AuditCreated/Header/@Time, else the day the job was first received (submission.ts).
 * - data_consegna: NodeInfo/@End, else DeliveryIntent/DropIntent/@Required, else DeliveryParams/@Required.
 * - lines: ProductList/Product with IsRoot="true"; when no product says IsRoot, the products no other product
 *   lists in a ChildRefs (the roots of the bill of materials). quantita = Product/@Amount, article through the
 *   lookup from @ExternalID, @ProductType, @DescriptiveName, or the connector's own product key template.
 * - kept with the order (ticket-details.ts): every product's intents, the Comments, RunList/FileSpec/@URL.
 */
import { candidateKeys } from './product-key-template.ts';
import { builtInKeys, resolveKeys } from './product-key.ts';
import { artworkOf, commentsOf, productEntry, xjdfIntents } from './ticket-details.ts';
import { ticketLine, ticketOrder, type DecodedTicket, type TicketContext } from './ticket.ts';
import { attr, child, children, descendants, type XNode } from './xml-tree.ts';

function childRefs(products: XNode[]): Set<string> {
  const refs = new Set<string>();
  for (const p of products) {
    for (const el of [p, ...descendants(p, undefined)]) {
      for (const id of (attr(el, 'ChildRefs') ?? '').split(/\s+/)) if (id) refs.add(id);
    }
  }
  return refs;
}

export function rootProducts(root: XNode): XNode[] {
  const products = children(child(root, 'ProductList'), 'Product');
  const flagged = products.filter((p) => attr(p, 'IsRoot') === 'true');
  if (flagged.length > 0) return flagged;
  const refs = childRefs(products);
  return products.filter((p) => {
    const id = attr(p, 'ID');
    return attr(p, 'IsRoot') !== 'false' && (id === undefined || !refs.has(id));
  });
}

function deliveryDate(root: XNode): string | undefined {
  const candidates = [
    ...descendants(root, 'NodeInfo').map((n) => attr(n, 'End')),
    ...descendants(root, 'DropIntent').map((n) => attr(n, 'Required')),
    ...descendants(root, 'DeliveryParams').map((n) => attr(n, 'Required')),
  ];
  return candidates.find((d) => d !== undefined);
}

export function decodeXjdf(root: XNode, ctx: TicketContext): DecodedTicket {
  const customer = descendants(root, 'CustomerInfo')[0];
  const created = children(child(root, 'AuditPool'), 'AuditCreated').map((a) => attr(child(a, 'Header'), 'Time')).find((t) => t !== undefined);
  const roots = rootProducts(root);
  const articles = roots.map((p) => resolveKeys(candidateKeys(ctx.productKey, p, builtInKeys({
    identifier: attr(p, 'ExternalID'), productType: attr(p, 'ProductType'), descriptiveName: attr(p, 'DescriptiveName'),
  })), ctx.lookup));
  const righe = roots.map((p, i) => ticketLine(articles[i]!, attr(p, 'Amount')));
  const prodotti = children(child(root, 'ProductList'), 'Product').map((p) => {
    const i = roots.indexOf(p);
    return productEntry(p, { ...(i >= 0 ? { riga: i, chiave_prodotto: articles[i]!.productKey } : {}), intenti: xjdfIntents(p) });
  });
  const jobId = attr(root, 'JobID');
  return ticketOrder(root, {
    customer, created, delivery: deliveryDate(root), righe,
    lineKeys: articles.map((a) => ({ ...(a.productKey === undefined ? {} : { key: a.productKey }), mapped: a.mapped })),
    details: { formato: 'xjdf', ...(jobId === undefined ? {} : { job_id: jobId }), prodotti, commenti: commentsOf(root), file: artworkOf(root) },
  }, ctx);
}
