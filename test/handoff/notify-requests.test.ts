// E-mail notifications of production's decisions on change and cancellation requests, end to end on SQLite and
// PostgreSQL: the real service and its e-mail channel, the reply sender out to a real smtp-server sink; a customer
// with notifications on asks for a change and a cancellation of orders production has started, production accepts
// one and refuses the other with a note, and the customer gets one Italian e-mail for each decision.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REQUEST_SUBSCRIBER_ID } from '../../src/handoff/notify.ts';
import { setNotifications } from '../../src/handoff/notify-settings.ts';
import { updateProductionState } from '../../src/handoff/production.ts';
import { decideRequest } from '../../src/intake/lifecycle.ts';
import { order, waitFor } from '../helpers/service.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../store/pg-schema.ts';
import { FAST_RETRY, startMail, startSink, type MailHarness, type Sink } from '../channels/mail/helpers.ts';

async function submit(h: MailHarness, body: Record<string, unknown>) {
  const c = (await h.t.service.store.getCustomerByCode('C001'))!;
  const { outcome } = await h.t.service.intake.submit({
    principal: { customerId: c.id, customerCode: 'C001' }, channel: 'rest', mediaType: 'application/json',
    raw: Buffer.from(JSON.stringify(body)), singleOrder: true,
  });
  const o = outcome.orders[0]!;
  assert.equal(o.esito, 'ok', JSON.stringify(outcome));
  return o;
}

async function notifiesDecisions(h: MailHarness, sink: Sink): Promise<void> {
  const store = h.t.service.store;
  await h.t.customer('C001');
  await setNotifications(store, 'C001', { enabled: true, address: 'produzione@cliente.it' });
  const changed = await submit(h, order('C001', 'REQ-1'));
  const kept = await submit(h, order('C001', 'REQ-2'));
  for (const o of [changed, kept]) {
    await updateProductionState({ store }, { orderId: o.id_ordine!, stato: 'in_lavorazione', integration: 'MIS' });
  }
  const change = await submit(h, { ...order('C001', 'REQ-1', { righe: [{ codice_articolo: 'BV-STD', quantita: 900, unita_misura: 'PZ' }] }), azione: 'modifica' });
  const cancel = await submit(h, { codice_cliente: 'C001', riferimento_ordine: 'REQ-2', azione: 'annulla', motivo: 'non serve più' });
  assert.ok(change.id_richiesta && cancel.id_richiesta, 'both became requests');

  await decideRequest({ store }, { orderId: changed.id_ordine!, requestId: change.id_richiesta, esito: 'accettata', nota: 'Ristampiamo\r\nBcc: spia@esempio.it', by: 'MIS' });
  await decideRequest({ store }, { orderId: kept.id_ordine!, requestId: cancel.id_richiesta, esito: 'rifiutata', nota: 'Già stampato', by: 'MIS' });

  const accepted = await waitFor(() => sink.messages.find((m) => /REQ-1\): richiesta/.test(m.parsed.subject ?? '')), 20_000, 'the accepted change');
  assert.equal(accepted.parsed.subject, `Ordine ${changed.numero_ordine} (rif. REQ-1): richiesta di modifica accettata`);
  assert.deepEqual(accepted.rcptTo, ['produzione@cliente.it']);
  assert.equal(accepted.parsed.headers.get('bcc'), undefined, 'the note added no header');
  const a = accepted.parsed.text ?? '';
  assert.match(a, new RegExp(`la Sua richiesta di modifica dell'ordine ${changed.numero_ordine} \\(Suo riferimento REQ-1\\) è stata accettata dalla produzione: l'ordine è stato modificato ed è ora alla versione 2\\.`));
  assert.match(a, /Nota della produzione: Ristampiamo Bcc: spia@esempio\.it\n/, 'the note on one line');
  assert.match(a, /Decisione del \d{2}\/\d{2}\/\d{4} \d{2}:\d{2} \(ora di Roma\)\./);

  const refused = await waitFor(() => sink.messages.find((m) => /REQ-2\): richiesta/.test(m.parsed.subject ?? '')), 20_000, 'the refused cancellation');
  assert.equal(refused.parsed.subject, `Ordine ${kept.numero_ordine} (rif. REQ-2): richiesta di annullamento rifiutata`);
  assert.match(refused.parsed.text ?? '', /è stata rifiutata dalla produzione: l'ordine resta com'era \(versione 1\) e la lavorazione prosegue\.\n\nNota della produzione: Già stampato\n/);

  // One delivery per decision, each made once; a decision retried emits nothing and sends nothing more.
  await decideRequest({ store }, { orderId: kept.id_ordine!, requestId: cancel.id_richiesta, esito: 'rifiutata', nota: 'Già stampato', by: 'MIS' });
  const done = await waitFor(async () => {
    const list = await store.listDeliveries({ subscriberId: REQUEST_SUBSCRIBER_ID });
    return list.length >= 2 && list.every((d) => d.state === 'done') ? list : undefined;
  }, 20_000, 'the decision deliveries made');
  assert.equal(done.length, 2);
  assert.equal(sink.messages.filter((m) => /: richiesta di /.test(m.parsed.subject ?? '')).length, 2, 'one e-mail per decision');
}

void describe('e-mail notifications of production\'s decisions on requests', () => {
  void it('sqlite', async () => {
    const sink = await startSink();
    const h = await startMail({ env: { INTAKE_SMTP_RELAY: sink.url }, retry: FAST_RETRY });
    try {
      await notifiesDecisions(h, sink);
    } finally {
      await h.close();
      await sink.close();
    }
  });

  void it('postgres', { skip: PG_SKIP }, async () => {
    const schema = await createSchema(testDatabaseUrl!, 'notify_requests');
    const sink = await startSink();
    const h = await startMail({ databaseUrl: schema.url, env: { INTAKE_SMTP_RELAY: sink.url }, retry: FAST_RETRY });
    try {
      await notifiesDecisions(h, sink);
    } finally {
      await h.close();
      await sink.close();
      await schema.drop();
    }
  });
});
