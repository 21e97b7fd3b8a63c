// Changing and cancelling orders by e-mail, on SQLite and PostgreSQL: a CSV with the azione and motivo columns sent
// with swaks (a real SMTP client) acts on orders registered earlier, and the reply says in Italian what became of
// each (a new version with its lines, a cancellation, a request forwarded to production, a refusal with its reason);
// its esito.json carries versione, stato and id_richiesta for programs.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { updateProductionState } from '../../../src/handoff/production.ts';
import { order, type TestCustomer } from '../../helpers/service.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../../store/pg-schema.ts';
import { FAST_RETRY, received, startMail, startSink, type MailHarness, type Sink } from './helpers.ts';

for (const backend of ['sqlite', 'postgres'] as const) void describe(`e-mail: changing and cancelling orders by file (${backend})`,
  { skip: backend === 'postgres' ? PG_SKIP : false }, () => {
  let sink: Sink;
  let h: MailHarness;
  let c1: TestCustomer;
  let dir: string;
  let drop: (() => Promise<void>) | undefined;

  before(async () => {
    sink = await startSink();
    const schema = backend === 'postgres' ? await createSchema(testDatabaseUrl!, 'mail_lifecycle') : undefined;
    drop = schema?.drop;
    h = await startMail({ env: { INTAKE_SMTP_RELAY: sink.url }, retry: FAST_RETRY, ...(schema ? { databaseUrl: schema.url } : {}) });
    c1 = await h.t.customer('C001');
    dir = mkdtempSync(path.join(tmpdir(), 'mail-lifecycle-'));
  });
  after(async () => {
    await h?.close();
    await sink?.close();
    await drop?.();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // This harness runs the mail channel without HTTP: orders are registered and production reports given in-process,
  // the way the REST routes hand them to the core.
  const register = async (ref: string): Promise<{ id_ordine: string; numero_ordine: string }> => {
    const customer = (await h.t.service.store.getCustomerByCode('C001'))!;
    const { outcome } = await h.t.service.intake.submit({
      principal: { customerId: customer.id, customerCode: 'C001' }, channel: 'rest', mediaType: 'application/json',
      singleOrder: true, raw: Buffer.from(JSON.stringify(order('C001', ref))), meta: {},
    });
    const o = outcome.orders[0]!;
    assert.equal(o.esito, 'ok');
    return { id_ordine: o.id_ordine!, numero_ordine: o.numero_ordine! };
  };
  const production = async (orderId: string, stato: 'in_lavorazione' | 'spedito') => {
    assert.equal((await updateProductionState({ store: h.t.service.store }, { orderId, stato, integration: 'MIS' })).changed, true);
  };

  /** swaks runs beside the in-process server: asynchronously, or the server could not answer it. */
  function swaks(subject: string, file: string): Promise<void> {
    const args = ['--server', `127.0.0.1:${h.smtpPort}`, '--to', c1.mailbox, '--from', 'acquisti@cliente.it',
      '--header', `Subject: ${subject}`, '--body', 'Modifiche e annullamenti in allegato.',
      '--attach-type', 'text/csv', '--attach-name', path.basename(file), '--attach', file, '--silent', '2'];
    return new Promise((resolve, reject) => {
      execFile('swaks', args, { timeout: 20_000 }, (err, stdout, stderr) => (err ? reject(new Error(`swaks: ${err.message} ${stderr}${stdout}`)) : resolve()));
    });
  }

  void it('the reply says which order was modified (with its new lines), cancelled, forwarded or refused', async () => {
    const changed = await register('MLC-1');
    const cancelled = await register('MLC-2');
    const started = await register('MLC-3');
    const shipped = await register('MLC-4');
    await production(started.id_ordine, 'in_lavorazione');
    await production(shipped.id_ordine, 'spedito');
    const file = path.join(dir, 'modifiche.csv');
    writeFileSync(file, [
      'codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura;azione;motivo',
      'C001;MLC-1;2026-11-20;BV-STD;750;PZ;modifica;più biglietti',
      'C001;MLC-1;2026-11-20;CAR-A4-80;2,5;RS;modifica;più biglietti',
      'C001;MLC-2;;;;;annulla;ordinato per errore',
      'C001;MLC-3;;;;;annulla;non serve più',
      'C001;MLC-4;2026-11-20;BV-STD;1;PZ;modifica;',
    ].join('\r\n'));
    await swaks('Modifiche ordini', file);

    const reply = await received(sink, (m) => /Modifiche ordini/.test(m.parsed.subject ?? ''));
    assert.equal(reply.parsed.subject,
      'Re: Modifiche ordini [esito: ERRORE, 1 ordine modificato, 1 ordine annullato, 1 richiesta inoltrata alla produzione, 1 ordine con errori]');
    const text = reply.parsed.text ?? '';
    assert.match(text, new RegExp(`Ordine 1 \\(riferimento MLC-1\\): Ordine ${changed.numero_ordine} modificato: versione 2\\n`
      + '  Righe della versione 2:\\n {4}BV-STD \\(Biglietti da visita\\): 750 PZ\\n {4}CAR-A4-80 \\(Carta A4 80g\\): 2,5 RS\\n'));
    assert.match(text, new RegExp(`Ordine 2 \\(riferimento MLC-2\\): Ordine ${cancelled.numero_ordine} annullato\\nOrdine 3`),
      'a cancellation shows no lines');
    const forwarded = new RegExp(`Ordine 3 \\(riferimento MLC-3\\): Ordine ${started.numero_ordine} in lavorazione: richiesta di annullamento inoltrata alla produzione \\(richiesta ([^)]+)\\); riceverà l'esito\\n`);
    assert.match(text, forwarded);
    assert.match(text, new RegExp(`Ordine 4 \\(riferimento MLC-4, riga 6 del file\\): modifica NON applicata \\(l'ordine ${shipped.numero_ordine} resta alla versione 1\\)\\n`
      + `  - L'ordine ${shipped.numero_ordine} è già stato spedito`));
    assert.match(reply.parsed.html || '', /modificato: versione 2/);

    const json = JSON.parse(reply.parsed.attachments.find((a) => a.filename === 'esito.json')!.content.toString('utf8')) as
      { file: { ordini: Record<string, unknown>[] }[] };
    const [one, two, three, four] = json.file[0]!.ordini;
    assert.deepEqual([one!.azione, one!.versione, one!.id_ordine], ['modifica', 2, changed.id_ordine]);
    assert.deepEqual((one!.righe_registrate as { quantita: number }[]).map((r) => r.quantita), [750, 2.5]);
    assert.deepEqual([two!.azione, two!.stato, two!.righe_registrate], ['annulla', 'annullato', undefined]);
    assert.equal(three!.stato_richiesta, 'in_attesa');
    assert.equal(three!.id_richiesta, forwarded.exec(text)![1]);
    assert.equal(three!.righe_registrate, undefined, 'a request registered nothing yet');
    assert.deepEqual([four!.esito, four!.codice, four!.numero_ordine, four!.versione], ['errore', 'ORDER_LOCKED', shipped.numero_ordine, 1]);

    const customer = (await h.t.service.store.getCustomerByCode('C001'))!;
    assert.equal((await h.t.service.store.getOrder(customer.id, cancelled.id_ordine))!.productionState, 'annullato');
  });
});
