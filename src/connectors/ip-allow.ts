/**
 * Source address allow lists of connectors: CIDR blocks (`10.0.0.0/8`, `2001:db8::/32`) or single addresses.
 * An empty list allows any address. The address checked is Fastify's `req.ip`: the TCP peer, unless that peer is
 * one of the reverse proxies named in INTAKE_TRUST_PROXY, whose X-Forwarded-For is then believed (the address next
 * to the proxy). From anyone else such a header is written by the client and proves nothing.
 */
import { BlockList, isIP } from 'node:net';

/** A connector's list is a handful of networks; the bound keeps one operator typo from becoming a huge row. */
export const MAX_ALLOW_ENTRIES = 64;

/** Canonical `address/prefix` for one entry, or an Error saying what is wrong with it. */
export function parseCidr(entry: string): string {
  const text = entry.trim();
  const [addr = '', prefix, extra] = text.split('/');
  const family = isIP(addr);
  if (family === 0 || extra !== undefined) throw new Error(`"${entry}" is not an IP address or CIDR block (e.g. 10.0.0.0/8)`);
  const max = family === 4 ? 32 : 128;
  const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  if (!Number.isInteger(bits) || bits < 0 || bits > max) throw new Error(`"${entry}": the prefix length must be 0 to ${max}`);
  return `${addr.toLowerCase()}/${bits}`;
}

/** Parse a comma-separated list as given on the command line; throws with every bad entry named. */
export function parseAllowList(text: string | readonly string[] | undefined): string[] {
  if (text === undefined) return [];
  const entries = (typeof text === 'string' ? text.split(',') : text).map((e) => e.trim()).filter(Boolean);
  if (entries.length > MAX_ALLOW_ENTRIES) throw new Error(`an allow list holds at most ${MAX_ALLOW_ENTRIES} entries`);
  const errors: string[] = [];
  const out: string[] = [];
  for (const e of entries) {
    try {
      const c = parseCidr(e);
      if (!out.includes(c)) out.push(c);
    } catch (err) {
      errors.push((err as Error).message);
    }
  }
  if (errors.length) throw new Error(errors.join('; '));
  return out;
}

/** An IPv4 client on a dual-stack socket shows up as ::ffff:a.b.c.d; it is checked as the IPv4 address. */
function unmapped(address: string): string {
  return address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
}

/** A checker for one list (build once per request: lists are short). */
export function allows(list: readonly string[], address: string | undefined): boolean {
  if (list.length === 0) return true;
  if (!address) return false;
  const addr = unmapped(address);
  const family = isIP(addr);
  if (family === 0) return false;
  const block = new BlockList();
  for (const entry of list) {
    const [net = '', bits] = entry.split('/');
    const f = isIP(net);
    if (f === 0) continue;
    block.addSubnet(net, Number(bits), f === 4 ? 'ipv4' : 'ipv6');
  }
  return block.check(addr, family === 4 ? 'ipv4' : 'ipv6');
}
