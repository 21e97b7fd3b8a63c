// An order's note (issue 43) through the real service: accepted by stage A in JSON, XML and CSV, kept with the
// order and shown by GET /api/v1/ordini/{id} and in the order's event; refused, with class-validator wording, when
// it is not a string, too long or holds control characters other than line breaks and tabs; part of the order's
// content, so the same reference with another note is a conflict.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { order, startTestService, type TestCustomer, type TestService } from '../../helpers/service.ts';

let t: TestService;
let c: TestCustomer;

async function post(body: string, type = 'application/json') {
  const res = await fetch(`${t.url}/api/v1/ordini`, { method: 'POST', body, headers: { 'content-type': type, 'x-api-key': c.apiKey } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function shown(id: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${t.url}/api/v1/ordini/${String(id)}`, { headers: { 'x-api-key': c.apiKey } });
  assert.equal(res.status, 200);
  return (await res.json()) as Record<string, unknown>;
}

const NOTE = 'Consegna al magazzino B,\n\tpiano terra: «urgente» & <fragile>';

before(async () => {
  t = await startTestService();
  c = await t.customer('C001');
});
after(() => t.close());

void describe('the order note', () => {
  void it('JSON: kept with the order, shown by GET and in the event, after data_consegna', async () => {
    const r = await post(JSON.stringify(order('C001', 'NOTE-JSON', { note: `  ${NOTE}  ` })));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const view = await shown(r.body.id_ordine);
    assert.equal(view.note, NOTE, 'kept as sent, surrounding blanks dropped');
    assert.deepEqual(Object.keys(view).slice(5, 8), ['data_ordine', 'data_consegna', 'note']);
    const events = await t.service.store.readEvents(null, 100);
    assert.equal(events.find((e) => e.data.id_ordine === r.body.id_ordine)?.data.note, NOTE);
    const without = await post(JSON.stringify(order('C001', 'NOTE-NONE', { note: '   ' })));
    assert.equal(without.status, 201);
    assert.equal('note' in (await shown(without.body.id_ordine)), false, 'a blank note is no note');
  });

  void it('XML: the <note> element', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<ordine><codice_cliente>C001</codice_cliente><riferimento_ordine>NOTE-XML</riferimento_ordine><data_ordine>2026-11-20</data_ordine>
<note>Consegna al magazzino B,
	piano terra: «urgente» &amp; &lt;fragile&gt;</note>
<righe><riga><codice_articolo>BV-STD</codice_articolo><quantita>500</quantita><unita_misura>PZ</unita_misura></riga></righe></ordine>`;
    const r = await post(xml, 'application/xml');
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal((await shown(r.body.id_ordine)).note, NOTE);
  });

  void it('CSV: the note column, line breaks inside quotes', async () => {
    const csv = [
      'codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura;note',
      `C001;NOTE-CSV;2026-11-20;BV-STD;500;PZ;"${NOTE.replace(/"/g, '""')}"`,
      'C001;NOTE-CSV;2026-11-20;VOL-A4;10;PZ;',
    ].join('\r\n');
    const r = await post(csv, 'text/csv');
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const view = await shown(r.body.id_ordine);
    assert.equal(view.note, NOTE);
    assert.equal((view.righe as unknown[]).length, 2);
  });

  void it('stage A refuses a note that is not a string, too long, or with other control characters', async () => {
    const cases: [unknown, string][] = [
      [42, 'note must be a string'],
      ['x'.repeat(1001), 'note must be shorter than or equal to 1000 characters'],
      ['suona\u0007', 'note must not contain control characters other than line breaks and tabs'],
      ['a\u0000b', 'note must not contain control characters other than line breaks and tabs'],
    ];
    for (const [note, message] of cases) {
      const r = await post(JSON.stringify(order('C001', 'NOTE-BAD', { note })));
      assert.equal(r.status, 400, String(note).slice(0, 20));
      assert.deepEqual(r.body.message, [message]);
    }
    // A thousand characters as a person counts them: an emoji is one, though JavaScript's length says two.
    const r = await post(JSON.stringify(order('C001', 'NOTE-1000', { note: '😀'.repeat(1000) })));
    assert.equal(r.status, 201, JSON.stringify(r.body));
  });

  void it('the note is part of the order: the same note again is a duplicate, another note a conflict', async () => {
    const first = await post(JSON.stringify(order('C001', 'NOTE-SAME', { note: 'uno' })));
    const again = await post(JSON.stringify(order('C001', 'NOTE-SAME', { note: 'uno' })));
    const other = await post(JSON.stringify(order('C001', 'NOTE-SAME', { note: 'due' })));
    assert.equal(first.status, 201);
    assert.equal(again.status, 200);
    assert.equal(again.body.numero_ordine, first.body.numero_ordine);
    assert.equal(other.status, 409);
  });
});
