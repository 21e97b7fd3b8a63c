import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { execFileSync } from 'node:child_process';
import {
  answerJmfQuery, decodeConnectorPayload, isJmfContentType, JMF_RETURN_CODES, readJmfRequest, renderJmfResponse,
  type ConnectorFormat,
} from '../../../src/intake/connectors/index.ts';
import { fixture, multipart, profile, RECEIVED_AT, rejectsIntake } from './helpers.ts';

const JMF = 'application/vnd.cip4-jmf+xml';
const XJMF = 'application/vnd.cip4-xjmf+xml';
const lookup = { brochure: { codice_articolo: 'BRO-A4' }, leaflet: { codice_articolo: 'PIEG-A4-3A' } };

const decode = (raw: Buffer, contentType: string, format: ConnectorFormat = 'jdf') =>
  decodeConnectorPayload({ raw, contentType, profile: profile(format, lookup), receivedAt: RECEIVED_AT });

const jmfPackage = (jdf: Buffer = fixture('brochure.jdf'), jmf: Buffer | string = fixture('submit.jmf')) => multipart([
  { contentType: JMF, contentId: 'jmf-root@prinect.example', body: jmf },
  { contentType: 'application/vnd.cip4-jdf+xml', contentId: 'brochure.jdf@prinect.example', body: jdf },
]);

const jmfWithUrl = (url: string): string =>
  fixture('submit.jmf').toString('utf8').replace('cid:brochure.jdf@prinect.example', url);

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' });
/** A parsed response, walked by the assertions; a wrong path fails them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Parsed = any;

/** Parses a response we produced; well-formedness checked by the parser and, when installed, by xmllint. */
function parseResponse(body: string): Parsed {
  assert.equal(XMLValidator.validate(body), true);
  try {
    execFileSync('xmllint', ['--noout', '-'], { input: body, stdio: ['pipe', 'ignore', 'pipe'] });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  return parser.parse(body) as Parsed;
}

void describe('JMF SubmitQueueEntry', () => {
  void it('reads the JDF from the multipart/related part the cid: URL names', async () => {
    const { raw, contentType } = jmfPackage();
    const d = await decode(raw, contentType);
    assert.equal(d.kind, 'jmf');
    assert.deepEqual(d.jmf, { kind: 'jmf', messageType: 'SubmitQueueEntry', messageId: 'CMD_4471', senderId: 'Prinect-Cockpit', version: '1.4' });
    assert.equal(d.site, 'VR');
    assert.deepEqual(d.candidates, [{
      codice_cliente: 'C001', riferimento_ordine: 'PO-2026-4471', data_ordine: '2026-11-20', data_consegna: '2026-12-04',
      righe: [{ codice_articolo: 'BRO-A4', quantita: 2500, unita_misura: 'PZ' }],
    }]);
  });

  void it('reads base64 parts, the start parameter and URL-encoded cid: URLs', async () => {
    const { raw, contentType } = multipart([
      { contentType: 'application/vnd.cip4-jdf+xml; charset=UTF-8', contentId: 'job 1@x', body: fixture('brochure.jdf'), base64: true },
      { contentType: JMF, contentId: 'root@x', body: jmfWithUrl('cid:job%201@x'), base64: true },
    ], { start: 'root@x' });
    const d = await decode(raw, contentType);
    assert.equal((d.candidates[0] as Record<string, unknown>).riferimento_ordine, 'PO-2026-4471');
  });

  void it('reads a part in the charset its Content-Type names', async () => {
    const jdf = Buffer.from('<JDF ID="n" Type="Product" JobID="J1" DescriptiveName="Cartellina è"><CustomerInfo CustomerID="C001"/></JDF>', 'latin1');
    const { raw, contentType } = multipart([
      { contentType: JMF, body: fixture('submit.jmf') },
      { contentType: 'application/vnd.cip4-jdf+xml; charset=ISO-8859-1', contentId: 'brochure.jdf@prinect.example', body: jdf },
    ]);
    const d = await decode(raw, contentType);
    assert.equal((d.candidates[0] as { righe: Array<{ codice_articolo: string }> }).righe[0]?.codice_articolo, 'Cartellina è');
  });

  void it('without a URL, reads the one other part of the package', async () => {
    const { raw, contentType } = jmfPackage(fixture('brochure.jdf'), jmfWithUrl('').replace(' URL=""', ''));
    const d = await decode(raw, contentType);
    assert.equal(d.candidates.length, 1);
  });

  void it('refuses http, https, ftp and file URLs instead of fetching them', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data', 'https://prinect.example/jobs/1.jdf', 'ftp://x/y.jdf', 'file:///etc/passwd']) {
      const { raw, contentType } = jmfPackage(fixture('brochure.jdf'), jmfWithUrl(url));
      await rejectsIntake(() => decode(raw, contentType), 'NOT_PARSEABLE', /not fetched from .*same multipart\/related request/);
    }
    // A plain JMF naming a URL: the same answer.
    await rejectsIntake(() => decode(Buffer.from(jmfWithUrl('http://evil.example/x.jdf')), JMF), 'NOT_PARSEABLE', /not fetched/);
  });

  void it('refuses a cid: that is not in the request, and a cid: without a package', async () => {
    const { raw, contentType } = jmfPackage(fixture('brochure.jdf'), jmfWithUrl('cid:missing@x'));
    await rejectsIntake(() => decode(raw, contentType), 'NOT_PARSEABLE', /no part with Content-ID missing@x/);
    await rejectsIntake(() => decode(fixture('submit.jmf'), JMF), 'NOT_PARSEABLE', /not multipart\/related/);
  });

  void it('refuses a JMF that is not a submission, and a hostile ticket inside the package', async () => {
    const query = Buffer.from('<JMF xmlns="http://www.CIP4.org/JDFSchema_1_1" SenderID="x" Version="1.4"><Query ID="Q1" Type="QueueStatus"/></JMF>');
    await rejectsIntake(() => decode(query, JMF), 'NOT_PARSEABLE', /QueueStatus message; only SubmitQueueEntry/);
    const bomb = Buffer.from('<?xml version="1.0"?><!DOCTYPE JDF [<!ENTITY a "aaaa">]><JDF Type="Product">&a;</JDF>');
    const { raw, contentType } = jmfPackage(bomb);
    await rejectsIntake(() => decode(raw, contentType), 'NOT_PARSEABLE', /DOCTYPE/);
  });

  void it('refuses two submissions in one JMF', async () => {
    const two = jmfWithUrl('cid:brochure.jdf@prinect.example').replace('</JMF>', '<Command ID="C2" Type="SubmitQueueEntry"><QueueSubmissionParams URL="cid:b"/></Command></JMF>');
    const { raw, contentType } = jmfPackage(fixture('brochure.jdf'), two);
    await rejectsIntake(() => decode(raw, contentType), 'NOT_PARSEABLE', /one SubmitQueueEntry command per request/);
  });

  void it('refuses a multipart body without boundary or parts', async () => {
    await rejectsIntake(() => decode(Buffer.from('x'), 'multipart/related'), 'NOT_PARSEABLE', /boundary/);
    await rejectsIntake(() => decode(Buffer.from('nothing here\r\n'), 'multipart/related; boundary=zz'), 'NOT_PARSEABLE');
  });
});

void describe('XJMF CommandSubmitQueueEntry', () => {
  void it('reads the XJDF from the package', async () => {
    const { raw, contentType } = multipart([
      { contentType: XJMF, body: fixture('submit.xjmf') },
      { contentType: 'application/vnd.cip4-xjdf+xml', contentId: 'pieghevole.xjdf', body: fixture('leaflet.xjdf') },
    ], { type: XJMF });
    const d = await decode(raw, contentType, 'xjdf');
    assert.equal(d.kind, 'xjmf');
    assert.deepEqual(d.jmf, { kind: 'xjmf', messageType: 'CommandSubmitQueueEntry', messageId: 'CSQE_0001', senderId: 'switch-vr', version: '2.1' });
    assert.equal(d.site, 'MI');
    assert.deepEqual((d.candidates[0] as { righe: unknown[] }).righe, [{ codice_articolo: 'PIEG-A4-3A', quantita: 10000, unita_misura: 'PZ' }]);
  });

  void it('refuses a JDF inside an XJMF package', async () => {
    const { raw, contentType } = multipart([
      { contentType: XJMF, body: fixture('submit.xjmf') },
      { contentType: 'application/xml', contentId: 'pieghevole.xjdf', body: fixture('brochure.jdf') },
    ], { type: XJMF });
    await rejectsIntake(() => decode(raw, contentType, 'xjdf'), 'UNSUPPORTED_MEDIA_TYPE', /format jdf/);
  });
});

void describe('readJmfRequest and isJmfContentType', () => {
  void it('peeks at plain and multipart JMF/XJMF requests', () => {
    assert.deepEqual(readJmfRequest(fixture('submit.jmf'), JMF), { kind: 'jmf', messageType: 'SubmitQueueEntry', messageId: 'CMD_4471', senderId: 'Prinect-Cockpit', version: '1.4' });
    const { raw, contentType } = jmfPackage();
    assert.equal(readJmfRequest(raw, contentType)?.messageId, 'CMD_4471');
    const b64 = multipart([{ contentType: XJMF, body: fixture('submit.xjmf'), base64: true }], { type: XJMF });
    assert.deepEqual(readJmfRequest(b64.raw, b64.contentType), { kind: 'xjmf', messageType: 'CommandSubmitQueueEntry', messageId: 'CSQE_0001', senderId: 'switch-vr', version: '2.1' });
    const q = Buffer.from('<XJMF xmlns="http://www.CIP4.org/JDFSchema_2_0"><Header DeviceID="d" ID="H1" Time="2026-11-21T10:00:00Z"/><QueryKnownMessages><Header ID="Q7" DeviceID="d" Time="2026-11-21T10:00:00Z"/></QueryKnownMessages></XJMF>');
    assert.deepEqual(readJmfRequest(q, XJMF), { kind: 'xjmf', messageType: 'QueryKnownMessages', messageId: 'Q7', senderId: 'd' });
  });

  void it('gives undefined for anything else, never throwing', () => {
    assert.equal(readJmfRequest(fixture('brochure.jdf'), 'application/xml'), undefined);
    assert.equal(readJmfRequest(Buffer.from('<JMF><Command'), JMF), undefined);
    assert.equal(readJmfRequest(Buffer.from('<!DOCTYPE JMF [<!ENTITY x "y">]><JMF/>'), JMF), undefined);
    assert.equal(readJmfRequest(Buffer.from('{"a":1}'), 'application/json'), undefined);
    assert.equal(readJmfRequest(Buffer.from('--x\r\n\r\n'), 'multipart/related; boundary=x'), undefined);
  });

  void it('knows the JMF content types', () => {
    assert.equal(isJmfContentType('application/vnd.cip4-jmf+xml; charset=UTF-8'), true);
    assert.equal(isJmfContentType('Application/VND.CIP4-XJMF+XML'), true);
    assert.equal(isJmfContentType('multipart/related; boundary=a; type="application/vnd.cip4-jmf+xml"'), true);
    assert.equal(isJmfContentType('multipart/related; boundary=a; type=application/vnd.cip4-xjmf+xml; start="<r>"'), true);
    assert.equal(isJmfContentType('multipart/related; boundary=a'), false);
    assert.equal(isJmfContentType('application/vnd.cip4-jdf+xml'), false);
    assert.equal(isJmfContentType(undefined), false);
  });
});

void describe('JMF/XJMF responses', () => {
  const jmfReq = { kind: 'jmf' as const, messageType: 'SubmitQueueEntry', messageId: 'CMD_4471', senderId: 'Prinect', version: '1.3' };
  const xjmfReq = { kind: 'xjmf' as const, messageType: 'CommandSubmitQueueEntry', messageId: 'CSQE_0001', version: '2.1' };

  void it('JMF success: Response with refID, ReturnCode 0 and the QueueEntryID', () => {
    const r = renderJmfResponse(jmfReq, { ok: true, queueEntryId: '019a-ord', text: 'registrato con numero 2026-000012' });
    assert.match(r.contentType, /^application\/vnd\.cip4-jmf\+xml/);
    const doc = parseResponse(r.body);
    assert.equal(doc.JMF['@xmlns'], 'http://www.CIP4.org/JDFSchema_1_1');
    assert.equal(doc.JMF['@Version'], '1.3');
    assert.ok(doc.JMF['@TimeStamp']);
    const resp = doc.JMF.Response;
    assert.equal(resp['@Type'], 'SubmitQueueEntry');
    assert.equal(resp['@refID'], 'CMD_4471');
    assert.equal(resp['@ReturnCode'], '0');
    assert.ok(resp['@ID']);
    assert.equal(resp.QueueEntry['@QueueEntryID'], '019a-ord');
    assert.equal(resp.Notification.Comment, 'registrato con numero 2026-000012');
  });

  void it('JMF failure: Error notification with one Comment per message, escaped', () => {
    const evil = 'codice "<x>" & </Comment><Injected/>\u0001';
    const r = renderJmfResponse(jmfReq, { ok: false, returnCode: JMF_RETURN_CODES.invalidParameters, text: ['righe[0].codice_articolo: articolo sconosciuto', evil] });
    const resp = parseResponse(r.body).JMF.Response;
    assert.equal(resp['@ReturnCode'], '6');
    assert.equal(resp.QueueEntry, undefined);
    assert.equal(resp.Notification['@Class'], 'Error');
    assert.deepEqual(resp.Notification.Comment, ['righe[0].codice_articolo: articolo sconosciuto', 'codice "<x>" & </Comment><Injected/>']); // round-trips; the control character is dropped
    assert.doesNotMatch(r.body, /<Injected/);
  });

  void it('XJMF success and failure: ResponseSubmitQueueEntry with Header refID', () => {
    const ok = parseResponse(renderJmfResponse(xjmfReq, { ok: true, queueEntryId: 'Q-1' }).body).XJMF;
    assert.equal(ok['@xmlns'], 'http://www.CIP4.org/JDFSchema_2_0');
    assert.ok(ok.Header['@ID'] && ok.Header['@Time'] && ok.Header['@DeviceID']);
    assert.equal(ok.ResponseSubmitQueueEntry['@ReturnCode'], '0');
    assert.equal(ok.ResponseSubmitQueueEntry.Header['@refID'], 'CSQE_0001');
    assert.equal(ok.ResponseSubmitQueueEntry.QueueEntry['@QueueEntryID'], 'Q-1');
    const ko = renderJmfResponse(xjmfReq, { ok: false, returnCode: 6, text: ['the payload names production site "TO"'] });
    assert.match(ko.contentType, /^application\/vnd\.cip4-xjmf\+xml/);
    const resp = parseResponse(ko.body).XJMF.ResponseSubmitQueueEntry;
    assert.equal(resp['@ReturnCode'], '6');
    assert.equal(resp.Notification['@Class'], 'Error');
    assert.equal(resp.Notification.Comment, 'the payload names production site "TO"');
  });

  void it('an unreadable request gets a generic response in the kind asked for', () => {
    const jmf = parseResponse(renderJmfResponse(undefined, { ok: false, returnCode: JMF_RETURN_CODES.xmlParserError, text: ['body must be well-formed XML'] }).body);
    assert.equal(jmf.JMF.Response['@ReturnCode'], '3');
    assert.equal(jmf.JMF.Response['@refID'], undefined);
    const x = parseResponse(renderJmfResponse(undefined, { ok: false, returnCode: 3, text: [] }, 'xjmf').body);
    assert.equal(x.XJMF.ResponseSubmitQueueEntry['@ReturnCode'], '3');
  });

  void it('reads the JobPhases of a Status signal (JMF 1.x and XJMF 2.x), and only of one', () => {
    const jmf = Buffer.from('<JMF xmlns="http://www.CIP4.org/JDFSchema_1_1" SenderID="P" Version="1.4"><Signal ID="S1" Type="Status">'
      + '<DeviceInfo DeviceStatus="Running"><JobPhase JobID="J1" QueueEntryID="q1" Status="InProgress"/><JobPhase JobID="J2" Status="Waiting"/></DeviceInfo>'
      + '</Signal></JMF>');
    assert.deepEqual(readJmfRequest(jmf, JMF), {
      kind: 'jmf', messageType: 'Status', messageId: 'S1', senderId: 'P', version: '1.4',
      statusReports: [{ queueEntryId: 'q1', jobId: 'J1', status: 'InProgress' }, { jobId: 'J2', status: 'Waiting' }],
    });
    const x = Buffer.from('<XJMF xmlns="http://www.CIP4.org/JDFSchema_2_0"><Header DeviceID="d" ID="H1" Time="2026-11-21T10:00:00Z"/>'
      + '<SignalStatus><Header ID="S7" DeviceID="d" Time="2026-11-21T10:00:00Z"/><DeviceInfo Status="Production"><JobPhase JobID="J" QueueEntryID="q2" Status="Aborted"/></DeviceInfo></SignalStatus></XJMF>');
    assert.deepEqual(readJmfRequest(x, XJMF)?.statusReports, [{ queueEntryId: 'q2', jobId: 'J', status: 'Aborted' }]);
    const query = Buffer.from('<JMF xmlns="http://www.CIP4.org/JDFSchema_1_1"><Query ID="Q" Type="Status"/></JMF>');
    assert.equal(readJmfRequest(query, JMF)?.statusReports, undefined, 'a Status query is not a report');
    const both = Buffer.from('<JMF xmlns="http://www.CIP4.org/JDFSchema_1_1"><Command ID="C" Type="SubmitQueueEntry"><QueueSubmissionParams URL="cid:x"/></Command>'
      + '<Signal ID="S" Type="Status"><DeviceInfo><JobPhase QueueEntryID="q" Status="InProgress"/></DeviceInfo></Signal></JMF>');
    assert.deepEqual(readJmfRequest(both, JMF), { kind: 'jmf', messageType: 'SubmitQueueEntry', messageId: 'C' }, 'a submission first keeps its path');
  });

  void it('answers KnownMessages and SubmissionMethods, and nothing else', () => {
    const known = parseResponse(answerJmfQuery({ kind: 'jmf', messageType: 'KnownMessages', messageId: 'Q1' })!.body).JMF.Response;
    assert.equal(known['@refID'], 'Q1');
    assert.equal(known['@ReturnCode'], '0');
    assert.deepEqual(known.MessageService.map((m: Record<string, string>) => m['@Type']), ['SubmitQueueEntry', 'KnownMessages', 'SubmissionMethods', 'Status']);
    const xknown = parseResponse(answerJmfQuery({ kind: 'xjmf', messageType: 'QueryKnownMessages', messageId: 'Q2' })!.body).XJMF;
    assert.equal(xknown.ResponseKnownMessages.Header['@refID'], 'Q2');
    assert.deepEqual(xknown.ResponseKnownMessages.MessageService.map((m: Record<string, string>) => m['@Type']),
      ['CommandSubmitQueueEntry', 'QueryKnownMessages', 'SignalStatus']);
    const methods = parseResponse(answerJmfQuery({ kind: 'jmf', messageType: 'SubmissionMethods' })!.body).JMF.Response;
    assert.equal(methods.SubmissionMethods['@URLSchemes'], 'cid');
    assert.equal(answerJmfQuery({ kind: 'jmf', messageType: 'QueueStatus' }), undefined);
    assert.equal(answerJmfQuery({ kind: 'xjmf', messageType: 'CommandSubmitQueueEntry' }), undefined);
  });
});
