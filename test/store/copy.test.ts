// `db copy`: a SQLite installation built through the real code (customers, credentials, catalog, submissions
// judged by the real intake, one left unprocessed; e-mail received, derived and answered by the real pipeline, an
// IMAP mailbox; sites and connectors) is copied into a fresh PostgreSQL schema and read back through the store port
// on both sides, and the copied installation is put to work. Skipped, visibly, without INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { createHash, randomUUID } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { DEFAULT_UNITS } from '../../src/catalog/units.ts';
import { startOutbox } from '../../src/channels/mail/outbox.ts';
import { createPipeline } from '../../src/channels/mail/pipeline.ts';
import { openSecret, sealSecret } from '../../src/auth/secret-box.ts';
import { provisionCustomer } from '../../src/customers/provision.ts';
import { addOperator } from '../../src/operators/accounts.ts';
import { IntakeError } from '../../src/domain/errors.ts';
import { createIntake, type Intake } from '../../src/intake/intake.ts';
import type { Order } from '../../src/domain/types.ts';
import { createLogger } from '../../src/log.ts';
import { copySqliteToPostgres, type CopyResult } from '../../src/store/copy/copy.ts';
import { SPEC_TABLES } from '../../src/store/copy/list.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { adminQuery, createSchema, PG_SKIP, testDatabaseUrl, type TestSchema } from './pg-schema.ts';
import { waitFor } from '../helpers/service.ts';
import { startSink } from '../channels/mail/helpers.ts';
import { readWhen } from '../helpers/wait.ts';

const log = createLogger('silent');

function orderJson(ref: string, quantita = 100): Order {
  return {
    codice_cliente: 'C001', riferimento_ordine: ref, data_ordine: '2026-03-01', data_consegna: '2026-03-20',
    righe: [{ codice_articolo: 'BV-STD', quantita, unita_misura: 'PZ' }, { codice_articolo: 'VOL-A4', quantita: 2.5, unita_misura: 'pz' }],
  };
}

interface Installation {
  dir: string;
  file: string;
  store: Store;
  intake: Intake;
  customerId: string;
  pending: string;
}

/** A SQLite installation as `serve` would leave it, with one submission received and not yet processed. */
async function installation(): Promise<Installation> {
  const dir = await mkdtemp(path.join(tmpdir(), 'intake-copy-'));
  const file = path.join(dir, 'intake.sqlite');
  const store = await openSqliteStore(file);
  await store.migrate();
  await store.upsertUnits(DEFAULT_UNITS);
  await store.upsertArticles([
    { codice_articolo: 'BV-STD', descrizione: 'Biglietti da visita', unita_misura: 'PZ' },
    { codice_articolo: 'VOL-A4', descrizione: 'Volantini A4 — àèì €', unita_misura: 'PZ', demo: true },
  ]);
  const c1 = await provisionCustomer(store, { code: 'C001', name: 'Tipografia Rossi' }, 'ordini.test');
  await provisionCustomer(store, { code: 'C002', name: 'Cartoleria Bianchi' }, 'ordini.test');
  await store.revokeCredentials(c1.customer.id, 'api_key');
  const intake = createIntake({ store, timeZone: 'Europe/Rome', log });
  const principal = { customerId: c1.customer.id, customerCode: 'C001' };
  await intake.submit({ principal, channel: 'rest', mediaType: 'application/json', raw: Buffer.from(JSON.stringify(orderJson('R-1'))), singleOrder: true });
  await intake.submit({ principal, channel: 'sftp', fileName: 'due.json', raw: Buffer.from(JSON.stringify([{ ...orderJson('R-2'), note: 'Consegna al piano terra.\nGrazie.' }, orderJson('R-3', 7)])) });
  await intake.submit({ principal, channel: 'ftp', fileName: 'rotto.csv', raw: Buffer.from([0xff, 0xfe, 0x00, 0x41, 0xc3, 0x28]) });
  await intake.submit({ principal, channel: 'email', fileName: 'dup.json', raw: Buffer.from(JSON.stringify(orderJson('R-1'))) });
  const pending = await intake.receive({ principal, channel: 'ftp', fileName: 'dopo.json', raw: Buffer.from(JSON.stringify(orderJson('R-4'))) });
  return { dir, file, store, intake, customerId: c1.customer.id, pending: pending.id };
}

/** Everything the port shows about an installation, for comparing the two sides. */
async function snapshot(store: Store) {
  const customers = await store.listCustomers();
  const summaries = await store.listSubmissions({ limit: 1000 });
  const submissions = await Promise.all(summaries.map((s) => store.getSubmission(s.id)));
  const refs = ['R-1', 'R-2', 'R-3', 'R-4', 'R-5'];
  return {
    customers,
    credentials: await Promise.all(['c001', 'c002'].map((u) => store.findCredential('password', u))),
    articles: await store.countArticles(),
    known: await store.knownArticles(['BV-STD', 'VOL-A4', 'NOPE']),
    inactive: await store.listInactiveArticles(100),
    catalog: await store.searchArticles({ text: '', limit: 10, demo: true }),
    units: await store.listUnits(),
    submissions,
    orders: await store.listOrders({ limit: 1000 }),
    attempts: await Promise.all(customers.flatMap((c) => refs.map((r) => store.latestAttempt(c.id, r)))),
  };
}

const SECRET_KEY = createHash('sha256').update('copy test key').digest('hex');

function orderMail(subject: string, files: Record<string, unknown>): Promise<Buffer> {
  return new MailComposer({
    from: 'Mario Rossi <mario@cliente.it>', to: 'c001@ordini.test', subject, text: 'In allegato.',
    messageId: `<${randomUUID()}@cliente.it>`,
    attachments: Object.entries(files).map(([filename, content]) => ({ filename, content: JSON.stringify(content) })),
  }).compile().build();
}

interface MailFacts {
  /** A message stored and not yet derived (the SQLite service stopped before it got to it). */
  pendingMail: string;
  /** The reply left queued (the other one was sent). */
  queuedReply: string;
  connectorId: string;
}

/**
 * The installation also used e-mail, through the real pipeline: two messages derived and answered (one reply sent,
 * one still queued), one received and not derived, and an IMAP mailbox with its sealed password; and, when this
 * release has them, a site and a connector with a lookup table.
 */
async function useEmail(src: Installation): Promise<MailFacts> {
  const { store, intake } = src;
  const pipeline = createPipeline({
    store, intake, log, mailDomain: 'ordini.test', timeZone: 'Europe/Rome', maxFileBytes: 1024 * 1024, onReplyQueued: () => undefined,
    claimMs: 60_000, holder: 'copy-test',
  });
  const ids = [randomUUID(), randomUUID(), randomUUID()];
  const raws = await Promise.all([
    orderMail('Ordine M-1', { 'm1.json': orderJson('M-1') }),
    orderMail('Ordini M-2', { 'm2.json': orderJson('M-2'), 'm3.json': orderJson('M-3', 3) }),
    orderMail('Ordine M-4', { 'm4.json': orderJson('M-4') }),
  ]);
  await store.saveMailMessages(ids.map((id, i) => ({
    id, customerId: src.customerId, source: 'smtp', envelopeFrom: 'mario@cliente.it', recipients: ['c001@ordini.test'], raw: raws[i]!,
    sha256: createHash('sha256').update(raws[i]!).digest('hex'), remote: '192.0.2.7', receivedAt: new Date(Date.now() - 60_000 + i).toISOString(),
  })));
  for (const id of ids.slice(0, 2)) pipeline.start(id);
  await pipeline.idle();
  const due = await store.claimDueReplies(60_000, 10);
  assert.equal(due.length, 2, 'two replies queued');
  await store.markReplySent(due[0]!.id);
  await store.markReplyFailed(due[1]!.id, '451 4.3.0 relay busy', 1);
  await store.setImapAccount({
    id: randomUUID(), customerId: src.customerId, host: 'imap.cliente.it', port: 993, tls: true, username: 'ordini@cliente.it',
    passwordEnc: sealSecret(SECRET_KEY, 'segreto-imap', src.customerId), folder: 'INBOX', processedFolder: 'Elaborati',
  });
  const account = (await store.getImapAccount(src.customerId))!;
  await store.saveImapState(account.id, { uidValidity: '4000000000', lastUid: 4_000_000_000, lastError: 'timeout' });
  await store.setNotifySettings(src.customerId, { enabled: true, address: 'Produzione@Cliente.it' });
  // Who may order by e-mail (migration 036).
  await store.setMailPolicy(src.customerId, { mode: 'elenco', allow: ['ordini@cliente.it', '@cliente.it'], notifyHeld: false });
  await store.createSite({ code: 'VR', name: 'Verona' });
  const made = await store.createConnector({
    id: randomUUID(), customerId: src.customerId, name: 'Switch Verona', format: 'json', sites: ['VR'], allowIps: ['10.0.0.0/8'],
    mapping: '$', key: { credentialId: randomUUID(), keyId: 'k1', secretHash: 'sha256$x' }, productKey: '{@DescriptiveName}',
  });
  await store.replaceConnectorLookup(made.id, [
    { productKey: 'biglietti', codice_articolo: 'BV-STD' }, { productKey: 'volantini', codice_articolo: 'VOL-A4', unita_misura: 'PZ' },
  ]);
  // Migration 009: the connector's customer table, and a ticket's details kept with an order.
  await store.replaceConnectorCustomerIds(made.id, [{ externalId: 'MIS-0042', customerId: src.customerId }]);
  const [order] = await store.listOrders({ customerId: src.customerId, limit: 1 });
  await store.saveOrderTickets([{ orderId: order!.id_ordine, details: JSON.stringify({ formato: 'xjdf', file: ['http://example.org/a.pdf'] }) }]);
  return { pendingMail: ids[2]!, queuedReply: due[1]!.id, connectorId: made.id };
}

/** Everything the port shows about e-mail (and connectors, when present), for comparing the two sides. */
async function mailSnapshot(store: Store, customerId: string) {
  const messages = await store.listMailMessages({ limit: 100 });
  const replies = await store.listReplies({ limit: 100 });
  const connectors = await store.listConnectors({});
  return {
    messages: await Promise.all(messages.map((m) => store.getMailMessage(m.id))),
    parts: await Promise.all(messages.map((m) => store.mailParts(m.id))),
    replies: await Promise.all(replies.map((r) => store.getReply(r.id))),
    imap: await store.listImapAccounts(),
    imapOfCustomer: await store.getImapAccount(customerId),
    sites: await store.listSites(),
    connectors,
    lookups: await Promise.all(connectors.map((c) => store.connectorLookup(c.id))),
    customerTables: await Promise.all(connectors.map((c) => store.connectorCustomerIds(c.id))),
    tickets: await Promise.all((await store.listOrders({ customerId, limit: 100 })).map((o) => store.orderTicket(customerId, o.id_ordine))),
  };
}

function written(result: CopyResult): Record<string, number> {
  return Object.fromEntries(result.tables.map((t) => [t.table, t.written]));
}

async function withCopySetup(fn: (src: Installation, schema: TestSchema, target: Store) => Promise<void>): Promise<void> {
  const src = await installation();
  const schema = await createSchema(testDatabaseUrl!, 'copy');
  let target: Store | undefined;
  try {
    target = await openPostgresStore(schema.url);
    await fn(src, schema, target);
  } finally {
    await target?.close();
    await src.store.close();
    await schema.drop();
    await rm(src.dir, { recursive: true, force: true });
  }
}

void describe('db copy from SQLite to PostgreSQL', { skip: PG_SKIP }, () => {
  void it('copies everything exactly, and a second run writes nothing', () => withCopySetup(async (src, schema, target) => {
    const progress: number[] = [];
    const first = await copySqliteToPostgres({ from: src.file, to: schema.url, pageSize: 2, onProgress: (p) => progress.push(p.done) });
    const rows = Object.fromEntries(first.tables.map((t) => [t.table, t.rows]));
    const none = Object.fromEntries(SPEC_TABLES.map((spec) => [spec.table, 0]));
    assert.deepEqual(rows, { customers: 2, credentials: 4, articles: 2, units: DEFAULT_UNITS.length, submissions: 5, orders: 3, order_sequences: 1, order_events: 4, ...none });
    assert.deepEqual(written(first), rows);
    // The stream keeps its order and its event ids (webhook-id); only cursors are the target's own.
    const stream = async (s: Store) => (await s.readEvents(null, 1000)).map(({ cursor: _c, ...e }) => e);
    const expected = await stream(src.store);
    // Readable on PostgreSQL once the server's older writing transactions (other tests') have ended: wait, bounded.
    const copied = await readWhen(() => stream(target), (got) => got.length >= expected.length, 15_000);
    assert.deepEqual(copied, expected);
    assert.equal(progress.at(-1), Object.values(rows).reduce((a, b) => a + b, 0), 'the progress reaches the total');
    assert.deepEqual(progress, [...progress].sort((a, b) => a - b), 'progress only grows');

    assert.deepEqual(await snapshot(target), await snapshot(src.store));
    const raw = (await target.listSubmissions({ limit: 10 })).find((s) => s.fileName === 'rotto.csv');
    assert.deepEqual((await target.getSubmission(raw!.id))?.raw, Buffer.from([0xff, 0xfe, 0x00, 0x41, 0xc3, 0x28]));

    const again = await copySqliteToPostgres({ from: src.file, to: schema.url });
    assert.ok(Object.values(written(again)).every((n) => n === 0), JSON.stringify(written(again)));
    assert.deepEqual(await snapshot(target), await snapshot(src.store));
  }));

  void it('picks up what arrived and changed since, and numbering continues after the copied numbers', () => withCopySetup(async (src, schema, target) => {
    await copySqliteToPostgres({ from: src.file, to: schema.url });
    // Meanwhile the SQLite service goes on: the pending one is processed, a new order arrives, a password changes.
    await src.intake.process(src.pending);
    const principal = { customerId: src.customerId, customerCode: 'C001' };
    await src.intake.submit({ principal, channel: 'rest', mediaType: 'application/json', raw: Buffer.from(JSON.stringify(orderJson('R-5'))), singleOrder: true });
    // A change of an order copied before: its new content and lines follow, and its superseded version is copied.
    const change = { ...orderJson('R-1', 42), azione: 'modifica' };
    const changed = await src.intake.submit({ principal, channel: 'rest', mediaType: 'application/json', raw: Buffer.from(JSON.stringify(change)), singleOrder: true });
    assert.equal(changed.outcome.orders[0]?.versione, 2);
    await src.store.revokeCredentials(src.customerId, 'password');
    await src.store.addCredential({ id: 'new-password', customerId: src.customerId, kind: 'password', lookup: 'c001', secretHash: 'scrypt$new' });

    const final = await copySqliteToPostgres({ from: src.file, to: schema.url });
    const none = Object.fromEntries(SPEC_TABLES.map((spec) => [spec.table, 0]));
    assert.deepEqual(written(final), {
      customers: 0, credentials: 2, articles: 0, units: 0, submissions: 3, orders: 3, order_sequences: 1, order_events: 3, ...none, order_versions: 1,
    });
    assert.deepEqual(await snapshot(target), await snapshot(src.store));
    assert.equal((await target.findCredential('password', 'c001'))?.id, 'new-password');

    const numbers = (await target.listOrders({ limit: 100 })).map((o) => o.numero_ordine).sort();
    assert.deepEqual(numbers, ['2026-000001', '2026-000002', '2026-000003', '2026-000004', '2026-000005']);
    const sub = (await target.listSubmissions({ limit: 1 }))[0]!;
    const [next] = await target.registerOrders([{
      id: 'after-switch', customerId: src.customerId, submissionId: sub.id, channel: 'rest', year: 2026, contentHash: 'h',
      registeredAt: new Date().toISOString(), order: orderJson('R-6'),
    }]);
    assert.equal(next?.numero_ordine, '2026-000006');
  }));

  void it('follows a customer deactivated or reactivated on the source between passes', () => withCopySetup(async (src, schema, target) => {
    const c2 = (await src.store.getCustomerByCode('C002'))!;
    assert.ok(await src.store.setCustomerDeactivated(c2.id, true));
    await copySqliteToPostgres({ from: src.file, to: schema.url });
    assert.ok((await target.getCustomer(c2.id))?.deactivatedAt, 'copied deactivated');
    // Meanwhile, on the SQLite service: C001 is deactivated (it must not get in on the new database) and C002 is
    // let back in (its orders must not be refused there).
    assert.ok(await src.store.setCustomerDeactivated(src.customerId, true));
    assert.ok(await src.store.setCustomerDeactivated(c2.id, false));

    const final = await copySqliteToPostgres({ from: src.file, to: schema.url });
    assert.equal(written(final).customers, 2);
    assert.deepEqual(await target.listCustomers(), await src.store.listCustomers());
    assert.ok((await target.getCustomer(src.customerId))?.deactivatedAt, 'the customer deactivated since is deactivated on the target');
    assert.equal((await target.getCustomer(c2.id))?.deactivatedAt, undefined, 'the customer reactivated since is active on the target');
    const last = await copySqliteToPostgres({ from: src.file, to: schema.url });
    assert.equal(written(last).customers, 0, 'a pass over an unchanged source writes nothing');
  }));

  void it('carries a submission put back to received on the source between passes, and the target processes it', () => withCopySetup(async (src, schema, target) => {
    await copySqliteToPostgres({ from: src.file, to: schema.url });
    // An operator's "Rielabora" on the SQLite service puts the file back to received (resetSubmission) and then
    // judges it; the service stops before that judgement is recorded (or it fails, and the sweep has not come yet).
    const broken = (await src.store.listSubmissions({ limit: 100 })).find((s) => s.fileName === 'rotto.csv')!;
    await src.store.resetSubmission(broken.id);

    await copySqliteToPostgres({ from: src.file, to: schema.url });
    assert.equal((await target.getSubmission(broken.id))?.state, 'received', 'the target will process it again');
    assert.deepEqual(await snapshot(target), await snapshot(src.store));
    assert.deepEqual((await target.pendingSubmissionIds(100)).sort(), [src.pending, broken.id].sort(), 'the sweep of the target finds it');
  }));

  void it('copies an upload streamed into the SQLite store (migration 022) with its bytes, and not the pieces of an unfinished one', () => withCopySetup(async (src, schema, target) => {
    const piece = 1024 * 1024;
    const bytes = Buffer.alloc(2 * piece + 5, 0x41);
    const file = path.join(src.dir, 'streamed.csv');
    await writeFile(file, bytes);
    const id = randomUUID();
    await src.store.stageUploadPieces(id, { file, offset: 0, length: 2 * piece });
    await src.store.stageUploadPieces(randomUUID(), { file, offset: 0, length: piece }); // an upload cut before its end
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    await src.store.saveSubmission({
      id, customerId: src.customerId, customerCode: 'C001', channel: 'sftp', fileName: 'streamed.csv', raw: Buffer.alloc(0), meta: {},
      singleOrder: false, sha256, receivedAt: new Date().toISOString(), rawFile: { path: file, size: bytes.length, sha256, staged: { id, bytes: 2 * piece } },
    });
    await copySqliteToPostgres({ from: src.file, to: schema.url });
    assert.ok((await target.getSubmission(id))!.raw.equals(bytes));
    assert.equal((await target.listSubmissions({ limit: 100 })).find((s) => s.id === id)?.size, bytes.length);
    assert.equal(await target.sweepStagedUploads(new Date(Date.now() + 3_600_000).toISOString()), 0, 'the source\'s unfinished upload stays behind');
  }));

  void it('completes a copy that stopped half way, without duplicates', () => withCopySetup(async (src, schema, target) => {
    let pages = 0;
    await assert.rejects(copySqliteToPostgres({
      from: src.file, to: schema.url, pageSize: 1,
      onProgress: (p) => {
        // The connection dropping (or Ctrl-C) after two committed pages of submissions.
        if (p.table === 'submissions' && ++pages === 2) throw new Error('interrupted');
      },
    }), /interrupted/);
    assert.equal((await target.listSubmissions({})).length, 2, 'a partial copy');
    assert.equal((await target.listOrders({})).length, 0);
    await copySqliteToPostgres({ from: src.file, to: schema.url, pageSize: 1 });
    assert.deepEqual(await snapshot(target), await snapshot(src.store));
  }));

  void it('refuses, writing nothing, when the target holds a different order under the same identity', () => withCopySetup(async (src, schema, target) => {
    await target.migrate();
    // The target was used on its own: same customer code, and an order C001/R-1 of its own.
    const own = await target.createCustomer({ id: 'other-id', code: 'C001', name: 'Altro', mailbox: 'altro@ordini.test' });
    const sub = await target.saveSubmission({
      id: 'own-sub', customerId: own.id, customerCode: 'C001', channel: 'rest', raw: Buffer.from('x'), meta: {}, singleOrder: true,
      sha256: 'x', receivedAt: new Date().toISOString(),
    });
    await target.registerOrders([{
      id: 'own-order', customerId: own.id, submissionId: sub.id, channel: 'rest', year: 2026, contentHash: 'h',
      registeredAt: new Date().toISOString(), order: orderJson('R-1'),
    }]);
    await assert.rejects(copySqliteToPostgres({ from: src.file, to: schema.url }), (e: unknown) => {
      assert.ok(e instanceof IntakeError && e.code === 'CONFLICT');
      assert.match(e.message, /nothing was copied/);
      assert.match(e.message, /customer C001 exists in the target with another id/);
      assert.match(e.message, /order C001\/R-1 is 2026-000001 in the source, but the target has C001\/R-1 as 2026-000001/);
      return true;
    });
    assert.deepEqual((await target.listCustomers()).map((c) => c.id), ['other-id']);
    assert.equal(await target.countArticles(), 0);
  }));

  void it('copies an installation that used e-mail and connectors, twice without duplicates, and the copy works', () => withCopySetup(async (src, schema, target) => {
    const facts = await useEmail(src);
    // The console's tables too: an operator (and the audit entry its creation writes) and the cookie key.
    const { operator } = await addOperator(src.store, { email: 'ops@example.com', role: 'admin' });
    const cookieKey = await src.store.webKey('cookie', 'chiave-di-prova');
    // An article taken out of service (migration 031) stays out of service in the copy.
    await src.store.upsertArticles([{ codice_articolo: 'DEMO-1', descrizione: 'Articolo di prova', unita_misura: 'PZ' }]);
    await src.store.deactivateArticles(['DEMO-1']);
    // Peppol identifiers, GTINs and cross-references (migration 035).
    await src.store.setPeppolIds(src.customerId, [{ scheme: '0211', identifier: 'IT01234567890' }]);
    await src.store.upsertArticleGtins([{ gtin: '08001234567897', codice_articolo: 'DEMO-1' }]);
    await src.store.upsertArticleXrefs(src.customerId, [{ codice_cliente_articolo: 'ASL-1', codice_articolo: 'DEMO-1' }]);
    await src.store.recordUblChangeSequence('order-with-changes', 4);
    const progress: number[] = [];
    const first = await copySqliteToPostgres({ from: src.file, to: schema.url, pageSize: 2, onProgress: (p) => progress.push(p.done) });
    const rows = Object.fromEntries(first.tables.map((t) => [t.table, t.rows]));
    assert.deepEqual(rows, {
      customers: 2, credentials: 5, articles: 2, units: DEFAULT_UNITS.length, submissions: 8, orders: 6, order_sequences: 1, order_events: 7,
      mail_messages: 3, mail_parts: 3, mail_replies: 2, imap_accounts: 1, sites: 1, connectors: 1, connector_sites: 1, connector_lookup: 2,
      connector_customers: 1, connector_customer_ids: 1, order_tickets: 1, integrations: 0, order_production_history: 0, operators: 1, audit_log: 1, web_keys: 1, customer_notifications: 1,
      inactive_articles: 1, order_versions: 0, order_requests: 0, customer_mail_policies: 1, mail_holds: 0, customer_peppol_ids: 1, article_gtins: 1,
      article_xrefs: 1, ubl_change_sequences: 1,
    });
    assert.deepEqual(await target.getMailPolicy(src.customerId), await src.store.getMailPolicy(src.customerId));
    assert.equal(await target.ublChangeSequence('order-with-changes'), 4);
    assert.deepEqual(await target.listPeppolIds(src.customerId), [{ scheme: '0211', identifier: 'IT01234567890' }]);
    assert.equal((await target.articlesByGtin(['08001234567897'])).get('08001234567897'), 'DEMO-1');
    assert.equal((await target.articleXrefs(src.customerId, ['ASL-1'])).get('ASL-1'), 'DEMO-1');
    assert.deepEqual(await target.getOperatorByEmail('ops@example.com'), operator);
    assert.equal(await target.webKey('cookie', 'another'), cookieKey);
    assert.deepEqual((await target.listAudit({ limit: 5 })).map((e) => e.action), ['operator.add']);
    assert.deepEqual(written(first), rows);
    assert.equal(progress.at(-1), Object.values(rows).reduce((a, b) => a + b, 0), 'the progress counts the e-mail and connector rows too');
    assert.deepEqual(await snapshot(target), await snapshot(src.store));
    assert.deepEqual(await mailSnapshot(target, src.customerId), await mailSnapshot(src.store, src.customerId));

    const again = await copySqliteToPostgres({ from: src.file, to: schema.url });
    assert.ok(Object.values(written(again)).every((n) => n === 0), JSON.stringify(written(again)));
    assert.deepEqual(await mailSnapshot(target, src.customerId), await mailSnapshot(src.store, src.customerId));

    // The copied installation at work. The mailbox password opens with the same key, and only with it.
    const account = (await target.getImapAccount(src.customerId))!;
    assert.equal(openSecret(SECRET_KEY, account.passwordEnc, account.customerId), 'segreto-imap');
    assert.throws(() => openSecret(createHash('sha256').update('another key').digest('hex'), account.passwordEnc, account.customerId), /INTAKE_SECRET_KEY/);
    // The reply outbox sends what was queued, and not the reply already sent.
    const sink = await startSink();
    const outbox = startOutbox({ store: target, log, relay: sink.url, holder: 'copy-test', retry: { firstMs: 100, maxMs: 400, giveUpMs: 60_000, idleMs: 100 } });
    try {
      const queued = (await target.getReply(facts.queuedReply))!;
      outbox.kick();
      await waitFor(async () => ((await target.getReply(facts.queuedReply))?.state === 'sent' ? true : undefined), 10_000, 'the queued reply to be sent');
      assert.deepEqual(sink.messages.map((m) => m.parsed.subject), [queued.subject]);
      assert.match(queued.subject, /Ordini M-2/);
    } finally {
      await outbox.close();
      await sink.close();
    }
    // The message the SQLite service had not got to is derived by the target, numbered after the copied orders.
    const targetIntake = createIntake({ store: target, timeZone: 'Europe/Rome', log });
    const pipeline = createPipeline({
      store: target, intake: targetIntake, log, mailDomain: 'ordini.test', timeZone: 'Europe/Rome', maxFileBytes: 1024 * 1024,
      onReplyQueued: () => undefined, claimMs: 60_000, holder: 'copy-test',
    });
    assert.equal(await pipeline.sweep(), 1);
    assert.equal((await target.getMailMessage(facts.pendingMail))?.state, 'done');
    assert.equal((await target.getOrderByRef(src.customerId, 'M-4'))?.numero_ordine, '2026-000007');
    await targetIntake.stop();
  }));

  void it('follows the source between passes: derived mail, sent replies, a removed mailbox, a replaced lookup, a rotated key', () => withCopySetup(async (src, schema, target) => {
    const facts = await useEmail(src);
    await copySqliteToPostgres({ from: src.file, to: schema.url });
    const pipeline = createPipeline({
      store: src.store, intake: src.intake, log, mailDomain: 'ordini.test', timeZone: 'Europe/Rome', maxFileBytes: 1024 * 1024,
      onReplyQueued: () => undefined, claimMs: 60_000, holder: 'copy-test',
    });
    assert.equal(await pipeline.sweep(), 1);
    await src.store.markReplySent(facts.queuedReply);
    assert.ok(await src.store.removeImapAccount(src.customerId));
    await src.store.replaceConnectorLookup(facts.connectorId, [{ productKey: 'biglietti', codice_articolo: 'VOL-A4', unita_misura: 'PZ' }]);
    await src.store.rotateConnectorKey(facts.connectorId, { credentialId: randomUUID(), keyId: 'k2', secretHash: 'sha256$y' });

    const final = await copySqliteToPostgres({ from: src.file, to: schema.url });
    const none = Object.fromEntries(SPEC_TABLES.map((spec) => [spec.table, 0]));
    assert.deepEqual(written(final), {
      ...none, customers: 0, credentials: 2, articles: 0, units: 0, submissions: 1, orders: 1, order_sequences: 1, order_events: 1,
      mail_messages: 1, mail_parts: 1, mail_replies: 2, imap_accounts: 1, connectors: 1, connector_lookup: 2,
    });
    assert.deepEqual(await mailSnapshot(target, src.customerId), await mailSnapshot(src.store, src.customerId));
    assert.equal(await target.getImapAccount(src.customerId), undefined, 'a removed mailbox is no longer watched');
    assert.equal((await target.findConnectorByKey('k2'))?.connector.id, facts.connectorId);
    assert.equal(await target.findConnectorByKey('k1'), undefined, 'the rotated key no longer works');
    const last = await copySqliteToPostgres({ from: src.file, to: schema.url });
    assert.ok(Object.values(written(last)).every((n) => n === 0), JSON.stringify(written(last)));
  }));

  void it('follows a mailbox removed and set up again for the same customer between passes', () => withCopySetup(async (src, schema, target) => {
    const mailbox = (host: string) => ({
      id: randomUUID(), customerId: src.customerId, host, port: 993, tls: true, username: 'ordini@cliente.it',
      passwordEnc: sealSecret(SECRET_KEY, 'segreto-imap', src.customerId), folder: 'INBOX',
    });
    await src.store.setImapAccount(mailbox('imap.vecchio.it'));
    await copySqliteToPostgres({ from: src.file, to: schema.url });
    // `mail imap remove C001`, then `mail imap set C001 …`: the new mailbox is another row, of the same customer.
    assert.ok(await src.store.removeImapAccount(src.customerId));
    const now = await src.store.setImapAccount(mailbox('imap.nuovo.it'));

    await copySqliteToPostgres({ from: src.file, to: schema.url });
    assert.deepEqual(await target.listImapAccounts(), await src.store.listImapAccounts());
    assert.equal((await target.getImapAccount(src.customerId))?.id, now.id);
    const last = await copySqliteToPostgres({ from: src.file, to: schema.url });
    assert.ok(Object.values(written(last)).every((n) => n === 0), JSON.stringify(written(last)));
  }));

  void it('stops with the reason when a copied mail message differs in the target', () => withCopySetup(async (src, schema, target) => {
    await useEmail(src);
    await copySqliteToPostgres({ from: src.file, to: schema.url });
    const [one] = await target.listMailMessages({ limit: 1 });
    await adminQuery(testDatabaseUrl!, `UPDATE ${schema.name}.mail_messages SET sha256 = 'altro' WHERE id = $1`, [one!.id]);
    await assert.rejects(copySqliteToPostgres({ from: src.file, to: schema.url }), (e: unknown) => {
      assert.ok(e instanceof IntakeError && e.code === 'CONFLICT');
      assert.match(e.message, new RegExp(`different mail message .*mail_messages.*${one!.id}`));
      return true;
    });
  }));

  void it('knows every column of both engines: each copied table has the same columns, PostgreSQL only adds claims', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'intake-copy-'));
    const schema = await createSchema(testDatabaseUrl!, 'copy');
    const pgStore = await openPostgresStore(schema.url);
    try {
      const file = path.join(dir, 'intake.sqlite');
      const sqlite = await openSqliteStore(file);
      await sqlite.migrate();
      await sqlite.close();
      await pgStore.migrate();
      const db = new Database(file, { readonly: true });
      const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
      const sqliteColumns = new Map(tables.map((t) => [t, (db.prepare('SELECT name FROM pragma_table_info(?)').all(t) as { name: string }[]).map((r) => r.name).sort()]));
      db.close();
      const pgRows = await adminQuery<{ table_name: string; column_name: string }>(testDatabaseUrl!,
        'SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 ORDER BY column_name', [schema.name]);
      const pgColumns = new Map<string, string[]>();
      for (const r of pgRows) pgColumns.set(r.table_name, [...(pgColumns.get(r.table_name) ?? []), r.column_name]);
      // SQLite keeps submissions' raw bytes in pieces beside the row (migration 015: SQLite rewrites a whole record at
      // every UPDATE); PostgreSQL keeps a large bytea out of line (TOAST) and an UPDATE leaves it where it is.
      const sqliteOnly = new Set(['submission_chunks']);
      assert.deepEqual([...pgColumns.keys()].sort(), tables.filter((t) => !sqliteOnly.has(t)), 'the same tables');
      // Claims of running instances: SQLite keeps them in the process (leases: each engine its own clock; instances:
      // each engine its own way of telling a live process).
      const claims: Record<string, string[]> = {
        submissions: ['claimed_by', 'lease_until'], mail_messages: ['claimed_by', 'claimed_until'], mail_replies: ['claimed_by'],
      };
      // The outbox's stream position on PostgreSQL also holds the writing transaction (postgres/events.ts).
      const ordering: Record<string, string[]> = { order_events: ['xid'] };
      // Retention's watermark is a stream position, which each engine writes its own way (not copied: copy.ts).
      const ownPosition = new Set(['order_events_pruned']);
      for (const t of tables.filter((name) => name !== 'leases' && name !== 'instances' && !sqliteOnly.has(name) && !ownPosition.has(name))) {
        assert.deepEqual(pgColumns.get(t), [...sqliteColumns.get(t)!, ...(claims[t] ?? []), ...(ordering[t] ?? [])].sort(), `columns of ${t}`);
      }
      for (const spec of SPEC_TABLES) {
        assert.deepEqual([...spec.columns].sort(), sqliteColumns.get(spec.table), `the copy of ${spec.table} lists every column`);
        assert.deepEqual(spec.targetOnly ?? [], claims[spec.table] ?? [], `the copy of ${spec.table} knows PostgreSQL's own columns`);
      }
      // The events' seq is renumbered by the target as the copy inserts them in order (copy/outbox.ts): nothing to carry over.
      const sequences = await adminQuery<{ name: string }>(testDatabaseUrl!, 'SELECT sequencename AS name FROM pg_sequences WHERE schemaname = $1', [schema.name]);
      assert.deepEqual(sequences.map((r) => r.name), ['order_events_seq_seq'], 'no sequences to carry over');
    } finally {
      await pgStore.close();
      await schema.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  void it('refuses a file that is not an order-intake database, or is missing', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'intake-copy-'));
    const schema = await createSchema(testDatabaseUrl!, 'copy');
    try {
      await writeFile(path.join(dir, 'notes.txt'), 'hello');
      await assert.rejects(copySqliteToPostgres({ from: path.join(dir, 'missing.sqlite'), to: schema.url }), /no SQLite database/);
      await assert.rejects(copySqliteToPostgres({ from: path.join(dir, 'notes.txt'), to: schema.url }), /cannot open|not a database|not an order-intake/);
      // Data in a table this version does not copy would be lost on the switch: refused, nothing written.
      const file = path.join(dir, 'intake.sqlite');
      const store = await openSqliteStore(file);
      await store.migrate();
      await provisionCustomer(store, { code: 'C001', name: 'Cliente' }, 'ordini.test');
      await store.close();
      const raw = new Database(file);
      raw.exec(`CREATE TABLE later_feature (x TEXT) STRICT; INSERT INTO later_feature VALUES ('kept')`);
      raw.close();
      await assert.rejects(copySqliteToPostgres({ from: file, to: schema.url }), /holds data in later_feature.*nothing was copied/);
      // Likewise a column of a copied table that the copy does not know.
      const again = new Database(file);
      again.exec(`DROP TABLE later_feature; ALTER TABLE mail_messages ADD COLUMN later_column TEXT`);
      again.close();
      await assert.rejects(copySqliteToPostgres({ from: file, to: schema.url }), /columns later_column in mail_messages.*nothing was copied/);
      const tables = await adminQuery<{ n: number }>(testDatabaseUrl!, 'SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1', [schema.name]);
      assert.equal(tables[0]!.n, 0, 'not even the schema was created');
    } finally {
      await schema.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
