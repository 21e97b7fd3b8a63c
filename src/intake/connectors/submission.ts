/**
 * Decoding a connector's stored submission: the connector's profile (format, lookup table, mapping) comes from
 * the store, so this is the one asynchronous step of decoding. The judge calls it for every submission with a
 * connectorId and gives every order the site it returns.
 *
 * The site: the one in the path (s.site, already checked against the key by the route) wins; else the one the
 * payload names; else the key's only site. A payload naming a site the key is not bound to, or another site than
 * the path, is refused as a whole (FORBIDDEN_SITE): a prepress system sending to the wrong plant must hear it.
 */
import { IntakeError } from '../../errors.ts';
import type { Store } from '../../store/store.ts';
import type { StoredSubmission } from '../types.ts';
import { decodeConnectorPayload, type ArticleLookup } from './index.ts';

export interface ConnectorCandidates {
  candidates: unknown[];
  /** The production site every order of the submission gets. */
  site?: string;
}

const upper = (s: string): string => s.trim().toUpperCase();

export function chooseSite(s: Pick<StoredSubmission, 'site' | 'sites'>, payloadSite: string | undefined): string {
  const bound = (s.sites ?? []).map(upper);
  const fromPayload = payloadSite === undefined || payloadSite.trim() === '' ? undefined : upper(payloadSite);
  if (fromPayload !== undefined) {
    if (!bound.includes(fromPayload)) {
      throw new IntakeError('FORBIDDEN_SITE', [`the payload names production site "${payloadSite}", which this connector key is not bound to (bound: ${bound.join(', ')})`]);
    }
    if (s.site !== undefined && upper(s.site) !== fromPayload) {
      throw new IntakeError('FORBIDDEN_SITE', [`the payload names production site "${payloadSite}" but was sent to the path of site "${s.site}"`]);
    }
  }
  const site = s.site !== undefined ? upper(s.site) : fromPayload ?? (bound.length === 1 ? bound[0] : undefined);
  if (site === undefined) throw new IntakeError('SITE_REQUIRED');
  return site;
}

export async function decodeConnectorSubmission(store: Store, s: StoredSubmission): Promise<ConnectorCandidates> {
  if (s.connectorId === undefined) throw new Error(`submission ${s.id} has no connector`);
  // Revoked connectors are read too: what a key brought before its revocation is still decoded and reprocessed.
  const connector = await store.getConnector(s.connectorId);
  if (!connector) throw new IntakeError('NOT_PARSEABLE', [`the connector of submission ${s.id} no longer exists`]);
  const lookup = new Map<string, ArticleLookup>();
  for (const r of await store.connectorLookup(connector.id)) {
    lookup.set(r.productKey, r.unita_misura === undefined ? { codice_articolo: r.codice_articolo } : { codice_articolo: r.codice_articolo, unita_misura: r.unita_misura });
  }
  const decoded = await decodeConnectorPayload({
    raw: s.raw,
    // The route keeps the whole header (multipart/related needs its boundary); mediaType is the bare type.
    contentType: s.meta.contentType ?? s.mediaType,
    profile: { format: connector.format, lookup, ...(connector.mapping === undefined ? {} : { mapping: connector.mapping }) },
    receivedAt: s.receivedAt,
  });
  return { candidates: decoded.candidates, site: chooseSite(s, decoded.site) };
}
