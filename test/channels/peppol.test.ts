// A buyer's UBL Order (Peppol BIS 3 / NSO) through the real channels: REST with curl, SFTP with OpenSSH sftp through
// sshpass, e-mail with swaks; registered for the customer its Peppol identifier names, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestService, waitFor, type TestCustomer, type TestService } from '../helpers/service.ts';
import { createSchema, testDatabaseUrl, type TestSchema } from '../store/pg-schema.ts';
import { ublOrder, ublOrderCancellation, ublOrderChange } from '../intake/formats/ubl-fixtures.ts';
import { simpleParser } from 'mailparser';
import { addIntegration } from '../../src/handoff/integrations.ts';
import { run, sftpBatch } from './files/helpers.ts';
import { schemaValid, UBL_SCHEMAS } from '../helpers/ubl.ts';

function suite(name: string, env: () => Promise<{ env: Record<string, string>; drop?: () => Promise<void> }>) {
  void describe(`UBL orders through REST, SFTP and e-mail (${name})`, () => {
    let t: TestService;
    let c: TestCustomer;
    let customerId: string;
    let drop: (() => Promise<void>) | undefined;

    before(async () => {
      const e = await env();
      drop = e.drop;
      t = await startTestService({
        INTAKE_SFTP_PORT: '0', INTAKE_SMTP_PORT: '0', INTAKE_PEPPOL_ID: '0211:IT09876543210', INTAKE_PEPPOL_UNITS: 'C62=PZ', ...e.env,
      });
      c = await t.customer('C001');
      customerId = (await t.service.store.getCustomerByCode('C001'))!.id;
      await t.service.store.setPeppolIds(customerId, [{ scheme: '0211', identifier: 'IT01234567890' }]);
      await t.service.store.upsertArticleGtins([{ gtin: '08001234567897', codice_articolo: 'VOL-A4' }]);
    });
    after(async () => {
      await t?.close();
      await drop?.();
    });

    const file = (name: string, xml: string) => {
      const f = path.join(t.dataDir, name);
      writeFileSync(f, xml);
      return f;
    };
    const registered = (ref: string) => waitFor(() => t.service.store.getOrderByRef(customerId, ref), 15_000, `order ${ref} registered`);

    void it('REST: curl posts the Order as application/xml; the answer is shape A/B as for any order', async () => {
      const f = file('rest.xml', ublOrder({ id: 'PO-REST', lines: [{ sellers: 'BV-STD', quantity: 250 }, { gtin: '8001234567897' }] }));
      const res = await run('curl', ['-sS', '-w', '\n%{http_code}', '-H', 'content-type: application/xml', '-H', `x-api-key: ${c.apiKey}`, '--data-binary', `@${f}`, `${t.url}/api/v1/ordini`]);
      const [body, status] = [res.stdout.slice(0, res.stdout.lastIndexOf('\n')), res.stdout.slice(res.stdout.lastIndexOf('\n') + 1)];
      assert.equal(status, '201', body);
      const answer = JSON.parse(body) as Record<string, unknown>;
      assert.equal(answer.esito, 'ok');
      const o = await registered('PO-REST');
      assert.equal(answer.id_ordine, o.id_ordine);
      const response = await run('curl', ['-sS', '-D', '-', '-H', `x-api-key: ${c.apiKey}`, `${t.url}/api/v1/ordini/${o.id_ordine}/order-response`]);
      const [head, xml = ''] = response.stdout.split('\r\n\r\n');
      assert.match(head!, /^HTTP\/1\.1 200/);
      assert.match(head!, /content-type: application\/xml/i);
      assert.match(head!, /filename="OrderResponse-PO-REST\.xml"/);
      schemaValid(xml, UBL_SCHEMAS.orderResponse);
      assert.match(xml, /<cbc:OrderResponseCode>AP<\/cbc:OrderResponseCode>/);
      assert.match(xml, new RegExp(`<cbc:SalesOrderID>${o.numero_ordine}</cbc:SalesOrderID>`));
      assert.match(xml, /<cbc:EndpointID schemeID="0211">IT09876543210<\/cbc:EndpointID>/, 'the seller is INTAKE_PEPPOL_ID');

      // What the document said besides the order, in GET; the original document, byte for byte.
      const view = await (await fetch(`${t.url}/api/v1/ordini/${o.id_ordine}`, { headers: { 'x-api-key': c.apiKey } })).json() as { documento?: Record<string, unknown> };
      assert.deepEqual(view.documento?.righe, [
        { riga: '1', descrizione: 'Biglietti da visita', prezzo: '0.50', importo: '50.00' },
        { riga: '2', gtin: '8001234567897', descrizione: 'Biglietti da visita', prezzo: '0.50', importo: '50.00' },
      ]);
      assert.equal((view.documento?.extra as { gara?: string }).gara, 'CIG-ZA12345678');
      assert.equal((view.documento?.extra as { consegna?: { destinatario?: string } }).consegna?.destinatario, 'Magazzino centrale');
      const original = await fetch(`${t.url}/api/v1/ordini/${o.id_ordine}/documento`, { headers: { 'x-api-key': c.apiKey } });
      assert.equal(original.status, 200);
      assert.match(original.headers.get('content-type') ?? '', /application\/xml/);
      assert.ok(Buffer.from(await original.arrayBuffer()).equals(readFileSync(f)), 'the document as sent');
      assert.deepEqual(o.righe, [{ codice_articolo: 'BV-STD', quantita: 250, unita_misura: 'PZ' }, { codice_articolo: 'VOL-A4', quantita: 100, unita_misura: 'PZ' }]);

      const bad = file('bad.xml', ublOrder({ id: 'PO-BAD', lines: [{ buyers: 'ASL-1' }] }));
      const refused = await run('curl', ['-sS', '-w', '\n%{http_code}', '-H', 'content-type: application/xml', '-H', `x-api-key: ${c.apiKey}`, '--data-binary', `@${bad}`, `${t.url}/api/v1/ordini`]);
      assert.match(refused.stdout, /\n400$/);
      assert.match(refused.stdout, /OrderLine\[1\]\/LineItem\/Item\/BuyersItemIdentification\/ID/);

      const hostile = file('hostile.xml', ublOrder({ id: 'PO-X' }).replace('<Order ', '<!DOCTYPE Order [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>\n<Order '));
      const h = await run('curl', ['-sS', '-w', '\n%{http_code}', '-H', 'content-type: application/xml', '-H', `x-api-key: ${c.apiKey}`, '--data-binary', `@${hostile}`, `${t.url}/api/v1/ordini`]);
      assert.match(h.stdout, /DOCTYPE[\s\S]*\n400$/);
    });

    void it('SFTP: an Order uploaded with OpenSSH sftp is registered', async () => {
      const f = file('sftp.xml', ublOrder({ id: 'PO-SFTP' }));
      const res = await sftpBatch(t.service.ports.sftp!, c.ftpUser, c.ftpPassword, [`put ${f} /ordini/PO-SFTP.xml`]);
      assert.equal(res.code, 0, res.stderr);
      assert.equal((await registered('PO-SFTP')).righe[0]?.codice_articolo, 'BV-STD');
      const out = path.join(t.dataDir, 'or-sftp.xml');
      const got = await waitFor(async () => {
        const r = await sftpBatch(t.service.ports.sftp!, c.ftpUser, c.ftpPassword, [`get /ordini/esiti/PO-SFTP.xml.esito.xml ${out}`]);
        return r.code === 0 ? readFileSync(out, 'utf8') : undefined;
      }, 15_000, 'the Order Response in /ordini/esiti');
      schemaValid(got, UBL_SCHEMAS.orderResponse);
      assert.match(got, /<cbc:OrderResponseCode>AP<\/cbc:OrderResponseCode>/);

      const refused = file('refused.xml', ublOrder({ id: 'PO-SFTP-BAD', lines: [{ sellers: 'BV-STD', unitCode: null }] }));
      assert.equal((await sftpBatch(t.service.ports.sftp!, c.ftpUser, c.ftpPassword, [`put ${refused} /ordini/PO-SFTP-BAD.xml`])).code, 0);
      const no = await waitFor(async () => {
        const r = await sftpBatch(t.service.ports.sftp!, c.ftpUser, c.ftpPassword, [`get /ordini/esiti/PO-SFTP-BAD.xml.esito.xml ${out}`]);
        return r.code === 0 ? readFileSync(out, 'utf8') : undefined;
      }, 15_000, 'the refusal\'s Order Response');
      schemaValid(no, UBL_SCHEMAS.orderResponse);
      assert.match(no, /<cbc:OrderResponseCode>RE<\/cbc:OrderResponseCode>\n<cbc:Note>OrderLine\[1\]\/LineItem\/Quantity\/@unitCode: Manca l'unità di misura \(unitCode\)<\/cbc:Note>/);
      // A hostile document (entity expansion) is refused whole: its outcome files say so, and it has no Order Response.
      const hostile = file('hostile-sftp.xml', ublOrder({ id: 'PO-EVIL' }).replace('<Order ', '<!DOCTYPE Order [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>\n<Order '));
      assert.equal((await sftpBatch(t.service.ports.sftp!, c.ftpUser, c.ftpPassword, [`put ${hostile} /ordini/PO-EVIL.xml`])).code, 0);
      const evil = await waitFor(async () => {
        const r = await sftpBatch(t.service.ports.sftp!, c.ftpUser, c.ftpPassword, [`get /ordini/esiti/PO-EVIL.xml.esito.txt ${out}`]);
        return r.code === 0 ? readFileSync(out, 'utf8') : undefined;
      }, 15_000, 'the hostile file\'s outcome');
      assert.match(evil, /DOCTYPE/);
      const listing = await sftpBatch(t.service.ports.sftp!, c.ftpUser, c.ftpPassword, ['ls /ordini/esiti']);
      assert.doesNotMatch(listing.stdout, /rest\.xml\.esito\.xml/, 'only files of this channel are listed');
      assert.doesNotMatch(listing.stdout, /PO-EVIL\.xml\.esito\.xml/, 'no Order Response for a document that could not be read');
      assert.match(listing.stdout, /PO-SFTP\.xml\.esito\.xml/);
    });

    void it('e-mail: an Order attached to a message sent with swaks is registered', async () => {
      const f = file('mail.xml', ublOrder({ id: 'PO-MAIL' }));
      const res = await run('swaks', ['--server', `127.0.0.1:${t.service.ports.smtp}`, '--to', c.mailbox, '--from', 'acquisti@asl.example',
        '--header', 'Subject: Ordine NSO PO-MAIL', '--body', 'In allegato l\'ordine.', '--attach-type', 'application/xml', '--attach-name', 'PO-MAIL.xml', '--attach', `@${f}`, '--silent', '2']);
      assert.equal(res.code, 0, res.stderr + res.stdout);
      assert.equal((await registered('PO-MAIL')).riferimento_ordine, 'PO-MAIL');
      const reply = await waitFor(async () => {
        const [r] = await t.service.store.listReplies({ customerId, limit: 10 });
        return r ? t.service.store.getReply(r.id) : undefined;
      }, 15_000, 'the reply');
      const mail = await simpleParser(reply.raw);
      const attachment = mail.attachments.find((a) => a.filename === 'OrderResponse-PO-MAIL.xml');
      assert.ok(attachment, `attachments: ${mail.attachments.map((a) => a.filename).join(', ')}`);
      assert.match(attachment.contentType, /application\/xml/);
      schemaValid(attachment.content.toString('utf8'), UBL_SCHEMAS.orderResponse);
      assert.match(mail.text ?? '', /La risposta Peppol \(Order Response\) al documento UBL è nell'allegato OrderResponse-PO-MAIL\.xml\./);
    });

    void it('lifecycle: an Order Change by SFTP makes version 2, an Order Cancellation by e-mail cancels; NSO replacement and revocation by REST', async () => {
      const id = (await registered('PO-MAIL')).id_ordine;
      const change = file('change.xml', ublOrderChange({ orderId: 'PO-MAIL', sequence: 1, lines: [{ sellers: 'BV-STD', status: '3', quantity: 300 }, { gtin: '8001234567897', status: '1', quantity: 7 }] }));
      assert.equal((await sftpBatch(t.service.ports.sftp!, c.ftpUser, c.ftpPassword, [`put ${change} /ordini/CH-1.xml`])).code, 0);
      const v2 = await waitFor(async () => {
        const o = await t.service.store.getOrder(customerId, id);
        return o && o.versione === 2 ? o : undefined;
      }, 15_000, 'version 2');
      assert.deepEqual(v2.righe, [{ codice_articolo: 'BV-STD', quantita: 300, unita_misura: 'PZ' }, { codice_articolo: 'VOL-A4', quantita: 7, unita_misura: 'PZ' }]);
      const orderResponse = async () => {
        const res = await fetch(`${t.url}/api/v1/ordini/${id}/order-response`, { headers: { 'x-api-key': c.apiKey } });
        assert.equal(res.status, 200);
        return res.text();
      };
      const afterChange = await orderResponse();
      schemaValid(afterChange, UBL_SCHEMAS.orderResponseAdvanced);
      assert.match(afterChange, /order_response_advanced:3[\s\S]*<cbc:OrderResponseCode>AP<\/cbc:OrderResponseCode>\n<cbc:Note>Ordine modificato: versione 2<\/cbc:Note>/);

      const cancel = file('cancel.xml', ublOrderCancellation({ orderId: 'PO-MAIL', note: 'Fornitura non più necessaria' }));
      const res = await run('swaks', ['--server', `127.0.0.1:${t.service.ports.smtp}`, '--to', c.mailbox, '--from', 'acquisti@asl.example',
        '--header', 'Subject: Annullamento PO-MAIL', '--body', 'Annullamento.', '--attach-type', 'application/xml', '--attach-name', 'CA-1.xml', '--attach', `@${cancel}`, '--silent', '2']);
      assert.equal(res.code, 0, res.stderr);
      await waitFor(async () => {
        const o = await t.service.store.getOrder(customerId, id);
        return o?.productionState === 'annullato' || (o as { stato?: string } | undefined)?.stato === 'annullato' ? o : undefined;
      }, 15_000, 'order cancelled');
      const afterCancel = await orderResponse();
      schemaValid(afterCancel, UBL_SCHEMAS.orderResponseAdvanced);
      assert.match(afterCancel, /<cbc:Note>Ordine annullato<\/cbc:Note>[\s\S]*<cac:OrderReference><cbc:ID>PO-MAIL<\/cbc:ID>/);
      const json = await fetch(`${t.url}/api/v1/ordini`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': c.apiKey },
        body: JSON.stringify({ codice_cliente: 'C001', riferimento_ordine: 'J-1', data_ordine: '2026-11-20', righe: [{ codice_articolo: 'BV-STD', quantita: 1, unita_misura: 'PZ' }] }) });
      const jsonId = ((await json.json()) as { id_ordine: string }).id_ordine;
      const none = await fetch(`${t.url}/api/v1/ordini/${jsonId}/order-response`, { headers: { 'x-api-key': c.apiKey } });
      assert.equal(none.status, 404, 'an order that did not come as UBL has no Order Response');
      assert.match(await none.text(), /did not come as a UBL document/);

      const post = (xml: string) => run('curl', ['-sS', '-w', '\n%{http_code}', '-H', 'content-type: application/xml', '-H', `x-api-key: ${c.apiKey}`, '--data-binary', `@${file('nso.xml', xml)}`, `${t.url}/api/v1/ordini`]);
      const nsoId = (await registered('PO-REST')).id_ordine;
      const replaced = await post(ublOrder({ id: 'PO-REST-2', nsoReference: { id: 'PO-REST', code: 'Revised' }, lines: [{ sellers: 'VOL-A4', quantity: 42 }] }));
      assert.match(replaced.stdout, /\n20\d$/, replaced.stdout);
      const replacedOrder = await t.service.store.getOrder(customerId, nsoId);
      assert.deepEqual([replacedOrder?.versione, replacedOrder?.righe], [2, [{ codice_articolo: 'VOL-A4', quantita: 42, unita_misura: 'PZ' }]]);
      const revoked = await post(ublOrder({ id: 'PO-REST-3', note: 'Emesso per errore', nsoReference: { id: 'PO-REST', code: 'Cancelled' } }));
      assert.match(revoked.stdout, /\n20\d$/, revoked.stdout);
    });

    void it('a change once production has started: AB at once, AP after production accepts, RE with its note after it refuses', async () => {
      const mis = (await addIntegration(t.service.store, 'MIS')).api_key;
      const integration = (path: string, body: unknown) => fetch(`${t.url}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-api-key': mis } });
      const post = (xml: string) => fetch(`${t.url}/api/v1/ordini`, { method: 'POST', headers: { 'content-type': 'application/xml', 'x-api-key': c.apiKey }, body: xml });
      const created = (await (await post(ublOrder({ id: 'PO-PROD' }))).json()) as { id_ordine: string };
      const id = created.id_ordine;
      assert.equal((await integration(`/api/v1/ordini/${id}/stato`, { stato: 'in_lavorazione' })).status, 200);
      const orderResponse = async () => (await fetch(`${t.url}/api/v1/ordini/${id}/order-response`, { headers: { 'x-api-key': c.apiKey } })).text();

      const asked = await post(ublOrderChange({ id: 'CH-PROD-1', orderId: 'PO-PROD', sequence: 1, lines: [{ sellers: 'BV-STD', status: '3', quantity: 999 }] }));
      assert.ok(asked.status < 300, await asked.clone().text());
      const waiting = await orderResponse();
      schemaValid(waiting, UBL_SCHEMAS.orderResponseAdvanced);
      assert.match(waiting, /<cbc:OrderResponseCode>AB<\/cbc:OrderResponseCode>/);
      const [request] = await t.service.store.orderRequests(id);
      assert.equal((await integration(`/api/v1/ordini/${id}/richieste/${request!.id_richiesta}`, { esito: 'accettata', nota: 'Ristampiamo' })).status, 200);
      const accepted = await orderResponse();
      schemaValid(accepted, UBL_SCHEMAS.orderResponseAdvanced);
      assert.match(accepted, /<cbc:OrderResponseCode>AP<\/cbc:OrderResponseCode>\n<cbc:Note>Ristampiamo<\/cbc:Note>/);

      const cancel = await post(ublOrderCancellation({ id: 'CA-PROD', orderId: 'PO-PROD', note: 'Non serve più' }));
      assert.ok(cancel.status < 300, await cancel.clone().text());
      const second = (await t.service.store.orderRequests(id)).at(-1)!;
      assert.equal((await integration(`/api/v1/ordini/${id}/richieste/${second.id_richiesta}`, { esito: 'rifiutata', nota: 'Già spedito' })).status, 200);
      const refused = await orderResponse();
      schemaValid(refused, UBL_SCHEMAS.orderResponseAdvanced);
      assert.match(refused, /<cbc:OrderResponseCode>RE<\/cbc:OrderResponseCode>\n<cbc:Note>Già spedito<\/cbc:Note>/);
    });
  });
}

suite('sqlite', async () => ({ env: {} }));
if (testDatabaseUrl) {
  const url = testDatabaseUrl;
  suite('postgres', async () => {
    const schema: TestSchema = await createSchema(url, 'peppol');
    return { env: { INTAKE_DATABASE_URL: schema.url }, drop: () => schema.drop() };
  });
}
