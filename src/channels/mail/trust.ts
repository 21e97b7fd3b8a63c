/**
 * Who sent a received message, as far as DNS can tell (SPF, DKIM, DMARC, ARC through mailauth), and whether the
 * customer's sender policy lets it order.
 *
 * - SMTP: SPF of the connecting address for the MAIL FROM domain (the HELO name when the sender is null), every
 *   DKIM signature, the ARC chain, and DMARC for the From domain, all computed here.
 * - IMAP: the connecting address is the provider's to see, not ours. SPF is read from the provider's own
 *   Authentication-Results header, and only from the one whose authserv-id the operator configured for that
 *   mailbox (RFC 8601 5: any sender can write such a header with any name); DKIM and DMARC are computed here from
 *   the message itself.
 * - DNS goes to the system resolver or to INTAKE_DNS_SERVERS, each lookup within INTAKE_DNS_TIMEOUT_MS; a lookup
 *   that fails for a reason other than "no such record" makes the results temporary, and nothing is decided on them
 *   (the message is held and checked again later).
 *
 * The results are written as an Authentication-Results header under this service's authserv-id, kept with the
 * message and shown to the operator.
 */
import { Resolver } from 'node:dns/promises';
import { arc, dkimVerify, dmarc, spf } from 'mailauth';
import type { MailAuth, MailPolicy } from '../../domain/store/mail-trust.ts';

export type DnsResolve = (name: string, rrtype: string) => Promise<unknown>;

/** A resolver with a time limit per lookup, asking `servers` (ip or ip:port) or the system's. */
export function createDnsResolve(servers: readonly string[] | undefined, timeoutMs: number): DnsResolve {
  // Two tries of timeoutMs each: one lost UDP datagram is not a DNS failure.
  const r = new Resolver({ timeout: timeoutMs, tries: 2 });
  if (servers && servers.length > 0) r.setServers([...servers]);
  return (name, rrtype) => r.resolve(name, rrtype);
}

export interface AuthInput {
  raw: Buffer;
  /** SMTP: the client's address, its HELO name and MAIL FROM ('' for the null sender). */
  ip?: string;
  helo?: string;
  sender?: string;
  /** IMAP: the authserv-id whose Authentication-Results are trusted for this mailbox (none: SPF is `none`). */
  trustedAuthservId?: string;
}

export interface Authenticator {
  authenticate(input: AuthInput): Promise<MailAuth>;
}

const TEMPORARY = new Set(['temperror', 'temperr']);

/** One Authentication-Results header of the message: its authserv-id and its text, unfolded. */
function authResultsHeaders(raw: Buffer): { id: string; text: string }[] {
  const end = raw.indexOf('\r\n\r\n');
  // The header section only, and at most 256 KiB of it (the DATA-time check already refused larger ones).
  const head = raw.subarray(0, Math.min(end < 0 ? raw.length : end, 256 * 1024)).toString('latin1').replace(/\r?\n[ \t]+/g, ' ');
  const out: { id: string; text: string }[] = [];
  for (const m of head.matchAll(/^authentication-results[ \t]*:[ \t]*([^\r\n]*)/gim)) {
    const text = m[1]!.replace(/\([^()]*\)/g, ' ').trim();
    const id = text.split(/[;\s]/, 1)[0]!.toLowerCase();
    out.push({ id, text });
  }
  return out;
}

/**
 * The SPF result the trusted provider recorded: the first (topmost: added last, by the provider itself)
 * Authentication-Results header named `authservId`.
 */
export function trustedSpf(raw: Buffer, authservId: string): { result: string; domain?: string } | undefined {
  const h = authResultsHeaders(raw).find((x) => x.id === authservId.toLowerCase());
  if (!h) return undefined;
  const m = /(?:^|[;\s])spf\s*=\s*([a-z]+)/i.exec(h.text);
  if (!m) return undefined;
  const from = /smtp\.mailfrom\s*=\s*"?([^\s;"]+)/i.exec(h.text)?.[1];
  const helo = /smtp\.helo\s*=\s*"?([^\s;"]+)/i.exec(h.text)?.[1];
  const who = from ?? helo;
  const domain = who?.includes('@') ? who.split('@').pop() : who;
  return { result: m[1]!.toLowerCase(), ...(domain ? { domain: domain.toLowerCase() } : {}) };
}

/** A header value may not carry line breaks of its own; folded here at the row boundaries. */
const row = (s: string): string => s.replace(/[\r\n]+/g, ' ').trim();

export function createAuthenticator(opts: { authservId: string; resolve: DnsResolve }): Authenticator {
  const { authservId, resolve } = opts;
  return {
    async authenticate(input) {
      const dkimResult = await dkimVerify(input.raw, { resolver: resolve, ...(input.sender ? { sender: input.sender } : {}) } as never);
      const froms = dkimResult.headerFrom ?? [];
      const from = froms.length === 1 ? froms[0]!.toLowerCase() : undefined;

      let spfRow: string;
      let spfOut: { result: string; domain?: string };
      let spfFrom: string | undefined;
      if (input.ip) {
        const helo = input.helo || input.ip;
        const s = await spf({
          ip: input.ip, helo, sender: input.sender || `postmaster@${helo}`, mta: authservId, resolver: resolve,
        } as never);
        spfOut = { result: s.status.result, domain: s.domain };
        spfRow = s.info;
      } else {
        const t = input.trustedAuthservId ? trustedSpf(input.raw, input.trustedAuthservId) : undefined;
        spfOut = t ?? { result: 'none' };
        spfFrom = t ? input.trustedAuthservId : undefined;
        spfRow = t
          ? `spf=${t.result} (as recorded by ${input.trustedAuthservId})${t.domain ? ` smtp.mailfrom=${t.domain}` : ''}`
          : `spf=none (${input.trustedAuthservId ? `no Authentication-Results from ${input.trustedAuthservId}` : 'received by IMAP: no trusted provider configured'})`;
      }

      const arcResult = await arc(dkimResult.arc as never, { resolver: resolve } as never);
      const dmarcResult = from ? await dmarc({
        headerFrom: from,
        spfDomains: spfOut.result === 'pass' && spfOut.domain ? [spfOut.domain] : [],
        dkimDomains: dkimResult.results.filter((r) => r.status.result === 'pass').map((r) => ({
          id: r.id, domain: r.signingDomain, aligned: r.status.aligned, underSized: r.status.underSized,
        })),
        arcResult, resolver: resolve,
      } as never) : false;

      const rows = [
        ...dkimResult.results.map((r) => row(r.info)),
        row(spfRow),
        ...(arcResult.info ? [row(arcResult.info)] : []),
        ...(dmarcResult && dmarcResult.info ? [row(dmarcResult.info)] : [`dmarc=none (${froms.length === 0 ? 'no From address' : 'more than one From address'})`]),
      ];
      const dkim = dkimResult.results.map((r) => ({ result: r.status.result, domain: r.signingDomain }));
      const dmarcOut = dmarcResult
        ? { result: dmarcResult.status.result, domain: dmarcResult.domain, ...(dmarcResult.policy ? { policy: dmarcResult.policy } : {}) }
        : { result: 'none' };
      const temporary = [spfOut.result, dmarcOut.result, ...dkim.map((d) => d.result)].some((r) => TEMPORARY.has(r));
      return {
        header: `Authentication-Results: ${authservId};\r\n ${rows.join(';\r\n ')}`,
        ...(from ? { from } : {}),
        spf: spfOut, dkim, dmarc: dmarcOut,
        ...(arcResult.status?.result && arcResult.status.result !== 'none' ? { arc: { result: arcResult.status.result } } : {}),
        ...(temporary ? { temporary } : {}),
        ...(spfFrom ? { spfFrom } : {}),
        at: new Date().toISOString(),
      };
    },
  };
}

export type HoldReason = 'dns' | 'dmarc-fail' | 'not-allowed' | 'not-authenticated';

export type SenderVerdict =
  | { ok: true; /** Where the reply may go under the policy (undefined: where the message asks). */ replyTo?: string }
  | { ok: false; reason: HoldReason; detail: string };

/** The sender is in the allow-list: the address itself, or its domain as `@domain`. */
export function allowed(policy: MailPolicy, address: string | undefined): boolean {
  if (!address) return false;
  const a = address.toLowerCase();
  return policy.allow.includes(a) || policy.allow.includes(`@${a.split('@').pop()}`);
}

/**
 * The policy's verdict on a message (mail-trust.ts's modes): whether it may order, and if not why it is held.
 * `replyTo` is the address the message asks replies to go to (Reply-To, else From).
 */
export function judgeSender(policy: MailPolicy, auth: MailAuth, replyTo?: string): SenderVerdict {
  // The details are shown to the operator (console, CLI): in Italian.
  if (auth.temporary) return { ok: false, reason: 'dns', detail: 'una ricerca DNS non è riuscita: il mittente sarà verificato di nuovo' };
  const enforced = auth.dmarc.result === 'fail' && (auth.dmarc.policy === 'reject' || auth.dmarc.policy === 'quarantine');
  const failDetail = `DMARC fallito per ${auth.dmarc.domain ?? '?'} (p=${auth.dmarc.policy ?? '?'})`;
  if (policy.mode === 'qualsiasi') return enforced ? { ok: false, reason: 'dmarc-fail', detail: failDetail } : { ok: true };
  if (!allowed(policy, auth.from)) return { ok: false, reason: 'not-allowed', detail: `${auth.from ?? 'nessun indirizzo From (o più di uno)'} non è nell'elenco dei mittenti` };
  if (policy.mode === 'elenco' && enforced) return { ok: false, reason: 'dmarc-fail', detail: failDetail };
  if (policy.mode === 'autenticato' && auth.dmarc.result !== 'pass') {
    return { ok: false, reason: 'not-authenticated', detail: `DMARC ${auth.dmarc.result} per ${auth.dmarc.domain ?? auth.from ?? '?'}: il mittente deve superare DMARC` };
  }
  // The reply goes to an allowed address only: a Reply-To outside the list would let anyone who can write one allowed
  // From send the outcome elsewhere.
  return { ok: true, replyTo: allowed(policy, replyTo) ? replyTo : auth.from };
}
