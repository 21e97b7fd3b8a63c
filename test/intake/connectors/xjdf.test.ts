import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeConnectorPayload } from '../../../src/intake/connectors/index.ts';
import { fixture, profile, RECEIVED_AT, rejectsIntake } from './helpers.ts';

const XJDF = 'application/vnd.cip4-xjdf+xml';

const decode = (raw: Buffer, lookup = {}, contentType = XJDF) =>
  decodeConnectorPayload({ raw, contentType, profile: profile('xjdf', lookup), receivedAt: RECEIVED_AT });

void describe('XJDF 2.x product intent', () => {
  void it('reads CustomerInfo, AuditCreated time, delivery, site and the root product only', async () => {
    const d = await decode(fixture('leaflet.xjdf'), { leaflet: { codice_articolo: 'PIEG-A4-3A', unita_misura: 'PZ' } });
    assert.equal(d.kind, 'xjdf');
    assert.equal(d.site, 'MI');
    assert.deepEqual(d.candidates, [{
      codice_cliente: 'C001',
      riferimento_ordine: 'ODA-5531',
      data_ordine: '2026-11-21',
      data_consegna: '2026-12-10',
      righe: [{ codice_articolo: 'PIEG-A4-3A', quantita: 10000, unita_misura: 'PZ' }],
    }]);
  });

  void it('tries @ExternalID first', async () => {
    const d = await decode(fixture('leaflet.xjdf'), { 'PIEG-3A': { codice_articolo: 'BY-ID' }, leaflet: { codice_articolo: 'BY-TYPE' } });
    assert.equal((d.candidates[0] as { righe: Array<{ codice_articolo: string }> }).righe[0]?.codice_articolo, 'BY-ID');
  });

  void it('without IsRoot, takes the products no ChildRefs points to (a gang of two products)', async () => {
    const raw = Buffer.from(`<XJDF xmlns="http://www.CIP4.org/JDFSchema_2_0" JobID="GANG-1" Types="Product">
      <ProductList>
        <Product ID="A" Amount="300" ProductType="Poster">
          <Intent Name="AssemblingIntent"><AssemblingIntent ChildRefs="A_part"/></Intent>
        </Product>
        <Product ID="A_part" Amount="1" ProductType="Sheet"/>
        <Product ID="B" Amount="50" ProductType="Postcard"/>
      </ProductList>
      <ResourceSet Name="NodeInfo"><Resource><NodeInfo End="2026-12-03"/></Resource></ResourceSet>
      <ResourceSet Name="CustomerInfo"><Resource><CustomerInfo CustomerID="C001"/></Resource></ResourceSet>
    </XJDF>`);
    const d = await decode(raw);
    assert.deepEqual(d.candidates, [{
      codice_cliente: 'C001',
      riferimento_ordine: 'GANG-1',
      data_ordine: '2026-11-22',
      data_consegna: '2026-12-03',
      righe: [
        { codice_articolo: 'Poster', quantita: 300, unita_misura: 'PZ' },
        { codice_articolo: 'Postcard', quantita: 50, unita_misura: 'PZ' },
      ],
    }]);
  });

  void it('an XJDF without CustomerInfo gives a candidate without codice_cliente (stage A refuses it)', async () => {
    const raw = Buffer.from('<XJDF JobID="J9" Types="Product"><ProductList><Product IsRoot="true" Amount="5" ProductType="Book"/></ProductList></XJDF>');
    const order = (await decode(raw)).candidates[0] as Record<string, unknown>;
    assert.equal('codice_cliente' in order, false);
    assert.equal(order.riferimento_ordine, 'J9');
  });

  void it('refuses a JDF on an XJDF connector', async () => {
    await rejectsIntake(() => decode(fixture('brochure.jdf'), {}, 'application/xml'), 'UNSUPPORTED_MEDIA_TYPE', /format jdf/);
    await rejectsIntake(() => decode(fixture('brochure.jdf'), {}, 'application/vnd.cip4-jdf+xml'), 'UNSUPPORTED_MEDIA_TYPE');
  });
});
