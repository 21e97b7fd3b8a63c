/**
 * A customer's Peppol participant identifiers: how a UBL ordering document's buyer party (EndpointID@schemeID,
 * PartyIdentification/ID@schemeID) names the customer. Written `scheme:value` (`0211:IT01234567890`), the form
 * Peppol's participant identifiers take without the `iso6523-actorid-upis::` prefix.
 */
import { IntakeError } from '../domain/errors.ts';
import type { CustomerLookup } from '../domain/store/ports.ts';
import type { Customer, PeppolId, Store } from '../domain/store/store.ts';
import { requireCustomerByCode } from './find.ts';

/**
 * Bounds: ISO 6523 ICDs are four digits (0088 GLN, 0211 Italian VAT, 9906-9907 and 0201 Italian public bodies' IPA
 * codes…); Peppol's identifier policy caps a participant identifier's value at 50 characters. Identifiers per customer
 * are few (an endpoint and a party identifier or two); the cap keeps a console form from storing a list.
 */
const SCHEME = /^[0-9]{4}$/;
const MAX_VALUE_CHARS = 50;
export const MAX_PEPPOL_IDS = 20;

/** `0211:IT01234567890` → scheme and value, upper-case (participant identifiers are case-insensitive). */
export function parsePeppolId(text: string): PeppolId {
  const t = text.trim().replace(/^iso6523-actorid-upis::/i, '');
  const colon = t.indexOf(':');
  const scheme = colon < 0 ? '' : t.slice(0, colon).trim();
  const identifier = colon < 0 ? '' : t.slice(colon + 1).trim().toUpperCase();
  if (!SCHEME.test(scheme)) {
    throw new IntakeError('VALIDATION', `"${text}" is not a Peppol identifier: write it scheme:value, the scheme four digits (e.g. 0211:IT01234567890)`);
  }
  // eslint-disable-next-line no-control-regex
  if (identifier === '' || identifier.length > MAX_VALUE_CHARS || /[\s\u0000-\u001f\u007f]/.test(identifier)) {
    throw new IntakeError('VALIDATION', `"${text}": the identifier after the scheme must be 1 to ${MAX_VALUE_CHARS} characters without spaces`);
  }
  return { scheme, identifier };
}

export function formatPeppolId(id: PeppolId): string {
  return `${id.scheme}:${id.identifier}`;
}

/** Replace the Peppol identifiers of the customer with that code; resolves with the customer and its identifiers. */
export async function setCustomerPeppolIds(
  store: CustomerLookup & Pick<Store, 'setPeppolIds' | 'listPeppolIds'>, code: string, texts: readonly string[],
): Promise<{ customer: Customer; ids: PeppolId[] }> {
  const customer = await requireCustomerByCode(store, code);
  const ids = texts.map(parsePeppolId);
  if (ids.length > MAX_PEPPOL_IDS) throw new IntakeError('VALIDATION', `at most ${MAX_PEPPOL_IDS} Peppol identifiers per customer`);
  await store.setPeppolIds(customer.id, ids);
  return { customer, ids: await store.listPeppolIds(customer.id) };
}
