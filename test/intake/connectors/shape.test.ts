/** What the decoders produce is what the core's stage A takes: the samples pass it, gaps are named by it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeConnectorPayload, type ConnectorFormat } from '../../../src/intake/connectors/index.ts';
import { validateStructure } from '../../../src/intake/validate.ts';
import { fixture, multipart, profile, RECEIVED_AT } from './helpers.ts';

const lookup = {
  brochure: { codice_articolo: 'BRO-A4' }, businesscard: { codice_articolo: 'BV-85x55' }, flyer: { codice_articolo: 'FLY-A5' },
  leaflet: { codice_articolo: 'PIEG-A4-3A' },
};

async function candidates(format: ConnectorFormat, raw: Buffer, contentType: string, mapping?: string): Promise<unknown[]> {
  return (await decodeConnectorPayload({ raw, contentType, profile: profile(format, lookup, mapping), receivedAt: RECEIVED_AT })).candidates;
}

void describe('decoded candidates against stage A', () => {
  void it('every sample gives orders that pass stage A', async () => {
    const jmf = multipart([
      { contentType: 'application/vnd.cip4-jmf+xml', body: fixture('submit.jmf') },
      { contentType: 'application/vnd.cip4-jdf+xml', contentId: 'brochure.jdf@prinect.example', body: fixture('brochure.jdf') },
    ]);
    const all = [
      ...(await candidates('jdf', fixture('brochure.jdf'), 'application/vnd.cip4-jdf+xml')),
      ...(await candidates('jdf', fixture('fair-kit.jdf'), 'application/vnd.cip4-jdf+xml')),
      ...(await candidates('jdf', jmf.raw, jmf.contentType)),
      ...(await candidates('xjdf', fixture('leaflet.xjdf'), 'application/vnd.cip4-xjdf+xml')),
      ...(await candidates('json', fixture('erp-order.json'), 'application/json', fixture('erp-order.jsonata').toString())),
      ...(await candidates('xml', fixture('erp-export.xml'), 'application/xml', fixture('erp-export.jsonata').toString())),
    ];
    assert.equal(all.length, 7);
    for (const c of all) {
      const a = validateStructure(c);
      assert.ok(a.ok, `${JSON.stringify(c)}: ${a.ok ? '' : a.messages.join('; ')}`);
    }
  });

  void it('a ticket without CustomerInfo or Amount is named by stage A', async () => {
    const [c] = await candidates('jdf', Buffer.from('<JDF ID="n" Type="Product" JobID="J1" DescriptiveName="Poster"/>'), 'application/vnd.cip4-jdf+xml');
    const a = validateStructure(c);
    assert.equal(a.ok, false);
    const text = a.ok ? '' : a.messages.join('\n');
    assert.match(text, /codice_cliente must be a string/);
    assert.match(text, /quantita/);
  });
});
