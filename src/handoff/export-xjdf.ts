/**
 * A registered order as an XJDF 2.1 product-intent ticket, for prepress workflows that take XJDF from a hot folder
 * (Prinect, Prinergy, Switch). It validates against the CIP4 XJDF schema (test/handoff/export-xjdf.test.ts runs
 * xmllint on it) and reads back through our own XJDF connector decoder (src/intake/connectors/xjdf.ts):
 * - JobID = numero_ordine; GeneralID OrderID = id_ordine; GeneralID ProductionSite = sito_produzione, if any;
 * - the version: GeneralID OrderVersion = versione, so a MIS matches every version of one order by its JobID (which
 *   never changes) and knows which is newest; a cancelled order: GeneralID OrderStatus = annullato and an
 *   Instruction comment saying so (with the customer's reason);
 * - ResourceSet CustomerInfo: CustomerID = codice_cliente, CustomerOrderID = riferimento_ordine;
 * - the order's note, if any: a root Comment of Type "Instruction", in Italian (Language="it");
 * - ResourceSet NodeInfo: End = data_consegna (at 12:00 UTC, so the calendar date is the same in every time zone
 *   within ±12 h);
 * - one root Product per order line: Amount = quantita (XJDF counts whole pieces: a fractional quantity, e.g. 2.5 RS
 *   of paper, is left out of Amount and written in the product's Comment with its unit), ExternalID = codice_articolo,
 *   DescriptiveName = the prepress system's own product name from the connector lookup table when the article has
 *   one (the reverse of the lookup the XJDF connector applies on the way in), else the article code; a
 *   ProductionIntent marks it as product intent.
 */
import { xmlAttr, xmlText } from './xml-escape.ts';

export interface XjdfOrder {
  id_ordine: string;
  numero_ordine: string;
  codice_cliente: string;
  riferimento_ordine: string;
  data_consegna?: string;
  note?: string;
  sito_produzione?: string;
  versione?: number;
  /** Set for a cancelled order: the reason, if the customer gave one ('' otherwise). */
  annullato?: string;
  righe: { codice_articolo: string; quantita: number; unita_misura: string }[];
}

/** NMTOKEN (ExternalID): letters, digits and . - _ : only; an article code with anything else is left out of it. */
const NMTOKEN = /^[\p{L}\p{N}._:-]+$/u;

function productXml(r: XjdfOrder['righe'][number], i: number, productName: string | undefined): string {
  const whole = Number.isInteger(r.quantita) && Math.abs(r.quantita) <= 2_147_483_647;
  const attrs = [
    `ID="P${i + 1}"`, 'IsRoot="true"',
    whole ? `Amount="${r.quantita}"` : '',
    NMTOKEN.test(r.codice_articolo) ? `ExternalID="${xmlAttr(r.codice_articolo)}"` : '',
    `DescriptiveName="${xmlAttr(productName ?? r.codice_articolo)}"`,
  ].filter(Boolean).join(' ');
  return [
    `    <Product ${attrs}>`,
    `      <Comment>${xmlText(`quantita ${r.quantita} ${r.unita_misura}`)}</Comment>`,
    '      <Intent Name="ProductionIntent">',
    '        <ProductionIntent/>',
    '      </Intent>',
    '    </Product>',
  ].join('\n');
}

/**
 * `productNames`: codice_articolo → the product name the connector's lookup table maps to it (first row wins).
 * `createdAt`: when the ticket describes the order as created (the event's time).
 */
export function renderXjdf(o: XjdfOrder, createdAt: string, productNames: ReadonlyMap<string, string>, agentVersion: string): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<XJDF xmlns="http://www.CIP4.org/JDFSchema_2_0" JobID="${xmlAttr(o.numero_ordine)}" Types="Product" Version="2.1"`
      + ` DescriptiveName="${xmlAttr(`Ordine ${o.riferimento_ordine} di ${o.codice_cliente}`)}">`,
    '  <AuditPool>',
    '    <AuditCreated>',
    `      <Header AgentName="order-intake" AgentVersion="${xmlAttr(agentVersion)}" DeviceID="order-intake" Time="${xmlAttr(createdAt)}"/>`,
    '    </AuditCreated>',
    '  </AuditPool>',
    ...(o.annullato !== undefined
      ? [`  <Comment Type="Instruction" Language="it">${xmlText(`Ordine annullato${o.annullato ? `: ${o.annullato}` : ''}`)}</Comment>`] : []),
    ...(o.note ? [`  <Comment Type="Instruction" Language="it">${xmlText(o.note)}</Comment>`] : []),
    `  <GeneralID IDUsage="OrderID" IDValue="${xmlAttr(o.id_ordine)}"/>`,
    ...(o.versione !== undefined ? [`  <GeneralID IDUsage="OrderVersion" IDValue="${o.versione}"/>`] : []),
    ...(o.annullato !== undefined ? ['  <GeneralID IDUsage="OrderStatus" IDValue="annullato"/>'] : []),
    ...(o.sito_produzione ? [`  <GeneralID IDUsage="ProductionSite" IDValue="${xmlAttr(o.sito_produzione)}"/>`] : []),
    '  <ProductList>',
    ...o.righe.map((r, i) => productXml(r, i, productNames.get(r.codice_articolo))),
    '  </ProductList>',
    '  <ResourceSet Name="CustomerInfo" Usage="Input">',
    '    <Resource>',
    `      <CustomerInfo CustomerID="${xmlAttr(o.codice_cliente)}" CustomerOrderID="${xmlAttr(o.riferimento_ordine)}"/>`,
    '    </Resource>',
    '  </ResourceSet>',
    ...(o.data_consegna ? [
      '  <ResourceSet Name="NodeInfo" Usage="Input">',
      '    <Resource>',
      `      <NodeInfo End="${xmlAttr(`${o.data_consegna}T12:00:00Z`)}"/>`,
      '    </Resource>',
      '  </ResourceSet>',
    ] : []),
    '</XJDF>',
  ];
  return `${lines.join('\n')}\n`;
}
