// Production status from a JMF connector, on SQLite and PostgreSQL, over real HTTP: an order registered from CIP4's
// own CommandSubmitQueueEntry sample (its QueueEntryID is the id_ordine), then XJMF SignalStatus and JMF 1.x
// Signal Type="Status" messages naming it. Mapped statuses change the production state (with its outbox event),
// Completed changes nothing, an impossible move and an unknown status are refused in-band with a ReturnCode and an
// Italian Comment, every XJMF answer validates against CIP4's schema, and another customer's connector cannot touch
// (nor learn of) the order.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { call, startConnectorService, xmlAttr, type ConnectorService } from './helpers.ts';
import { CIP4_ARTICLES, CIP4_SKIP, integratorConnector, schemaErrors, submitQueueEntryPackage, XJMF } from './cip4.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../../store/pg-schema.ts';
import { waitFor } from '../../helpers/service.ts';

const JMF = 'application/vnd.cip4-jmf+xml';

/** An XJMF SignalStatus as a press controller sends it (the header of CIP4's samples). */
function signalStatus(queueEntryId: string, status: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<XJMF xmlns="http://www.CIP4.org/JDFSchema_2_0" Version="2.1">
  <Header DeviceID="PRESS_1" Time="2026-11-25T10:00:00+01:00"/>
  <SignalStatus>
    <Header DeviceID="PRESS_1" ID="S${status}" Time="2026-11-25T10:00:00+01:00"/>
    <DeviceInfo Status="Production"><JobPhase JobID="JOB-42" QueueEntryID="${queueEntryId}" Status="${status}"/></DeviceInfo>
  </SignalStatus>
</XJMF>`;
}

/** The same in JMF 1.x. */
function jmfStatus(queueEntryId: string, status: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<JMF xmlns="http://www.CIP4.org/JDFSchema_1_1" SenderID="PRESS_1" TimeStamp="2026-11-25T10:00:00+01:00" Version="1.4">
  <Signal ID="M1" Type="Status"><DeviceInfo DeviceStatus="Running"><JobPhase JobID="JOB-42" QueueEntryID="${queueEntryId}" Status="${status}"/></DeviceInfo></Signal>
</JMF>`;
}

async function submitSample(svc: ConnectorService, key: string): Promise<string> {
  const { body, contentType } = submitQueueEntryPackage();
  const r = await call(`${svc.url}/api/v1/connettori/ordini`, { key, body, contentType });
  assert.match(r.text, /<ResponseSubmitQueueEntry ReturnCode="0">/, r.text);
  return xmlAttr(r.text, 'QueueEntryID')!;
}

async function statusFlow(env: Record<string, string>): Promise<void> {
  const svc = await startConnectorService(env);
  try {
    await svc.store.upsertArticles(CIP4_ARTICLES);
    await svc.site('VR', 'Verona');
    await svc.customer('K001');
    await svc.customer('K002');
    const mine = await integratorConnector(svc, 'K001', ['CUSTOMER-ID;K001']);
    const theirs = await integratorConnector(svc, 'K002', ['CUSTOMER-ID;K002']);
    const id = await submitSample(svc, mine.key);
    const send = (body: string, key = mine.key, type = XJMF) => call(`${svc.url}/api/v1/connettori/ordini`, { key, body, contentType: type });
    const state = async () => (await call(`${svc.url}/api/v1/connettori/ordini/${id}`, { key: mine.key })).json.stato_produzione;

    // Another customer's connector: not found, exactly like an order that does not exist, and nothing changes.
    const foreign = await send(signalStatus(id, 'InProgress'), theirs.key);
    assert.match(foreign.text, /<ResponseStatus ReturnCode="105">/, foreign.text);
    assert.match(foreign.text, /Nessun ordine con QueueEntryID/);
    assert.equal(await state(), undefined, 'another customer\'s connector changed nothing');

    const working = await send(signalStatus(id, 'InProgress'));
    assert.equal(working.status, 200);
    assert.match(working.text, /<ResponseStatus ReturnCode="0">/, working.text);
    assert.match(working.text, /Header[^>]*refID="SInProgress"/);
    assert.match(working.text, /stato di produzione &quot;in lavorazione&quot;/);
    assert.equal(await schemaErrors(working.text), '', 'the answer validates against xjdf.xsd');
    assert.equal(await state(), 'in_lavorazione');

    const done = await send(signalStatus(id, 'Completed'));
    assert.match(done.text, /ReturnCode="0"/);
    assert.match(done.text, /lo Status &quot;Completed&quot; non cambia lo stato di produzione \(resta &quot;in lavorazione&quot;\)/);
    assert.equal(await schemaErrors(done.text), '');

    const nonsense = await send(signalStatus(id, 'Flying'));
    assert.match(nonsense.text, /ReturnCode="6"/);
    assert.match(nonsense.text, /non è uno stato JDF/);

    // JMF 1.x: Aborted cancels; after that nothing moves it, and the device is told why.
    const aborted = await send(jmfStatus(id, 'Aborted'), mine.key, JMF);
    assert.match(aborted.text, /<Response [^>]*Type="Status"[^>]*refID="M1"[^>]*ReturnCode="0"/, aborted.text);
    assert.equal(await state(), 'annullato');
    const late = await send(jmfStatus(id, 'InProgress'), mine.key, JMF);
    assert.match(late.text, /ReturnCode="6"/);
    assert.match(late.text, /<Notification Class="Error"><Comment>L&apos;ordine \d{4}-\d{6} è &quot;annullato&quot; e non può passare a &quot;in lavorazione&quot;: lo stato &quot;annullato&quot; è definitivo/);

    const missing = await send(signalStatus(id, 'InProgress').replace(/ QueueEntryID="[^"]*"/, ''));
    assert.match(missing.text, /ReturnCode="7"/);
    assert.equal(await schemaErrors(missing.text), '');

    // Each change was written with its event: in_lavorazione, then annullato.
    // On PostgreSQL an event is readable a moment after its commit (docs/development/outbox.md): wait for both.
    const events = await waitFor(async () => {
      const got = (await svc.store.readEvents(null, 1000)).filter((e) => e.type === 'ordine.stato_aggiornato' && e.data.id_ordine === id);
      return got.length >= 2 ? got : undefined;
    }, 10_000, 'the two status events');
    assert.deepEqual(events.map((e) => e.data.stato_produzione), ['in_lavorazione', 'annullato']);
  } finally {
    await svc.close();
  }
}

void describe('production status from a JMF connector', { skip: CIP4_SKIP }, () => {
  void it('sqlite', () => statusFlow({}));
  void it('postgres', { skip: PG_SKIP }, async () => {
    const schema = await createSchema(testDatabaseUrl!, 'jmf_status');
    try {
      await statusFlow({ INTAKE_DATABASE_URL: schema.url });
    } finally {
      await schema.drop();
    }
  });
});
