// A real webhook receiver for the tests: a node http server on port 0 that verifies every request's signature with
// the standardwebhooks package (an implementation independent of ours) and answers as the test tells it.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  path: string;
  id: string;
  timestamp: string;
  body: string;
  contentType?: string;
  /** Whether standardwebhooks accepted the signature. */
  verified: boolean;
  /** When the request had arrived whole (Date.now()). */
  at: number;
}

export interface Answer {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Decides the answer to each request (default 204). */
  answer: (r: Received) => Answer;
  setSecret(secret: string): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  let verifier: Webhook | undefined;
  const timers = new Set<NodeJS.Timeout>();
  const r: Receiver = {
    url: '', port: 0, received: [],
    answer: () => ({ status: 204 }),
    setSecret(secret) {
      verifier = new Webhook(secret);
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']) };
      let verified = false;
      try {
        // A connector's callback sends XML: checked without reading the body as JSON.
        verifier?.verify(body, headers, { jsonParse: /json/.test(req.headers['content-type'] ?? 'json') });
        verified = verifier !== undefined;
      } catch { /* recorded as not verified */ }
      const rec: Received = {
        path: req.url ?? '', id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], body, verified, at: Date.now(),
        ...(req.headers['content-type'] ? { contentType: req.headers['content-type'] } : {}),
      };
      r.received.push(rec);
      const a = r.answer(rec);
      const send = () => {
        timers.delete(t);
        if (!res.destroyed) res.writeHead(a.status, a.headers).end();
      };
      const t = setTimeout(send, a.delayMs ?? 0);
      timers.add(t);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  r.port = (server.address() as AddressInfo).port;
  r.url = `http://127.0.0.1:${r.port}/hook`;
  return r;
}
