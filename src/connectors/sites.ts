/**
 * Production sites: where orders are printed (Verona, Milano …). A connector is bound to one or more of them,
 * and every order it brings is tagged with one. The code appears in the connector path
 * (`/api/v1/connettori/{sito}/ordini`), so it is kept to letters, digits, '_' and '-'.
 */
import { IntakeError } from '../domain/errors.ts';
import type { Site } from '../domain/store/connectors.ts';
import type { ConnectorAdminStore } from '../domain/store/ports.ts';

/** Short, URL-safe, case-insensitive (stored upper case). */
export const SITE_CODE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,15}$/;
/** A site name is a place, not a document. */
const MAX_SITE_NAME = 200;

export function checkSiteCode(code: unknown): string {
  if (typeof code !== 'string' || !SITE_CODE_PATTERN.test(code.trim())) {
    throw new IntakeError('VALIDATION', `site code ${JSON.stringify(code)} is not valid: use 1 to 16 letters, digits, '_' or '-', starting with a letter or digit`);
  }
  return code.trim().toUpperCase();
}

/** Comma-separated site codes as typed (`VR,MI`), upper case, without repeats. */
export function parseSiteList(text: string): string[] {
  const codes = [...new Set(text.split(',').map((s) => s.trim()).filter(Boolean).map(checkSiteCode))];
  if (codes.length === 0) throw new IntakeError('VALIDATION', 'name at least one production site (e.g. --sites VR,MI)');
  return codes;
}

export async function addSite(store: ConnectorAdminStore, input: { code: string; name: string }): Promise<Site> {
  const code = checkSiteCode(input.code);
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name.length === 0 || name.length > MAX_SITE_NAME) throw new IntakeError('VALIDATION', `site name must be 1 to ${MAX_SITE_NAME} characters`);
  return store.createSite({ code, name });
}
