/**
 * One webhook attempt: resolve and check the receiver's address (target.ts), connect to exactly that address, POST
 * the event signed the Standard Webhooks way, and say what the receiver's answer means. Redirects are never
 * followed (a 3xx is a failed attempt: following it would let a receiver send the service anywhere), and the whole
 * exchange is bounded by the timeout, a slow receiver included.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIntakeError } from '../domain/errors.ts';
import { signature } from './secret.ts';
import { resolveTarget, type ResolvedAddress, type Resolver } from './target.ts';

/**
 * Keep-alive connections, one agent per (scheme, host, port, checked address): a connection is only ever reused for
 * the address it was opened to after the SSRF check, and a busy endpoint costs one TLS handshake, not one per event.
 */
export class ConnectionPool {
  private readonly agents = new Map<string, http.Agent>();

  /** `perEndpoint`: sockets kept to one endpoint; the dispatcher opens no more requests than that to it at once. */
  constructor(private readonly perEndpoint = 4) {}

  agentFor(url: URL, target: ResolvedAddress): http.Agent {
    const key = `${url.protocol}//${url.host}@${target.address}`;
    let agent = this.agents.get(key);
    if (!agent) {
      // As many sockets as the dispatcher opens requests to one receiver: in parallel, not as a flood, and never
      // queued inside the agent, where the wait would count against the attempt's timeout.
      const opts = { keepAlive: true, maxSockets: this.perEndpoint, lookup: pinned(target) };
      agent = url.protocol === 'https:' ? new https.Agent(opts) : new http.Agent(opts);
      this.agents.set(key, agent);
    }
    return agent;
  }

  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }
}

export interface WebhookRequest {
  url: string;
  allowPrivate: boolean;
  secret: string;
  /** The event id: the webhook-id of every attempt. */
  id: string;
  body: string;
  /** Default application/json (the event); a connector's callback sends PrintTalk XML. */
  contentType?: string;
  timeoutMs: number;
  resolve?: Resolver;
  /** Seconds since the epoch, for the webhook-timestamp header. */
  now?: () => number;
  /** Reuse connections (the dispatcher's pool); without one, each attempt opens and closes its own. */
  pool?: ConnectionPool;
}

export type WebhookAnswer =
  | { kind: 'ok'; status: number }
  /** 410 Gone: the receiver says the endpoint no longer exists. */
  | { kind: 'gone'; status: number }
  | { kind: 'error'; status?: number; error: string };

/** Bytes of the receiver's answer read (and thrown away): enough to end the exchange, not a download. */
const MAX_ANSWER = 64 * 1024;
const USER_AGENT = 'order-intake-webhooks/1';

class LookupTimeout extends Error {}

function pinned(target: ResolvedAddress): LookupFunction {
  // Node may ask for every address (autoSelectFamily) or for one; either way the answer is the checked address.
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all) cb(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  }) as LookupFunction;
}

export async function postWebhook(req: WebhookRequest): Promise<WebhookAnswer> {
  const url = new URL(req.url);
  // The timeout bounds the whole attempt, the name lookup included: the dispatcher starts an attempt only if it
  // ends within its claim, and a lookup hanging on the system resolver (its retries take tens of seconds) would
  // otherwise post after the claim ran out, while another attempt of the same delivery is under way.
  const started = Date.now();
  let target: ResolvedAddress;
  let lookupTimer: NodeJS.Timeout | undefined;
  try {
    const late = new Promise<never>((_, reject) => {
      lookupTimer = setTimeout(() => reject(new LookupTimeout()), req.timeoutMs);
    });
    target = await Promise.race([resolveTarget(url, req.allowPrivate, req.resolve), late]);
  } catch (e) {
    if (e instanceof LookupTimeout) return { kind: 'error', error: `no answer within ${req.timeoutMs} ms (resolving ${url.hostname})` };
    return { kind: 'error', error: isIntakeError(e) ? e.message : `cannot resolve ${url.hostname}: ${(e as Error).message}` };
  } finally {
    clearTimeout(lookupTimer);
  }
  const timestamp = Math.floor((req.now?.() ?? Date.now()) / 1000);
  const headers = {
    'content-type': req.contentType ?? 'application/json',
    'content-length': Buffer.byteLength(req.body),
    'user-agent': USER_AGENT,
    'webhook-id': req.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(req.secret, req.id, timestamp, req.body),
  };
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise<WebhookAnswer>((resolve) => {
    let settled = false;
    const finish = (a: WebhookAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(a);
    };
    const agent = req.pool ? req.pool.agentFor(url, target) : false;
    const request = mod.request(url, { method: 'POST', headers, lookup: pinned(target), agent }, (res) => {
      const status = res.statusCode ?? 0;
      let seen = 0;
      res.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > MAX_ANSWER) res.destroy();
      });
      const settle = () => {
        if (status >= 200 && status < 300) finish({ kind: 'ok', status });
        else if (status === 410) finish({ kind: 'gone', status });
        else if (status >= 300 && status < 400) {
          finish({ kind: 'error', status, error: `HTTP ${status}: redirect to ${String(res.headers.location ?? '(none)').slice(0, 200)} not followed` });
        } else finish({ kind: 'error', status, error: `HTTP ${status} ${res.statusMessage ?? ''}`.trim() });
      };
      res.on('end', settle);
      res.on('close', settle);
      res.on('error', settle);
    });
    const timer = setTimeout(() => {
      finish({ kind: 'error', error: `no answer within ${req.timeoutMs} ms` });
      request.destroy();
    }, Math.max(0, req.timeoutMs - (Date.now() - started)));
    request.on('error', (err: NodeJS.ErrnoException) => finish({ kind: 'error', error: `${err.code ?? 'error'}: ${err.message}` }));
    request.end(req.body);
  });
}
