/** The UBL ordering documents taken in, by root element and namespace, and the Peppol transactions of each. */
export type UblDocument = 'Order' | 'OrderChange' | 'OrderCancellation';

export const UBL_DOCUMENTS: readonly { root: UblDocument; namespace: string }[] = [
  { root: 'Order', namespace: 'urn:oasis:names:specification:ubl:schema:xsd:Order-2' },
  { root: 'OrderChange', namespace: 'urn:oasis:names:specification:ubl:schema:xsd:OrderChange-2' },
  { root: 'OrderCancellation', namespace: 'urn:oasis:names:specification:ubl:schema:xsd:OrderCancellation-2' },
];

/** Peppol BIS 3 customizations (CustomizationID) of the documents; NSO's Order extends the first (`…:restrictive:…`). */
export const PEPPOL_ORDER = 'urn:fdc:peppol.eu:poacc:trns:order:3';
export const PEPPOL_ORDER_CHANGE = 'urn:fdc:peppol.eu:poacc:trns:order_change:3';
export const PEPPOL_ORDER_CANCELLATION = 'urn:fdc:peppol.eu:poacc:trns:order_cancellation:3';
export const PEPPOL_ORDER_RESPONSE = 'urn:fdc:peppol.eu:poacc:trns:order_response:3';
export const PEPPOL_ORDER_RESPONSE_ADVANCED = 'urn:fdc:peppol.eu:poacc:trns:order_response_advanced:3';
/** Peppol BIS 3 processes (ProfileID): Order only, and Ordering (Order with Order Response). */
export const PEPPOL_PROFILE_ORDERING = 'urn:fdc:peppol.eu:poacc:bis:ordering:3';
export const PEPPOL_PROFILE_ADVANCED_ORDERING = 'urn:fdc:peppol.eu:poacc:bis:advanced_ordering:3';
