/** Malformed and hostile payloads on every connector format: a clear IntakeError, never a crash or a hang. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeConnectorPayload, MAX_CONNECTOR_PAYLOAD_BYTES, type ConnectorFormat } from '../../../src/intake/connectors/index.ts';
import { fixture, multipart, profile, RECEIVED_AT, rejectsIntake } from './helpers.ts';

const decode = (format: ConnectorFormat, raw: Buffer | string, contentType?: string) => decodeConnectorPayload({
  raw: Buffer.isBuffer(raw) ? raw : Buffer.from(raw),
  ...(contentType === undefined ? {} : { contentType }),
  profile: profile(format, {}, format === 'json' || format === 'xml' ? '$' : undefined),
  receivedAt: RECEIVED_AT,
});

const JDF = 'application/vnd.cip4-jdf+xml';

void describe('hostile and malformed connector payloads', () => {
  void it('refuses a billion-laughs JDF without expanding anything', async () => {
    const laughs = ['<!ENTITY l0 "lol">', ...Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`)].join('');
    await rejectsIntake(() => decode('jdf', `<?xml version="1.0"?><!DOCTYPE JDF [${laughs}]><JDF Type="Product" JobID="&l9;"/>`, JDF), 'NOT_PARSEABLE', /DOCTYPE/);
  });

  void it('refuses external entities (XXE) and a bare ENTITY declaration', async () => {
    await rejectsIntake(() => decode('xjdf', '<!DOCTYPE XJDF [<!ENTITY x SYSTEM "http://169.254.169.254/">]><XJDF JobID="&x;"/>'), 'NOT_PARSEABLE', /DOCTYPE/);
    await rejectsIntake(() => decode('jdf', '<JDF Type="Product"><!ENTITY x "y"></JDF>'), 'NOT_PARSEABLE', /ENTITY/);
  });

  void it('refuses deep nesting on every XML path', async () => {
    const deep = `<JDF Type="Product">${'<JDF Type="Product">'.repeat(200)}${'</JDF>'.repeat(200)}</JDF>`;
    await rejectsIntake(() => decode('jdf', deep, JDF), 'NOT_PARSEABLE', /levels deep/);
    await rejectsIntake(() => decode('xml', `<a>${'<b>'.repeat(200)}${'</b>'.repeat(200)}</a>`), 'NOT_PARSEABLE', /levels deep/);
    const { raw, contentType } = multipart([
      { contentType: 'application/vnd.cip4-jmf+xml', body: '<JMF><Command ID="c" Type="SubmitQueueEntry"><QueueSubmissionParams URL="cid:t"/></Command></JMF>' },
      { contentType: JDF, contentId: 't', body: deep },
    ]);
    await rejectsIntake(() => decode('jdf', raw, contentType), 'NOT_PARSEABLE', /levels deep/);
  });

  void it('names line and column of a malformed ticket', async () => {
    await rejectsIntake(() => decode('jdf', '<JDF Type="Product">\n  <ResourcePool>\n</JDF>', JDF), 'NOT_PARSEABLE', /well-formed XML \(line \d+/);
    await rejectsIntake(() => decode('xjdf', fixture('leaflet.xjdf').subarray(0, 400)), 'NOT_PARSEABLE', /well-formed XML/);
  });

  void it('refuses an empty body, two roots, text that is not XML and bytes that are not UTF-8', async () => {
    await rejectsIntake(() => decode('jdf', '  \r\n', JDF), 'NOT_PARSEABLE', /empty/);
    await rejectsIntake(() => decode('jdf', '<JDF/><JDF/>', JDF), 'NOT_PARSEABLE');
    await rejectsIntake(() => decode('xjdf', 'JobID=1'), 'NOT_PARSEABLE');
    await rejectsIntake(() => decode('jdf', Buffer.from([0x3c, 0x4a, 0x44, 0x46, 0x20, 0x61, 0x3d, 0x22, 0xff, 0x22, 0x2f, 0x3e]), JDF), 'NOT_PARSEABLE', /UTF-8/);
  });

  void it('reads a ticket in the charset its declaration names', async () => {
    const latin1 = Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><JDF Type="Product" JobID="J1" DescriptiveName="Cartellina è"/>', 'latin1');
    const d = await decode('jdf', latin1, JDF);
    assert.equal((d.candidates[0] as { righe: Array<{ codice_articolo: string }> }).righe[0]?.codice_articolo, 'Cartellina è');
  });

  void it('refuses a payload over the decoding bound without parsing it', async () => {
    const big = Buffer.alloc(MAX_CONNECTOR_PAYLOAD_BYTES + 1, 0x20);
    await rejectsIntake(() => decode('jdf', big, JDF), 'NOT_PARSEABLE', /larger than/);
  });

  void it('refuses too many MIME parts', async () => {
    const parts = Array.from({ length: 20 }, (_, i) => ({ contentType: 'application/xml', contentId: `p${i}`, body: '<JDF/>' }));
    const { raw, contentType } = multipart([{ contentType: 'application/vnd.cip4-jmf+xml', body: '<JMF/>' }, ...parts]);
    await rejectsIntake(() => decode('jdf', raw, contentType), 'NOT_PARSEABLE', /at most 16 parts/);
  });

  void it('ignores processing instructions and comments, and a JMF without any message is refused', async () => {
    await rejectsIntake(() => decode('jdf', '<?xml-stylesheet href="x"?><!-- hi --><JMF SenderID="x"/>', 'application/vnd.cip4-jmf+xml'), 'NOT_PARSEABLE', /holds no message/);
  });

  void it('a prototype-polluting key in ERP JSON stays data', async () => {
    const d = await decodeConnectorPayload({
      raw: Buffer.from('{"__proto__": {"polluted": true}, "r": "A"}'), contentType: 'application/json',
      profile: profile('json', {}, '{"riferimento_ordine": r, "x": `__proto__`.polluted}'), receivedAt: RECEIVED_AT,
    });
    assert.deepEqual(d.candidates, [{ riferimento_ordine: 'A', x: true }]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
