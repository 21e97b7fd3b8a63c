/**
 * Where a webhook may be sent (SSRF). The service posts to URLs an operator typed, from inside the printer's
 * network; without a check a URL could reach the cloud metadata service (169.254.169.254), the database, or an
 * internal admin page. So:
 * - only https URLs, or http to a loopback host (a receiver on the same machine, e.g. in tests);
 * - no user:password in the URL (credentials belong in the receiver's own check of the signature);
 * - at every delivery the host is resolved and EVERY address must be public unicast, unless the operator allowed
 *   private addresses for that webhook (`--allow-private`); loopback is a private range too, so http to loopback
 *   needs it as well;
 * - the connection goes to the address that was checked (dispatch passes it as the socket's `lookup`), so a DNS
 *   answer that changes between the check and the connect (rebinding) cannot redirect it.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { IntakeError } from '../domain/errors.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** Longest URL accepted: a webhook URL is an address, not a place to carry data. */
const MAX_URL = 2000;
/** Never allowed, even with --allow-private: nothing listens there for a webhook. */
const NEVER = new Set(['unspecified', 'broadcast', 'multicast']);

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function isLoopbackName(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || (isIP(h) !== 0 && ipaddr.process(h).range() === 'loopback');
}

/**
 * The address as WHATWG URL writes it. ipaddr.js reads a dotted tail after "::" ("::8.8.8.8") as IPv4-mapped, not
 * IPv4-compatible; the hex form it is given here means what it says.
 */
function canonical(address: string): string {
  if (isIP(address) !== 6 || address.includes('%')) return address;
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

/**
 * What an address is, IPv4-mapped IPv6 read as the IPv4 address it carries. ipaddr.js calls the deprecated
 * IPv4-compatible block ::/96 (::a00:1 is 10.0.0.1) plain unicast; it is not public, whatever it embeds, so it gets a
 * range of its own. Every other special IPv6 block (NAT64, 6to4, Teredo, unique-local, ...) already has a range
 * other than unicast, so it is refused like a private address.
 */
export function rangeOf(address: string): string {
  const parsed = ipaddr.process(canonical(address));
  const range = parsed.range();
  if (parsed.kind() === 'ipv6' && range === 'unicast' && parsed.toByteArray().slice(0, 12).every((b) => b === 0)) return 'ipv4Compatible';
  return range;
}

/** Parse and check a webhook URL as given by the operator (no DNS yet). */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): URL {
  if (typeof raw !== 'string' || raw.length > MAX_URL) throw new IntakeError('VALIDATION', `the URL must be at most ${MAX_URL} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new IntakeError('VALIDATION', `"${raw}" is not a URL`);
  }
  if (url.username || url.password) throw new IntakeError('VALIDATION', 'the URL must not carry a user name or password');
  const host = hostOf(url);
  if (url.protocol === 'http:') {
    if (!isLoopbackName(host)) throw new IntakeError('VALIDATION', 'only https URLs are allowed (http only to a loopback host, for tests)');
  } else if (url.protocol !== 'https:') {
    throw new IntakeError('VALIDATION', 'only https URLs are allowed');
  }
  if (isIP(host) !== 0) checkAddress(host, allowPrivate);
  else if (isLoopbackName(host) && !allowPrivate) throw refused(host, 'loopback');
  return url;
}

function refused(address: string, range: string): IntakeError {
  return new IntakeError('VALIDATION',
    `the address ${address} is ${range}, not public: refused (add the webhook with --allow-private if that receiver is meant to be reached)`);
}

export function checkAddress(address: string, allowPrivate: boolean): void {
  const range = rangeOf(address);
  if (NEVER.has(range)) throw refused(address, range);
  if (range !== 'unicast' && !allowPrivate) throw refused(address, range);
}

/**
 * Resolve the URL's host and check every address; resolves with the one to connect to. Rejects (VALIDATION) when
 * an address is not allowed, or the URL's scheme does not fit the address (http to something not loopback).
 */
export async function resolveTarget(url: URL, allowPrivate: boolean, resolve: Resolver = systemResolver): Promise<ResolvedAddress> {
  const host = hostOf(url);
  const found = isIP(host) !== 0 ? [{ address: host, family: isIP(host) === 6 ? 6 as const : 4 as const }] : await resolve(host);
  if (found.length === 0) throw new IntakeError('VALIDATION', `${host} has no address`);
  for (const a of found) {
    checkAddress(a.address, allowPrivate);
    if (url.protocol === 'http:' && rangeOf(a.address) !== 'loopback') throw new IntakeError('VALIDATION', `http is only allowed to loopback; ${host} is ${a.address}`);
  }
  return found[0]!;
}
