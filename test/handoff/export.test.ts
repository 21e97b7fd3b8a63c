// Hot-folder export end to end on both stores: the dispatcher writes each registered order into a real folder as
// JSON, XML or XJDF; the XJDF validates against the CIP4 schema (xmllint) and reads back through our own XJDF
// connector decoder with the connector's lookup table; a missing folder leaves the order pending until it is there.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { startDispatcher } from '../../src/handoff/dispatcher.ts';
import { exportFileName } from '../../src/handoff/export-file.ts';
import { addExport } from '../../src/handoff/subscribers.ts';
import { decodeConnectorPayload } from '../../src/intake/connectors/index.ts';
import { createLogger } from '../../src/log.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { tempDir, waitFor } from '../helpers/service.ts';
import { memoryEvents, registeredOrder } from './memory-events.ts';
import { STORES } from './stores.ts';
import { XJDF_XSD } from '../helpers/shared.ts';

const XSD = XJDF_XSD;
const OPTIONS = { timeoutMs: 400, leaseMs: 1500, pollMs: 20, retry: { firstMs: 40, maxMs: 150, giveUpMs: 60_000 } };

function files(dir: string): string[] {
  return readdirSync(dir).sort();
}

/** What a hot-folder tool picks up: the temporary files are dot files, which such tools skip. */
function visible(dir: string): string[] {
  return files(dir).filter((f) => !f.startsWith('.'));
}

async function withExport(open: () => Promise<{ store: Store; cleanup(): Promise<void> }>, fn: (store: Store, dir: string) => Promise<void>): Promise<void> {
  const opened = await open();
  const dir = tempDir('intake-export-');
  try {
    await fn(opened.store, dir);
  } finally {
    await opened.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const [name, open] of STORES) {
  void describe(`hot-folder export (${name})`, () => {
    void it('writes json, xml and a schema-valid XJDF ticket per registered order, under names that sort and cannot escape', () => withExport(open, async (store, dir) => {
      const customer = await store.createCustomer({ id: randomUUID(), code: 'C001', name: 'Cliente', mailbox: 'c001@ordini.test' });
      await store.createSite({ code: 'VR', name: 'Verona' });
      const connector = await store.createConnector({
        id: randomUUID(), customerId: customer.id, name: 'Switch', format: 'xjdf', sites: ['VR'], allowIps: [],
        key: { credentialId: randomUUID(), keyId: 'k1', secretHash: 'sha256:x' },
      });
      await store.replaceConnectorLookup(connector.id, [{ productKey: 'bv standard', codice_articolo: 'BV-STD', unita_misura: 'PZ' }]);
      const dirs = { json: path.join(dir, 'json'), xml: path.join(dir, 'xml'), xjdf: path.join(dir, 'xjdf') };
      for (const [format, d] of Object.entries(dirs)) {
        mkdirSync(d);
        await addExport(store, { dir: d, format });
      }
      const events = memoryEvents();
      const dispatcher = startDispatcher({ store, events, log: createLogger('silent'), holder: 'test', agentVersion: '0.1.0', options: OPTIONS });
      try {
        const order = registeredOrder(7, { sito_produzione: 'VR', riferimento_ordine: 'ODA <&> "7"', note: 'Retro <bianco> & opaco\nGrazie' });
        const e = events.add('ordine.registrato', order);
        events.add('ordine.rifiutato', { stato: 'rifiutato', codice_cliente: 'C001', riferimento_ordine: 'X' });
        await waitFor(() => (Object.values(dirs).every((d) => visible(d).length === 1) ? true : undefined), 10_000, 'three files');
        await waitFor(() => (Object.values(dirs).every((d) => files(d).length === 1) ? true : undefined), 5000, 'temporary files gone');
        const base = `2026-000007_${e.id}`;
        assert.deepEqual(files(dirs.json), [`${base}.json`], 'only the registration, no temporary file left');
        assert.deepEqual(JSON.parse(readFileSync(path.join(dirs.json, `${base}.json`), 'utf8')), e);
        const xml = readFileSync(path.join(dirs.xml, `${base}.xml`), 'utf8');
        assert.match(xml, /<riferimento_ordine>ODA &lt;&amp;&gt; "7"<\/riferimento_ordine>/);
        assert.match(xml, /<righe>\s*<riga>\s*<codice_articolo>BV-STD<\/codice_articolo>/);
        assert.match(xml, /<note>Retro &lt;bianco&gt; &amp; opaco\nGrazie<\/note>/, 'the order\'s note');
        execFileSync('xmllint', ['--noout', path.join(dirs.xml, `${base}.xml`)], { stdio: 'pipe' });

        const ticket = path.join(dirs.xjdf, `${base}.xjdf`);
        // Throws (and fails the test) with xmllint's message when the ticket does not validate.
        execFileSync('xmllint', ['--noout', '--schema', XSD, ticket], { stdio: 'pipe' });
        const text = readFileSync(ticket, 'utf8');
        assert.match(text, /DescriptiveName="bv standard"/, 'the product name from the lookup table');
        assert.match(text, /<Comment>quantita 2.5 RS<\/Comment>/, 'a fractional quantity kept in the comment');
        assert.match(text, /<Comment Type="Instruction" Language="it">Retro &lt;bianco&gt; &amp; opaco\nGrazie<\/Comment>/, 'the order\'s note');
        const lookup = new Map([['bv standard', { codice_articolo: 'BV-STD', unita_misura: 'PZ' }], ['car-a4-80', { codice_articolo: 'CAR-A4-80', unita_misura: 'RS' }]]);
        const decoded = await decodeConnectorPayload({ raw: Buffer.from(text), contentType: 'application/vnd.cip4-xjdf+xml', profile: { format: 'xjdf', lookup }, receivedAt: e.time });
        const back = decoded.candidates[0] as Record<string, unknown>;
        assert.equal(back.codice_cliente, 'C001');
        assert.equal(back.riferimento_ordine, 'ODA <&> "7"');
        assert.equal(back.data_consegna, '2026-12-01');
        assert.equal(decoded.site, 'VR');
        assert.deepEqual((back.righe as { codice_articolo: string }[]).map((r) => r.codice_articolo), ['BV-STD', 'CAR-A4-80']);
      } finally {
        await dispatcher.close();
      }
    }));

    void it('keeps an order pending while the folder is missing, and writes it once the folder is back', () => withExport(open, async (store, dir) => {
      const hot = path.join(dir, 'share');
      mkdirSync(hot);
      const exp = await addExport(store, { dir: hot, format: 'json' });
      rmSync(hot, { recursive: true });
      const events = memoryEvents();
      const dispatcher = startDispatcher({ store, events, log: createLogger('silent'), holder: 'test', agentVersion: '0.1.0', options: OPTIONS });
      try {
        const e = events.add('ordine.registrato', registeredOrder(1));
        const failing = await waitFor(async () => {
          const [d] = await store.listDeliveries({ subscriberId: exp.id });
          return d && d.attempts >= 2 ? d : undefined;
        }, 10_000, 'failed attempts');
        assert.equal(failing.state, 'pending');
        assert.match(failing.lastError!, /ENOENT/);
        assert.equal(existsSync(hot), false, 'the service does not create a missing folder');
        mkdirSync(hot);
        await waitFor(() => (visible(hot).length === 1 ? true : undefined), 10_000, 'the file once the folder is back');
        assert.deepEqual(visible(hot), [exportFileName(e, 'json')]);
        await waitFor(async () => ((await store.listDeliveries({ subscriberId: exp.id }))[0]?.state === 'done' ? true : undefined), 5000, 'done');
      } finally {
        await dispatcher.close();
      }
    }));
  });
}

void describe('export file names', () => {
  void it('refuses an event id that could leave the folder and falls back for an odd numero_ordine', () => {
    assert.throws(() => exportFileName({ id: '../../etc/passwd', type: 'ordine.registrato', data: {} }, 'json'), /cannot be part of a file name/);
    assert.equal(exportFileName({ id: 'abc-1', type: 'ordine.registrato', data: { numero_ordine: '../x' } }, 'xml'), 'ordine_abc-1.xml');
  });
});
