/**
 * JDF 1.x product intent (root `<JDF Type="Product">`, namespace http://www.CIP4.org/JDFSchema_1_1) → one order.
 *
 * Read from where (first found wins):
 * - codice_cliente: CustomerInfo/@CustomerID. The CustomerInfo linked from the root's ResourceLinkPool, else the
 *   first CustomerInfo in the ticket (JDF 1.0–1.2 also allowed it as a direct child of the JDF node).
 * - riferimento_ordine: CustomerInfo/@CustomerOrderID, else the root's @JobID (a job without the customer's
 *   order number is still one order, and the JobID is what the sender will quote when it asks about it).
 * - data_ordine: AuditPool/Created/@TimeStamp of the root, else the date the submission was received.
 * - data_consegna: NodeInfo/@End (linked from the root, else any), else DeliveryIntent's DropIntent required
 *   date (@Required, or the Required span's @Actual/@Preferred).
 * - lines: one per final product (see finalProducts), quantita = its output ComponentLink/@Amount (or the
 *   link's PartAmount, or the Component's @Amount), article through the lookup from @ProductID, ProductType,
 *   DescriptiveName.
 */
import { candidateKeys } from './product-key-template.ts';
import { builtInKeys, resolveKeys } from './product-key.ts';
import { artworkOf, commentsOf, productEntry } from './ticket-details.ts';
import { ticketLine, ticketOrder, type DecodedTicket, type TicketContext } from './ticket.ts';
import { attr, child, children, descendants, type XNode } from './xml-tree.ts';

type Resources = ReadonlyMap<string, XNode>;

/** Every resource with an ID, wherever its ResourcePool is: rRef may point to any ancestor's pool. */
function resourcesById(root: XNode): Resources {
  const byId = new Map<string, XNode>();
  for (const pool of descendants(root, 'ResourcePool')) {
    for (const name of Object.keys(pool)) {
      for (const r of children(pool, name)) {
        const id = attr(r, 'ID');
        if (id !== undefined && !byId.has(id)) byId.set(id, r);
      }
    }
  }
  return byId;
}

/** `<NameLink rRef="…">` elements of a node's own ResourceLinkPool, with the resource each points to. */
function links(node: XNode, name: string, resources: Resources): Array<{ link: XNode; resource: XNode | undefined }> {
  return children(child(node, 'ResourceLinkPool'), `${name}Link`).map((link) => {
    const ref = attr(link, 'rRef');
    return { link, resource: ref === undefined ? undefined : resources.get(ref) };
  });
}

function outputComponent(node: XNode, resources: Resources): { link: XNode; resource: XNode | undefined } | undefined {
  return links(node, 'Component', resources).find((l) => attr(l.link, 'Usage') === 'Output');
}

function amountOf(node: XNode, resources: Resources): string | undefined {
  const out = outputComponent(node, resources);
  if (!out) return undefined;
  const partAmount = child(child(out.link, 'AmountPool'), 'PartAmount');
  return attr(out.link, 'Amount') ?? attr(partAmount, 'Amount') ?? attr(out.resource, 'Amount');
}

function isProduct(node: XNode): boolean {
  return attr(node, 'Type') === 'Product';
}

function childProducts(node: XNode): XNode[] {
  return children(node, 'JDF').filter(isProduct);
}

function isFinal(node: XNode, resources: Resources): boolean {
  const type = attr(outputComponent(node, resources)?.resource, 'ComponentType') ?? '';
  return type.split(/\s+/).includes('FinalProduct');
}

/**
 * Which product nodes are order lines. A JDF product tree mixes what the customer buys (a brochure) with its
 * parts (cover, body), and only the former are lines:
 * 1. products whose output Component says ComponentType="FinalProduct" (the spec's own marker), if any;
 * 2. else the root product, when it has an amount of its own or no child products;
 * 3. else the root's child products: the root only groups several products (a set ordered together).
 * A root that is not Type="Product" (a process ticket) is read as one product, the job's output.
 */
export function finalProducts(root: XNode, resources: Resources): XNode[] {
  const all: XNode[] = [];
  const collect = (n: XNode): void => {
    all.push(n);
    for (const c of childProducts(n)) collect(c);
  };
  collect(root);
  const marked = all.filter((n) => isFinal(n, resources));
  if (marked.length > 0) return marked;
  const kids = childProducts(root);
  if (!isProduct(root) || kids.length === 0 || amountOf(root, resources) !== undefined) return [root];
  return kids;
}

function customerInfo(root: XNode, resources: Resources): XNode | undefined {
  return links(root, 'CustomerInfo', resources).find((l) => l.resource)?.resource ?? descendants(root, 'CustomerInfo')[0];
}

function deliveryDate(root: XNode, resources: Resources): string | undefined {
  const nodeInfo = links(root, 'NodeInfo', resources).map((l) => attr(l.resource, 'End')).find((e) => e !== undefined);
  if (nodeInfo !== undefined) return nodeInfo;
  const anyNodeInfo = descendants(root, 'NodeInfo').map((n) => attr(n, 'End')).find((e) => e !== undefined);
  if (anyNodeInfo !== undefined) return anyNodeInfo;
  for (const intent of descendants(root, 'DeliveryIntent')) {
    for (const holder of [...children(intent, 'DropIntent'), intent]) {
      const span = child(holder, 'Required');
      const date = attr(holder, 'Required') ?? attr(span, 'Actual') ?? attr(span, 'Preferred');
      if (date !== undefined) return date;
    }
  }
  return undefined;
}

/** JDF keeps intents as resources linked from the product node: `<ColorIntentLink rRef>` → the ColorIntent. */
function jdfIntents(node: XNode, resources: Resources): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(child(node, 'ResourceLinkPool') ?? {})) {
    const m = /^(.+Intent)Link$/.exec(name);
    if (!m) continue;
    const r = links(node, m[1]!, resources).find((l) => l.resource)?.resource;
    if (r) out[m[1]!] = r;
  }
  return out;
}

export function decodeJdf(root: XNode, ctx: TicketContext): DecodedTicket {
  const resources = resourcesById(root);
  const customer = customerInfo(root, resources);
  const created = children(child(root, 'AuditPool'), 'Created').map((c) => attr(c, 'TimeStamp')).find((t) => t !== undefined);
  const products = finalProducts(root, resources);
  const articles = products.map((p) => {
    const component = outputComponent(p, resources)?.resource;
    return resolveKeys(candidateKeys(ctx.productKey, p, builtInKeys({
      identifier: attr(p, 'ProductID') ?? attr(component, 'ProductID'),
      productType: attr(component, 'ProductType') ?? attr(p, 'ProductType'),
      descriptiveName: attr(p, 'DescriptiveName') ?? attr(component, 'DescriptiveName'),
    })), ctx.lookup);
  });
  const righe = products.map((p, i) => ticketLine(articles[i]!, amountOf(p, resources)));
  const prodotti = products.map((p, i) => productEntry(p, {
    riga: i, quantita: amountOf(p, resources), intenti: jdfIntents(p, resources),
    ...(articles[i]!.productKey === undefined ? {} : { chiave_prodotto: articles[i]!.productKey }),
  }));
  const jobId = attr(root, 'JobID');
  return ticketOrder(root, {
    customer, created, delivery: deliveryDate(root, resources), righe,
    lineKeys: articles.map((a) => ({ ...(a.productKey === undefined ? {} : { key: a.productKey }), mapped: a.mapped })),
    details: { formato: 'jdf', ...(jobId === undefined ? {} : { job_id: jobId }), prodotti, commenti: commentsOf(root), file: artworkOf(root) },
  }, ctx);
}
