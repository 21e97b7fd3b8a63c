// A status notification survives kill -9 (SQLite, `serve` as a child process): the relay (a real smtp-server) holds
// the first attempt open; the service is killed in the middle of handing it over; after a restart the notification
// is sent again, with the same Message-ID, and it was queued once: the crash costs a repeat, never a loss.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { provisionCustomer } from '../../src/customers/provision.ts';
import { addIntegration } from '../../src/handoff/integrations.ts';
import { setNotifications } from '../../src/handoff/notify-settings.ts';
import { openStore } from '../../src/store/open.ts';
import { spawnServe, stopServe } from '../helpers/child.ts';
import { order, tempDir, TEST_ARTICLES, waitFor } from '../helpers/service.ts';

interface Relay { url: string; held: string[]; delivered: string[]; release(): void; close(): Promise<void> }

/** A relay that keeps DATA open without answering while `holding`, and records each message's Message-ID. */
async function startHoldingRelay(): Promise<Relay> {
  let holding = true;
  const held: string[] = [];
  const delivered: string[] = [];
  const server = new SMTPServer({
    authOptional: true, disabledCommands: ['AUTH', 'STARTTLS'], logger: false, disableReverseLookup: true,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        void simpleParser(Buffer.concat(chunks)).then((m) => {
          if (holding) {
            held.push(m.messageId ?? '');
            return; // never answered: the sender waits until it is killed
          }
          delivered.push(m.messageId ?? '');
          callback();
        });
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, held, delivered,
    release() { holding = false; },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

void describe('status notification and kill -9', () => {
  void it('is sent again after a kill -9 in the middle of sending, with the same Message-ID, queued once', async () => {
    const dataDir = tempDir('intake-notify-kill-');
    const relay = await startHoldingRelay();
    let apiKey: string;
    let mis: string;
    const store = await openStore({ dataDir });
    try {
      await store.upsertArticles(TEST_ARTICLES);
      apiKey = (await provisionCustomer(store, { code: 'C001', name: 'Cliente' }, 'ordini.test')).apiKey;
      mis = (await addIntegration(store, 'MIS')).api_key;
      await setNotifications(store, 'C001', { enabled: true, address: 'produzione@cliente.it' });
    } finally {
      await store.close();
    }
    const env = { INTAKE_SMTP_RELAY: relay.url, INTAKE_MAIL_DOMAIN: 'ordini.test' };
    let serve = await spawnServe(dataDir, env);
    try {
      const base = `http://127.0.0.1:${serve.httpPort}`;
      const post = (path: string, body: unknown, key: string) => fetch(`${base}${path}`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body),
      });
      const sent = await (await post('/api/v1/ordini', order('C001', 'KILL-1'), apiKey)).json() as { id_ordine: string };
      assert.equal((await post(`/api/v1/ordini/${sent.id_ordine}/stato`, { stato: 'spedito', nota: 'BRT 1' }, mis)).status, 200);
      await waitFor(() => (relay.held.length === 1 ? true : undefined), 20_000, 'the first attempt held by the relay');
      await stopServe(serve, 'SIGKILL');
      relay.release();
      serve = await spawnServe(dataDir, env);
      await waitFor(() => (relay.delivered.length >= 1 ? true : undefined), 30_000, 'the notification sent after the restart');
      assert.equal(relay.delivered[0], relay.held[0], 'the same Message-ID: the same notification, sent again');
      assert.equal(await stopServe(serve, 'SIGTERM'), 0);
      const after = await openStore({ dataDir });
      try {
        const notes = (await after.listReplies({ limit: 100 })).filter((r) => r.kind === 'notification');
        assert.equal(notes.length, 1, 'queued once');
        assert.deepEqual([notes[0]!.state, notes[0]!.orderId, notes[0]!.recipient], ['sent', sent.id_ordine, 'produzione@cliente.it']);
      } finally {
        await after.close();
      }
      assert.equal(relay.delivered.length, 1, 'delivered once after the restart');
    } finally {
      await stopServe(serve, 'SIGKILL');
      await relay.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
