import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeConnectorPayload } from '../../../src/intake/connectors/index.ts';
import { fixture, profile, RECEIVED_AT, rejectsIntake } from './helpers.ts';

const JDF = 'application/vnd.cip4-jdf+xml';

const decode = (raw: Buffer, lookup = {}, contentType: string | undefined = JDF) =>
  decodeConnectorPayload({ raw, ...(contentType === undefined ? {} : { contentType }), profile: profile('jdf', lookup), receivedAt: RECEIVED_AT });

void describe('JDF 1.x product intent', () => {
  void it('reads customer, order reference, dates, site and the final product as one line', async () => {
    const d = await decode(fixture('brochure.jdf'), { brochure: { codice_articolo: 'BRO-A4', unita_misura: 'XPK' } });
    assert.equal(d.kind, 'jdf');
    assert.equal(d.site, 'VR');
    assert.deepEqual(d.candidates, [{
      codice_cliente: 'C001',
      riferimento_ordine: 'PO-2026-4471',
      data_ordine: '2026-11-20',
      data_consegna: '2026-12-04', // NodeInfo/@End wins over the DeliveryIntent
      righe: [{ codice_articolo: 'BRO-A4', quantita: 2500, unita_misura: 'XPK' }],
    }]);
  });

  void it('tries @ProductID before ProductType and DescriptiveName', async () => {
    const lookup = {
      'bro-a4-16': { codice_articolo: 'BY-ID' },
      brochure: { codice_articolo: 'BY-TYPE' },
      'Brochure Autunno 2026': { codice_articolo: 'BY-NAME' },
    };
    const d = await decode(fixture('brochure.jdf'), lookup);
    assert.deepEqual((d.candidates[0] as { righe: unknown[] }).righe, [{ codice_articolo: 'BY-ID', quantita: 2500, unita_misura: 'PZ' }]);
  });

  void it('matches DescriptiveName after normalising spaces and case', async () => {
    const d = await decode(fixture('brochure.jdf'), { '  brochure   AUTUNNO 2026 ': { codice_articolo: 'BY-NAME' } });
    assert.equal((d.candidates[0] as { righe: Array<{ codice_articolo: string }> }).righe[0]?.codice_articolo, 'BY-NAME');
  });

  void it('keeps the raw identifier as article code when nothing matches, so stage B names it', async () => {
    const d = await decode(fixture('brochure.jdf'));
    assert.deepEqual((d.candidates[0] as { righe: unknown[] }).righe, [{ codice_articolo: 'BRO-A4-16', quantita: 2500, unita_misura: 'PZ' }]);
  });

  void it('reads a grouping root as one line per child product, with JobID and received date as fallbacks', async () => {
    const lookup = { businesscard: { codice_articolo: 'BV-85x55' }, 'flyer a5': { codice_articolo: 'FLY-A5' } };
    const d = await decode(fixture('fair-kit.jdf'), lookup, 'application/xml');
    assert.equal(d.site, undefined);
    assert.deepEqual(d.candidates, [{
      codice_cliente: 'C001',
      riferimento_ordine: 'SW-2026-1102',
      data_ordine: '2026-11-22',
      data_consegna: '2026-12-01',
      righe: [
        { codice_articolo: 'BV-85x55', quantita: 500, unita_misura: 'PZ' },
        { codice_articolo: 'FLY-A5', quantita: 1000, unita_misura: 'PZ' },
      ],
    }]);
  });

  void it('takes lines from the products marked FinalProduct wherever they are', async () => {
    const raw = Buffer.from(`<JDF xmlns="http://www.CIP4.org/JDFSchema_1_1" ID="R" JobID="J1" Type="Product">
      <CustomerInfo CustomerID="C001" CustomerOrderID="PO-9"/>
      <JDF ID="A" Type="Product" ProductID="A1">
        <ResourcePool><Component ID="CA" ComponentType="FinalProduct"/></ResourcePool>
        <ResourceLinkPool><ComponentLink rRef="CA" Usage="Output" Amount="10"/></ResourceLinkPool>
        <JDF ID="A-part" Type="Product" ProductID="A-cover">
          <ResourcePool><Component ID="CAP" ComponentType="PartialProduct"/></ResourcePool>
          <ResourceLinkPool><ComponentLink rRef="CAP" Usage="Output" Amount="10"/></ResourceLinkPool>
        </JDF>
      </JDF>
      <JDF ID="B" Type="Product" ProductID="B1">
        <ResourcePool><Component ID="CB" ComponentType="FinalProduct Sheet" Amount="7"/></ResourcePool>
        <ResourceLinkPool><ComponentLink rRef="CB" Usage="Output"/></ResourceLinkPool>
      </JDF>
    </JDF>`);
    const d = await decode(raw);
    const order = d.candidates[0] as Record<string, unknown>;
    assert.equal(order.codice_cliente, 'C001'); // JDF 1.0–1.2: CustomerInfo as a child of the node
    assert.deepEqual(order.righe, [
      { codice_articolo: 'A1', quantita: 10, unita_misura: 'PZ' },
      { codice_articolo: 'B1', quantita: 7, unita_misura: 'PZ' },
    ]);
  });

  void it('leaves out what a ticket does not say, so stage A reports it', async () => {
    const raw = Buffer.from('<JDF xmlns="http://www.CIP4.org/JDFSchema_1_1" ID="R" Type="Product" DescriptiveName="Poster"/>');
    const d = await decode(raw);
    // No CustomerInfo, no JobID, no amount: the candidate has no codice_cliente, riferimento_ordine or quantita.
    assert.deepEqual(d.candidates, [{ data_ordine: '2026-11-22', righe: [{ codice_articolo: 'Poster', unita_misura: 'PZ' }] }]);
  });

  void it('passes a non-numeric Amount and a bad date through as text for stage A', async () => {
    const raw = Buffer.from(`<JDF ID="R" Type="Product" JobID="J"><CustomerInfo CustomerID="C001"/>
      <NodeInfo End="next week"/>
      <ResourcePool><Component ID="C" ComponentType="FinalProduct"/></ResourcePool>
      <ResourceLinkPool><ComponentLink rRef="C" Usage="Output" Amount="lots"/></ResourceLinkPool></JDF>`);
    const order = (await decode(raw)).candidates[0] as Record<string, unknown>;
    assert.equal(order.data_consegna, 'next week');
    // A product with no key gets a placeholder article, so stage B can refuse it naming why (lines.ts).
    assert.deepEqual(order.righe, [{ codice_articolo: '(senza chiave)', quantita: 'lots', unita_misura: 'PZ' }]);
  });

  void it('decodes &amp; and character references in attributes, once, and keeps text as text', async () => {
    const raw = Buffer.from('<JDF ID="R" Type="Product" JobID="J&amp;1" DescriptiveName="Citt&#224; &amp;lt;"><CustomerInfo CustomerID="C&amp;1" CustomerOrderID="0042"/></JDF>');
    const order = (await decode(raw)).candidates[0] as Record<string, unknown>;
    assert.equal(order.codice_cliente, 'C&1');
    assert.equal(order.riferimento_ordine, '0042');
    assert.deepEqual(order.righe, [{ codice_articolo: 'Città &lt;', unita_misura: 'PZ' }]);
  });

  void it('refuses an XJDF on a JDF connector as the wrong media, naming the right format', async () => {
    await rejectsIntake(() => decode(fixture('leaflet.xjdf')), 'UNSUPPORTED_MEDIA_TYPE', /format xjdf/);
  });

  void it('refuses content types a JDF connector does not take', async () => {
    await rejectsIntake(() => decode(fixture('brochure.jdf'), {}, 'application/json'), 'UNSUPPORTED_MEDIA_TYPE', /JDF 1\.x/);
    await rejectsIntake(() => decode(fixture('brochure.jdf'), {}, 'application/pdf'), 'UNSUPPORTED_MEDIA_TYPE');
  });

  void it('reads a ticket sent without a content type', async () => {
    const d = await decode(fixture('brochure.jdf'), {}, undefined);
    assert.equal(d.kind, 'jdf');
  });

  void it('refuses another root element', async () => {
    await rejectsIntake(() => decode(Buffer.from('<ordine><codice_cliente>C001</codice_cliente></ordine>')), 'NOT_PARSEABLE', /<JDF> or <JMF>/);
  });
});
