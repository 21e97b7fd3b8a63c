/**
 * Whether a customer may act (issue 18). A deactivated customer is refused on every channel, each in its own form:
 * the authenticator throws CUSTOMER_INACTIVE for API keys and FTP/SFTP passwords (REST, SOAP, FTP, SFTP), and the
 * few places that find a customer without a secret of its own ask here: the portal's login and session, the mail
 * channel's recipients and IMAP mailboxes, connectors (bound customer or the customer a ticket names).
 * Nothing is deleted: reactivating restores every credential as it was.
 */
import { ERROR_CATALOG, IntakeError } from '../domain/errors.ts';
import type { Customer, Store } from '../domain/store/store.ts';

/** The Italian sentence every channel shows (web pages, SOAP faults, REST bodies, outcome texts). */
export const INACTIVE_MESSAGE = ERROR_CATALOG.CUSTOMER_INACTIVE.message;

/**
 * SMTP replies are 7-bit text: the same sentence without accents, with its enhanced status code (5.7.1: delivery
 * not authorized, message refused).
 */
export const INACTIVE_SMTP_TEXT = "5.7.1 Il cliente di questa casella e' disattivato: gli ordini non sono accettati."
  + ' Per riattivarlo rivolgersi al fornitore del servizio';

export function isActive(c: Pick<Customer, 'deactivatedAt'>): boolean {
  return c.deactivatedAt === undefined;
}

export function inactiveError(): IntakeError {
  return new IntakeError('CUSTOMER_INACTIVE');
}

/** Throws CUSTOMER_INACTIVE when the customer is deactivated. */
export function assertActive(c: Pick<Customer, 'deactivatedAt'>): void {
  if (!isActive(c)) throw inactiveError();
}

/** True when the customer with that id exists and is deactivated (an unknown id is someone else's business). */
export async function isDeactivated(store: Pick<Store, 'getCustomer'>, customerId: string): Promise<boolean> {
  const c = await store.getCustomer(customerId);
  return c !== undefined && !isActive(c);
}

export function isInactiveError(e: unknown): boolean {
  return e instanceof IntakeError && e.code === 'CUSTOMER_INACTIVE';
}
