/**
 * What a UBL order says that production needs besides the order fields (item names, prices and amounts, the currency,
 * where and to whom to deliver, whom to call, the buyer's notes and accounting string, contract and tender
 * references), kept with the order as read. Only text is kept, each value bounded, so one sender cannot make every
 * order's answer large.
 */
import { all, attrOf, one, textAt, type XNode } from './tree.ts';

/** Characters kept per value: names, addresses and references are a line of text. */
const MAX_VALUE = 500;

export interface UblAddress {
  via?: string;
  numero_civico?: string;
  citta?: string;
  cap?: string;
  provincia?: string;
  nazione?: string;
  riga_aggiuntiva?: string;
}

export interface UblExtra {
  valuta?: string;
  totale?: string;
  acquirente?: { nome?: string; indirizzo?: UblAddress };
  contatto_acquirente?: { nome?: string; telefono?: string; email?: string };
  consegna?: { id_luogo?: string; indirizzo?: UblAddress; destinatario?: string };
  centro_di_costo?: string;
  riferimento_cliente?: string;
  contratto?: string;
  offerta?: string;
  gara?: string;
}

export interface UblLineExtra {
  descrizione?: string;
  prezzo?: string;
  importo?: string;
}

function clip(v: string | undefined): string | undefined {
  return v === undefined ? undefined : v.slice(0, MAX_VALUE);
}

/** Leaves out what is undefined (and an object left empty), so the JSON holds only what the document said. */
function compact<T extends object>(o: T): T | undefined {
  for (const k of Object.keys(o) as (keyof T)[]) {
    const v = o[k];
    if (v === undefined || (typeof v === 'object' && v !== null && Object.keys(v).length === 0)) delete o[k];
  }
  return Object.keys(o).length > 0 ? o : undefined;
}

function address(a: XNode | undefined): UblAddress | undefined {
  if (!a) return undefined;
  return compact({
    via: clip(textAt(a, 'StreetName')),
    numero_civico: clip(textAt(a, 'BuildingNumber')),
    riga_aggiuntiva: clip(textAt(a, 'AdditionalStreetName') ?? textAt(a, 'AddressLine', 'Line')),
    citta: clip(textAt(a, 'CityName')),
    cap: clip(textAt(a, 'PostalZone')),
    provincia: clip(textAt(a, 'CountrySubentity')),
    nazione: clip(textAt(a, 'Country', 'IdentificationCode')),
  });
}

export function extraOf(root: XNode): UblExtra {
  const buyer = one(root, 'BuyerCustomerParty', 'Party');
  const contact = one(buyer, 'Contact');
  const delivery = one(root, 'Delivery');
  const location = one(delivery, 'DeliveryLocation');
  const payable = one(root, 'AnticipatedMonetaryTotal', 'PayableAmount');
  return compact({
    valuta: clip(textAt(root, 'DocumentCurrencyCode') ?? attrOf(payable, 'currencyID')),
    totale: clip(textAt(root, 'AnticipatedMonetaryTotal', 'PayableAmount')),
    acquirente: compact({
      nome: clip(textAt(buyer, 'PartyName', 'Name') ?? textAt(buyer, 'PartyLegalEntity', 'RegistrationName')),
      indirizzo: address(one(buyer, 'PostalAddress')),
    }),
    contatto_acquirente: compact({
      nome: clip(textAt(contact, 'Name')), telefono: clip(textAt(contact, 'Telephone')), email: clip(textAt(contact, 'ElectronicMail')),
    }),
    consegna: compact({
      id_luogo: clip(textAt(location, 'ID')),
      indirizzo: address(one(location, 'Address')),
      destinatario: clip(textAt(delivery, 'DeliveryParty', 'PartyName', 'Name')),
    }),
    centro_di_costo: clip(textAt(root, 'AccountingCost')),
    riferimento_cliente: clip(textAt(root, 'CustomerReference')),
    contratto: clip(all(root, 'Contract').map((c) => textAt(c, 'ID')).find((v) => v !== undefined)),
    offerta: clip(textAt(root, 'QuotationDocumentReference', 'ID')),
    gara: clip(textAt(root, 'OriginatorDocumentReference', 'ID')),
  }) ?? {};
}

export function lineExtraOf(item: XNode | undefined): UblLineExtra {
  return compact({
    descrizione: clip(textAt(item, 'Item', 'Name') ?? textAt(item, 'Item', 'Description')),
    prezzo: clip(textAt(item, 'Price', 'PriceAmount')),
    importo: clip(textAt(item, 'LineExtensionAmount')),
  }) ?? {};
}
