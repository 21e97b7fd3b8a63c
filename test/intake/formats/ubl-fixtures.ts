/**
 * UBL ordering documents for tests, written after the Peppol BIS 3 ordering examples (OpenPEPPOL poacc-upgrade-3,
 * docs.peppol.eu/poacc/upgrade-3) and the AgID's NSO rules, not copied from them. Every one validates against the OASIS
 * schema of its document (test/intake/formats/ubl-decode.test.ts checks with xmllint against ../shared/ubl).
 */
const NS = {
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
};

export const esc = (v: string | number) => String(v).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

export interface FixtureLine {
  id?: string;
  quantity?: number | string;
  unitCode?: string | null;
  sellers?: string;
  buyers?: string;
  gtin?: string;
  name?: string;
  price?: string;
  amount?: string;
  status?: string;
  delivery?: string;
}

export interface FixtureOrder {
  id?: string;
  issueDate?: string;
  buyer?: { scheme: string; id: string } | null;
  buyerPartyId?: { scheme: string; id: string };
  seller?: { scheme: string; id: string };
  note?: string;
  accountingCost?: string;
  deliveryEnd?: string;
  lines?: FixtureLine[];
  /** NSO: an Order referring to an earlier one. */
  nsoReference?: { id: string; code: 'Revised' | 'Cancelled' | 'Connected' };
}

function party(p: { scheme: string; id: string } | null | undefined, name: string, partyId?: { scheme: string; id: string }): string {
  return `<cac:Party>${p ? `<cbc:EndpointID schemeID="${esc(p.scheme)}">${esc(p.id)}</cbc:EndpointID>` : ''}`
    + `${partyId ? `<cac:PartyIdentification><cbc:ID schemeID="${esc(partyId.scheme)}">${esc(partyId.id)}</cbc:ID></cac:PartyIdentification>` : ''}`
    + `<cac:PartyName><cbc:Name>${esc(name)}</cbc:Name></cac:PartyName>`
    + `<cac:PostalAddress><cbc:StreetName>Via Roma 1</cbc:StreetName><cbc:CityName>Roma</cbc:CityName><cbc:PostalZone>00100</cbc:PostalZone><cac:Country><cbc:IdentificationCode>IT</cbc:IdentificationCode></cac:Country></cac:PostalAddress>`
    + `<cac:PartyLegalEntity><cbc:RegistrationName>${esc(name)}</cbc:RegistrationName></cac:PartyLegalEntity>`
    + `${name.startsWith('ASL') ? '<cac:Contact><cbc:Name>Ufficio acquisti</cbc:Name><cbc:Telephone>06 1234567</cbc:Telephone><cbc:ElectronicMail>acquisti@asl.example</cbc:ElectronicMail></cac:Contact>' : ''}</cac:Party>`;
}

function lineItem(l: FixtureLine, n: number, withStatus: boolean): string {
  const unit = l.unitCode === null ? '' : ` unitCode="${esc(l.unitCode ?? 'C62')}"`;
  return `<cac:OrderLine><cac:LineItem><cbc:ID>${esc(l.id ?? String(n))}</cbc:ID>`
    + `${withStatus ? `<cbc:LineStatusCode>${esc(l.status ?? '4')}</cbc:LineStatusCode>` : ''}`
    + `<cbc:Quantity${unit}>${esc(l.quantity ?? 100)}</cbc:Quantity>`
    + `<cbc:LineExtensionAmount currencyID="EUR">${esc(l.amount ?? '50.00')}</cbc:LineExtensionAmount>`
    + `${l.delivery ? `<cac:Delivery><cac:RequestedDeliveryPeriod><cbc:EndDate>${l.delivery}</cbc:EndDate></cac:RequestedDeliveryPeriod></cac:Delivery>` : ''}`
    + `<cac:Price><cbc:PriceAmount currencyID="EUR">${esc(l.price ?? '0.50')}</cbc:PriceAmount></cac:Price>`
    + `<cac:Item><cbc:Name>${esc(l.name ?? 'Biglietti da visita')}</cbc:Name>`
    + `${l.buyers ? `<cac:BuyersItemIdentification><cbc:ID>${esc(l.buyers)}</cbc:ID></cac:BuyersItemIdentification>` : ''}`
    + `${l.sellers ? `<cac:SellersItemIdentification><cbc:ID>${esc(l.sellers)}</cbc:ID></cac:SellersItemIdentification>` : ''}`
    + `${l.gtin ? `<cac:StandardItemIdentification><cbc:ID schemeID="0160">${esc(l.gtin)}</cbc:ID></cac:StandardItemIdentification>` : ''}`
    + '</cac:Item></cac:LineItem></cac:OrderLine>';
}

const BUYER = { scheme: '0211', id: 'IT01234567890' };
const SELLER = { scheme: '0211', id: 'IT09876543210' };

/** A Peppol BIS 3 Order (UBL 2.1). */
export function ublOrder(o: FixtureOrder = {}): string {
  const lines = o.lines ?? [{ sellers: 'BV-STD' }];
  return `<?xml version="1.0" encoding="UTF-8"?>
<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2" xmlns:cac="${NS.cac}" xmlns:cbc="${NS.cbc}">
<cbc:CustomizationID>urn:fdc:peppol.eu:poacc:trns:order:3</cbc:CustomizationID>
<cbc:ProfileID>urn:fdc:peppol.eu:poacc:bis:ordering:3</cbc:ProfileID>
<cbc:ID>${esc(o.id ?? 'PO-2026-001')}</cbc:ID>
<cbc:IssueDate>${o.issueDate ?? '2026-11-20'}</cbc:IssueDate>
<cbc:OrderTypeCode>220</cbc:OrderTypeCode>
${o.note ? `<cbc:Note>${esc(o.note)}</cbc:Note>` : ''}
<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
<cbc:CustomerReference>Rif. reparto 12</cbc:CustomerReference>
${o.accountingCost ? `<cbc:AccountingCost>${esc(o.accountingCost)}</cbc:AccountingCost>` : ''}
${o.nsoReference ? `<cac:OrderDocumentReference><cbc:ID>${esc(o.nsoReference.id)}#2026-11-01#${BUYER.id}</cbc:ID><cbc:DocumentStatusCode>${o.nsoReference.code}</cbc:DocumentStatusCode></cac:OrderDocumentReference>` : ''}
<cac:OriginatorDocumentReference><cbc:ID>CIG-ZA12345678</cbc:ID></cac:OriginatorDocumentReference>
<cac:Contract><cbc:ID>CONV-2026/7</cbc:ID></cac:Contract>
<cac:BuyerCustomerParty>${party(o.buyer === undefined ? BUYER : o.buyer, 'ASL Roma 9', o.buyerPartyId)}</cac:BuyerCustomerParty>
<cac:SellerSupplierParty>${party(o.seller ?? SELLER, 'Tipografia Rossi')}</cac:SellerSupplierParty>
<cac:Delivery><cac:DeliveryLocation><cbc:ID schemeID="0088">8012345000019</cbc:ID><cac:Address><cbc:StreetName>Via dei Magazzini 4</cbc:StreetName><cbc:CityName>Roma</cbc:CityName><cbc:PostalZone>00155</cbc:PostalZone><cac:Country><cbc:IdentificationCode>IT</cbc:IdentificationCode></cac:Country></cac:Address></cac:DeliveryLocation>${o.deliveryEnd ? `<cac:RequestedDeliveryPeriod><cbc:EndDate>${o.deliveryEnd}</cbc:EndDate></cac:RequestedDeliveryPeriod>` : ''}<cac:DeliveryParty><cac:PartyName><cbc:Name>Magazzino centrale</cbc:Name></cac:PartyName></cac:DeliveryParty></cac:Delivery>
<cac:AnticipatedMonetaryTotal><cbc:PayableAmount currencyID="EUR">50.00</cbc:PayableAmount></cac:AnticipatedMonetaryTotal>
${lines.map((l, i) => lineItem(l, i + 1, false)).join('\n')}
</Order>
`;
}

/** A Peppol BIS 3 Order Change (UBL 2.3). */
export function ublOrderChange(o: FixtureOrder & { orderId?: string; sequence?: number } = {}): string {
  const lines = o.lines ?? [{ sellers: 'BV-STD', status: '3', quantity: 200 }];
  return `<?xml version="1.0" encoding="UTF-8"?>
<OrderChange xmlns="urn:oasis:names:specification:ubl:schema:xsd:OrderChange-2" xmlns:cac="${NS.cac}" xmlns:cbc="${NS.cbc}">
<cbc:CustomizationID>urn:fdc:peppol.eu:poacc:trns:order_change:3</cbc:CustomizationID>
<cbc:ProfileID>urn:fdc:peppol.eu:poacc:bis:advanced_ordering:3</cbc:ProfileID>
<cbc:ID>${esc(o.id ?? 'CH-1')}</cbc:ID>
<cbc:IssueDate>${o.issueDate ?? '2026-11-21'}</cbc:IssueDate>
<cbc:SequenceNumberID>${o.sequence ?? 1}</cbc:SequenceNumberID>
<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
<cac:OrderReference><cbc:ID>${esc(o.orderId ?? 'PO-2026-001')}</cbc:ID></cac:OrderReference>
<cac:BuyerCustomerParty>${party(o.buyer === undefined ? BUYER : o.buyer, 'ASL Roma 9')}</cac:BuyerCustomerParty>
<cac:SellerSupplierParty>${party(o.seller ?? SELLER, 'Tipografia Rossi')}</cac:SellerSupplierParty>
${lines.map((l, i) => lineItem(l, i + 1, true)).join('\n')}
</OrderChange>
`;
}

/** A Peppol BIS 3 Order Cancellation (UBL 2.3). */
export function ublOrderCancellation(o: { id?: string; orderId?: string; note?: string | null; buyer?: { scheme: string; id: string } } = {}): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<OrderCancellation xmlns="urn:oasis:names:specification:ubl:schema:xsd:OrderCancellation-2" xmlns:cac="${NS.cac}" xmlns:cbc="${NS.cbc}">
<cbc:CustomizationID>urn:fdc:peppol.eu:poacc:trns:order_cancellation:3</cbc:CustomizationID>
<cbc:ProfileID>urn:fdc:peppol.eu:poacc:bis:advanced_ordering:3</cbc:ProfileID>
<cbc:ID>${esc(o.id ?? 'CA-1')}</cbc:ID>
<cbc:IssueDate>2026-11-22</cbc:IssueDate>
${o.note === null ? '' : `<cbc:CancellationNote>${esc(o.note ?? 'Fornitura non più necessaria')}</cbc:CancellationNote>`}
<cac:OrderReference><cbc:ID>${esc(o.orderId ?? 'PO-2026-001')}</cbc:ID></cac:OrderReference>
<cac:BuyerCustomerParty>${party(o.buyer ?? BUYER, 'ASL Roma 9')}</cac:BuyerCustomerParty>
<cac:SellerSupplierParty>${party(SELLER, 'Tipografia Rossi')}</cac:SellerSupplierParty>
</OrderCancellation>
`;
}

export const FIXTURE_BUYER = BUYER;
export const FIXTURE_SELLER = SELLER;
