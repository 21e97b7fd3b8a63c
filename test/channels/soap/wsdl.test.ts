import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { addIntegration } from '../../../src/handoff/integrations.ts';
import { startTestService, type TestCustomer, type TestService } from '../../helpers/service.ts';
import { bodyElement, envelope, inviaOrdine, orderFields, post, statoOrdine, validateAgainst, xmllint } from './helpers.ts';

let t: TestService;
/** Started with INTAKE_PUBLIC_URL set. Every service starts in before(): startTestService silences stdout meanwhile. */
let other: TestService;
let c1: TestCustomer;
let ns: string;
let wsdl: string;
let dir: string;
let xsd: string;

before(async () => {
  t = await startTestService();
  other = await startTestService({ INTAKE_PUBLIC_URL: 'https://ordini.example.com/' });
  c1 = await t.customer('C001');
  ns = `${t.url}/ws/ordini`;
  const res = await fetch(`${t.url}/ws/ordini?wsdl`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/xml; charset=utf-8');
  wsdl = await res.text();
  dir = mkdtempSync(path.join(tmpdir(), 'soap-wsdl-'));
  const schema = /<xsd:schema[\s\S]*<\/xsd:schema>/.exec(wsdl)?.[0];
  assert.ok(schema, 'the WSDL embeds an xsd:schema');
  xsd = path.join(dir, 'ordini.xsd');
  writeFileSync(xsd, `<?xml version="1.0" encoding="UTF-8"?>\n${schema}\n`);
});
after(async () => {
  await t.close();
  await other.close();
  rmSync(dir, { recursive: true, force: true });
});

const attrs = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', removeNSPrefix: false,
  isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
});

type Node = Record<string, unknown>;
function children(node: Node, name: string): Node[] {
  return (node[name] as Node[] | undefined) ?? [];
}

void describe('the WSDL', () => {
  void it('is served at ?wsdl and ?WSDL, well-formed, with the public URL as namespace and address', async () => {
    const upper = await (await fetch(`${t.url}/ws/ordini?WSDL`)).text();
    assert.equal(upper, wsdl);
    const file = path.join(dir, 'ordini.wsdl');
    writeFileSync(file, wsdl);
    assert.equal(await xmllint(['--noout', file]), '');
    const defs = children(attrs.parse(wsdl) as Node, 'wsdl:definitions')[0]!;
    assert.equal(defs.targetNamespace, ns);
    assert.equal(defs['xmlns:ord'], ns);
    const port = children(children(defs, 'wsdl:service')[0]!, 'wsdl:port')[0]!;
    assert.equal(children(port, 'soap:address')[0]!.location, ns);
    const schema = children(children(defs, 'wsdl:types')[0]!, 'xsd:schema')[0]!;
    assert.equal(schema.targetNamespace, ns);
    assert.equal(schema.elementFormDefault, 'qualified');
  });

  void it('is consistent: parts name declared elements; binding, portType and header agree', () => {
    const defs = children(attrs.parse(wsdl) as Node, 'wsdl:definitions')[0]!;
    const schema = children(children(defs, 'wsdl:types')[0]!, 'xsd:schema')[0]!;
    const elements = new Set(children(schema, 'xsd:element').map((e) => `ord:${String(e.name)}`));
    const messages = new Map(children(defs, 'wsdl:message').map((m) => [`ord:${String(m.name)}`, children(m, 'wsdl:part')]));
    for (const [name, parts] of messages) {
      assert.equal(parts.length, 1, `${name} has one part`);
      assert.ok(elements.has(String(parts[0]!.element)), `${name} refers to a declared element`);
    }
    const ops = children(children(defs, 'wsdl:portType')[0]!, 'wsdl:operation');
    assert.deepEqual(ops.map((o) => o.name), ['InviaOrdine', 'StatoOrdine', 'ModificaOrdine', 'AnnullaOrdine']);
    for (const op of ops) {
      for (const io of ['wsdl:input', 'wsdl:output', 'wsdl:fault']) {
        assert.ok(messages.has(String(children(op, io)[0]!.message)), `${String(op.name)} ${io} message exists`);
      }
      assert.equal(children(op, 'wsdl:input')[0]!.message, `ord:${String(op.name)}Request`);
      assert.equal(messages.get(String(children(op, 'wsdl:output')[0]!.message))![0]!.element, `ord:${String(op.name)}Response`);
    }
    const binding = children(defs, 'wsdl:binding')[0]!;
    assert.equal(children(binding, 'soap:binding')[0]!.style, 'document');
    for (const op of children(binding, 'wsdl:operation')) {
      assert.equal(children(op, 'soap:operation')[0]!.soapAction, `${ns}#${String(op.name)}`);
      const input = children(op, 'wsdl:input')[0]!;
      assert.equal(children(input, 'soap:body')[0]!.use, 'literal');
      const header = children(input, 'soap:header')[0]!;
      assert.deepEqual([header.message, header.part, header.use], ['ord:AutenticazioneHeader', 'Autenticazione', 'literal']);
      assert.equal(children(children(op, 'wsdl:fault')[0]!, 'soap:fault')[0]!.name, 'Errore');
    }
    assert.equal(messages.get('ord:AutenticazioneHeader')![0]!.element, 'ord:Autenticazione');
    assert.equal(messages.get('ord:ErroreFault')![0]!.element, 'ord:erroriValidazione');
  });

  void it('follows INTAKE_PUBLIC_URL when it is set', async () => {
    const text = await (await fetch(`${other.url}/ws/ordini?wsdl`)).text();
    assert.match(text, /targetNamespace="https:\/\/ordini\.example\.com\/ws\/ordini"/);
    assert.match(text, /<soap:address location="https:\/\/ordini\.example\.com\/ws\/ordini"\/>/);
  });
});

void describe('the embedded schema validates requests and real responses', () => {
  void it('sample requests: InviaOrdine with and without data_consegna, StatoOrdine, the header', async () => {
    await validateAgainst(xsd, 'invia', `<ord:InviaOrdine xmlns:ord="${ns}">${orderFields('C001', 'XSD-1', { lines: [{ codice_articolo: 'CAR-A4-80', quantita: '2.5', unita_misura: 'RS' }] })}</ord:InviaOrdine>`);
    await validateAgainst(xsd, 'invia-no-consegna', `<ord:InviaOrdine xmlns:ord="${ns}">${orderFields('C001', 'XSD-1', { consegna: null })}</ord:InviaOrdine>`);
    await validateAgainst(xsd, 'stato', `<ord:StatoOrdine xmlns:ord="${ns}"><ord:riferimento_ordine>XSD-1</ord:riferimento_ordine></ord:StatoOrdine>`);
    await validateAgainst(xsd, 'header', `<ord:Autenticazione xmlns:ord="${ns}"><ord:ApiKey>k</ord:ApiKey></ord:Autenticazione>`);
  });

  void it('refuses what the service would refuse (the check is not vacuous)', async () => {
    const bad = [
      ['empty-righe', `<ord:InviaOrdine xmlns:ord="${ns}"><ord:codice_cliente>C001</ord:codice_cliente><ord:riferimento_ordine>X</ord:riferimento_ordine><ord:data_ordine>2026-11-20</ord:data_ordine><ord:righe/></ord:InviaOrdine>`],
      ['bad-quantity', `<ord:InviaOrdine xmlns:ord="${ns}">${orderFields('C001', 'X', { lines: [{ codice_articolo: 'A', quantita: 'tanti', unita_misura: 'PZ' }] })}</ord:InviaOrdine>`],
      ['unqualified', `<ord:InviaOrdine xmlns:ord="${ns}">${orderFields('C001', 'X', { p: '' })}</ord:InviaOrdine>`],
    ];
    for (const [name, xml] of bad) {
      await assert.rejects(validateAgainst(xsd, name!, xml!), /fails to validate|failed/);
    }
  });

  void it('InviaOrdineResponse: accepted, duplicate, business errors', async () => {
    const ok = await post(t.url, inviaOrdine(ns, c1.apiKey, 'C001', 'XSD-2'));
    await validateAgainst(xsd, 'resp-ok', bodyElement(ok.text));
    const dup = await post(t.url, inviaOrdine(ns, c1.apiKey, 'C001', 'XSD-2'));
    assert.match(dup.text, /<ord:duplicato>true<\/ord:duplicato>/);
    await validateAgainst(xsd, 'resp-dup', bodyElement(dup.text));
    const err = await post(t.url, inviaOrdine(ns, c1.apiKey, 'C001', 'XSD-3', { lines: [{ codice_articolo: 'NOPE', quantita: 1, unita_misura: 'XX' }] }));
    assert.match(err.text, /<ord:esito>errore<\/ord:esito><ord:errori>/);
    await validateAgainst(xsd, 'resp-err', bodyElement(err.text));
  });

  void it('StatoOrdineResponse: registered, refused with errori, refused with messages', async () => {
    const reg = await post(t.url, statoOrdine(ns, c1.apiKey, '<ord:riferimento_ordine>XSD-2</ord:riferimento_ordine>'));
    assert.match(reg.text, /<ord:stato>registrato<\/ord:stato>/);
    await validateAgainst(xsd, 'stato-reg', bodyElement(reg.text));
    const refused = await post(t.url, statoOrdine(ns, c1.apiKey, '<ord:riferimento_ordine>XSD-3</ord:riferimento_ordine>'));
    assert.match(refused.text, /<ord:stato>rifiutato<\/ord:stato>/);
    await validateAgainst(xsd, 'stato-err', bodyElement(refused.text));
    await post(t.url, envelope(ns, c1.apiKey, '<ord:InviaOrdine><ord:codice_cliente>C001</ord:codice_cliente><ord:riferimento_ordine>XSD-4</ord:riferimento_ordine><ord:data_ordine>2026-11-20</ord:data_ordine><ord:righe/></ord:InviaOrdine>'));
    const structure = await post(t.url, statoOrdine(ns, c1.apiKey, '<ord:riferimento_ordine>XSD-4</ord:riferimento_ordine>'));
    assert.match(structure.text, /<ord:messaggi>/);
    await validateAgainst(xsd, 'stato-msg', bodyElement(structure.text));
  });

  void it('StatoOrdineResponse with production status reported by an integration (issue 17)', async () => {
    const ok = await post(t.url, inviaOrdine(ns, c1.apiKey, 'C001', 'XSD-5'));
    const id = /<ord:id_ordine>([^<]+)<\/ord:id_ordine>/.exec(ok.text)?.[1];
    assert.ok(id);
    const mis = (await addIntegration(t.service.store, 'MIS-XSD')).api_key;
    for (const [stato, nota] of [['in_lavorazione', 'In stampa & piega <A4>'], ['spedito', undefined]] as const) {
      const res = await fetch(`${t.url}/api/v1/ordini/${id}/stato`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': mis }, body: JSON.stringify({ stato, nota }),
      });
      assert.equal(res.status, 200);
    }
    const v = await post(t.url, statoOrdine(ns, c1.apiKey, `<ord:id_ordine>${id}</ord:id_ordine>`));
    assert.match(v.text, /<ord:stato_produzione>spedito<\/ord:stato_produzione><ord:storico_produzione><ord:passo><ord:stato>in_lavorazione<\/ord:stato><ord:nota>In stampa &amp; piega &lt;A4&gt;<\/ord:nota><ord:aggiornato_il>/);
    await validateAgainst(xsd, 'stato-produzione', bodyElement(v.text));
  });

  void it('an order with a note: the request and StatoOrdineResponse validate, the note comes back (issue 43)', async () => {
    const fields = `<ord:codice_cliente>C001</ord:codice_cliente><ord:riferimento_ordine>XSD-NOTE</ord:riferimento_ordine>`
      + '<ord:data_ordine>2026-11-20</ord:data_ordine><ord:note>Piano terra &amp; retro\nGrazie</ord:note>'
      + '<ord:righe><ord:riga><ord:codice_articolo>BV-STD</ord:codice_articolo><ord:quantita>5</ord:quantita><ord:unita_misura>PZ</ord:unita_misura></ord:riga></ord:righe>';
    await validateAgainst(xsd, 'invia-note', `<ord:InviaOrdine xmlns:ord="${ns}">${fields}</ord:InviaOrdine>`);
    const ok = await post(t.url, envelope(ns, c1.apiKey, `<ord:InviaOrdine>${fields}</ord:InviaOrdine>`));
    assert.match(ok.text, /<ord:esito>ok<\/ord:esito>/);
    const v = await post(t.url, statoOrdine(ns, c1.apiKey, '<ord:riferimento_ordine>XSD-NOTE</ord:riferimento_ordine>'));
    assert.match(v.text, /<ord:data_ordine>2026-11-20<\/ord:data_ordine><ord:note>Piano terra &amp; retro\nGrazie<\/ord:note><ord:righe>/);
    await validateAgainst(xsd, 'stato-note', bodyElement(v.text));
  });

  void it('the fault detail element', async () => {
    const f = await post(t.url, envelope(ns, c1.apiKey, '<ord:StatoOrdine/>'));
    const detail = /<detail>([\s\S]*)<\/detail>/.exec(f.text)?.[1];
    assert.ok(detail);
    await validateAgainst(xsd, 'fault-detail', detail);
  });
});
