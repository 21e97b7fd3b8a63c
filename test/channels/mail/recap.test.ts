// Issue 43 on the e-mail channel, with a real SMTP client (nodemailer) and a relay that keeps what it is given: the
// reply recaps the registered lines of each accepted order (the quantity as the store holds it), and when the order
// desk registers a refused order ("Correggi e registra": a console submission correcting the e-mailed one, as
// src/channels/web/console/correct.ts submits it), the customer gets a second e-mail with the number and the recap.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startMail, startSink, received, FAST_RETRY, type MailHarness, type Sink } from './helpers.ts';
import { waitFor, type TestCustomer } from '../../helpers/service.ts';
import { correctionNotices, noticeId } from '../../../src/channels/mail/corrections.ts';
import { createIntake } from '../../../src/intake/intake.ts';
import { createLogger } from '../../../src/log.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../../store/pg-schema.ts';

const CSV = [
  'codice_cliente;riferimento_ordine;data_ordine;data_consegna;codice_articolo;quantita;unita_misura',
  'C001;RIEP-1;2026-11-20;2026-12-01;BV-STD;1500;PZ',
  'C001;RIEP-1;2026-11-20;2026-12-01;CAR-A4-80;2,5;RS',
  'C001;RIEP-2;2026-11-20;2026-12-01;BV-XXX;300;PZ',
].join('\r\n');

for (const backend of ['sqlite', 'postgres'] as const) void describe(`e-mail: recap of registered lines and the correction notice (${backend})`,
  { skip: backend === 'postgres' ? PG_SKIP : false }, () => {
  let sink: Sink;
  let h: MailHarness;
  let c001: TestCustomer;
  let drop: (() => Promise<void>) | undefined;

  before(async () => {
    sink = await startSink();
    const schema = backend === 'postgres' ? await createSchema(testDatabaseUrl!, 'recap') : undefined;
    drop = schema?.drop;
    h = await startMail({ env: { INTAKE_SMTP_RELAY: sink.url }, retry: FAST_RETRY, ...(schema ? { databaseUrl: schema.url } : {}) });
    c001 = await h.t.customer('C001');
  });
  after(async () => {
    await h?.close();
    await sink?.close();
    await drop?.();
  });

  void it('recaps the accepted order\'s lines in the reply; a correction sends a second e-mail with the number', async () => {
    await h.send({
      to: c001.mailbox, replyTo: 'acquisti@cliente.it', subject: 'Ordini con riepilogo',
      attachments: [{ filename: 'ordini.csv', content: CSV, contentType: 'text/csv' }],
    });
    const reply = await received(sink, (m) => /Ordini con riepilogo/.test(m.parsed.subject ?? ''));
    const text = reply.parsed.text ?? '';
    assert.match(text, /Ordine 1 \(riferimento RIEP-1\): registrato con numero \d{4}-\d{6}/);
    assert.match(text, /Righe registrate:\n {4}BV-STD \(Biglietti da visita\): 1500 PZ\n {4}CAR-A4-80 \(Carta A4 80g\): 2,5 RS\n/);
    assert.match(text, /Ordine 2 \(riferimento RIEP-2, riga \d+ del file\): NON registrato/);
    assert.doesNotMatch(text, /1\.500|1,500/, 'no thousands separator');
    assert.match(reply.parsed.html || '', /BV-STD \(Biglietti da visita\): 1500 PZ/);
    const attachment = reply.parsed.attachments.find((a) => a.filename === 'esito.json');
    const json = JSON.parse(attachment!.content.toString('utf8')) as { file: { ordini: { esito: string; righe_registrate?: unknown[] }[] }[] };
    assert.deepEqual(json.file[0]!.ordini[0]!.righe_registrate, [
      { codice_articolo: 'BV-STD', descrizione: 'Biglietti da visita', quantita: 1500, unita_misura: 'PZ' },
      { codice_articolo: 'CAR-A4-80', descrizione: 'Carta A4 80g', quantita: 2.5, unita_misura: 'RS' },
    ]);
    assert.equal(json.file[0]!.ordini[1]!.righe_registrate, undefined, 'a refused order has no registered lines');

    // The order desk corrects the refused order, as the console's "Correggi e registra" submits it.
    const { store, intake } = h.t.service;
    const customer = (await store.getCustomerByCode('C001'))!;
    const refused = (await store.listSubmissions({ customerId: customer.id })).find((s) => s.fileName === 'ordini.csv')!;
    const correct = (quantita: number) => intake.submit({
      principal: { customerId: customer.id, customerCode: 'C001' }, channel: 'console', fileName: `correzione-${refused.id}.json`,
      mediaType: 'application/json', singleOrder: true,
      raw: Buffer.from(JSON.stringify({
        codice_cliente: 'C001', riferimento_ordine: 'RIEP-2', data_ordine: '2026-11-20', data_consegna: '2026-12-01',
        righe: [{ codice_articolo: 'VOL-A4', quantita, unita_misura: 'PZ' }],
      })),
      meta: { corregge: refused.id, ordine: '1', operatore: 'ops@example.com' },
    });
    const first = await correct(300);
    assert.equal(first.outcome.esito, 'ok');
    const numero = first.outcome.orders[0]!.numero_ordine!;
    const notice = await received(sink, (m) => (m.parsed.subject ?? '').includes(numero), 15_000, 'the correction notice');
    assert.deepEqual(notice.rcptTo, ['acquisti@cliente.it'], 'to the address the first reply went to');
    assert.deepEqual(reply.rcptTo, ['acquisti@cliente.it']);
    assert.equal(notice.parsed.subject, `Ordine ${numero} (rif. RIEP-2) registrato dall'ufficio ordini`);
    const body = notice.parsed.text ?? '';
    assert.match(body, new RegExp(`L'ufficio ordini lo ha corretto e registrato con il numero ${numero}\\.`));
    assert.match(body, /Righe registrate:\n {4}VOL-A4 \(Volantini A4\): 300 PZ\n/);
    assert.equal(notice.parsed.inReplyTo, reply.parsed.inReplyTo, 'threaded under the customer\'s message');

    // A second correction of the same refused order: the reference is registered, so the core answers a duplicate.
    const second = await correct(400);
    assert.equal(second.outcome.esito, 'ok');
    assert.equal(second.outcome.orders[0]!.duplicate, true);
    assert.equal(second.outcome.orders[0]!.numero_ordine, numero);
    // An order registered after both corrections: once its event is readable, so is everything committed before it
    // (on PostgreSQL events become readable a moment after their commit).
    const marker = await intake.submit({
      principal: { customerId: customer.id, customerCode: 'C001' }, channel: 'rest', mediaType: 'application/json', singleOrder: true,
      raw: Buffer.from(JSON.stringify({ codice_cliente: 'C001', riferimento_ordine: 'DOPO', data_ordine: '2026-11-20', righe: [{ codice_articolo: 'BV-STD', quantita: 1, unita_misura: 'PZ' }] })),
    });
    assert.equal(marker.outcome.esito, 'ok');
    const events = await waitFor(async () => {
      const all = await store.readEvents(null, 1000);
      return all.some((e) => e.type === 'ordine.registrato' && e.data.riferimento_ordine === 'DOPO') ? all : undefined;
    }, 120_000, 'the marker order on the event feed');
    const refusals = events.filter((e) => e.type === 'ordine.rifiutato' && e.data.riferimento_ordine === 'RIEP-2');
    assert.equal(refusals.length, 1, 'only the e-mailed file\'s refusal, none for the corrections');
    // One notice only: the duplicate tells the customer nothing new (its notice would have been queued by now).
    await h.t.service.intake.idle();
    const notices = await waitFor(async () => (await store.listReplies({ customerId: customer.id })).filter((r) => r.kind === 'notification'), 5_000);
    assert.equal(notices.length, 1);
    assert.equal(notices[0]!.state === 'sent' || notices[0]!.state === 'pending', true);
  });

  void it('a notice the process did not live to queue is queued by the catch-up, once', async () => {
    await h.send({
      to: c001.mailbox, subject: 'Ordine da correggere',
      attachments: [{ filename: 'errato.json', contentType: 'application/json',
        content: JSON.stringify({ codice_cliente: 'C001', riferimento_ordine: 'CATCH-1', data_ordine: '2026-11-20', righe: [{ codice_articolo: 'NO-SUCH', quantita: 2, unita_misura: 'PZ' }] }) }],
    });
    await received(sink, (m) => /Ordine da correggere/.test(m.parsed.subject ?? ''));
    const { store } = h.t.service;
    const customer = (await store.getCustomerByCode('C001'))!;
    const refused = (await store.listSubmissions({ customerId: customer.id })).find((s) => s.fileName === 'errato.json')!;
    // Recorded by an intake no mail channel listens to: the correction is committed, its notice never queued, as when
    // the process dies between the two.
    const bare = createIntake({ store, timeZone: 'Europe/Rome', log: createLogger('silent') });
    const { submission, outcome } = await bare.submit({
      principal: { customerId: customer.id, customerCode: 'C001' }, channel: 'console', fileName: `correzione-${refused.id}.json`,
      mediaType: 'application/json', singleOrder: true, meta: { corregge: refused.id, ordine: '0', operatore: 'ops@example.com' },
      raw: Buffer.from(JSON.stringify({ codice_cliente: 'C001', riferimento_ordine: 'CATCH-1', data_ordine: '2026-11-20', righe: [{ codice_articolo: 'BV-STD', quantita: 2, unita_misura: 'PZ' }] })),
    });
    await bare.stop();
    assert.equal(outcome.esito, 'ok');
    assert.equal(await store.getReply(noticeId(submission.id)), undefined, 'nothing queued yet');
    let kicked = 0;
    const notices = correctionNotices({ store, log: createLogger('silent'), mailDomain: 'ordini.test', timeZone: 'Europe/Rome', onQueued: () => kicked++ });
    assert.equal(await notices.catchUp(), 1);
    assert.equal(await notices.catchUp(), 0, 'queued once');
    assert.equal(kicked, 1);
    h.channels.kickReplies();
    const notice = await received(sink, (m) => (m.parsed.subject ?? '').includes(outcome.orders[0]!.numero_ordine!), 15_000, 'the notice');
    assert.deepEqual(notice.rcptTo, ['mario@cliente.it']);
    assert.match(notice.parsed.text ?? '', / {4}BV-STD \(Biglietti da visita\): 2 PZ\n/);
  });
});
