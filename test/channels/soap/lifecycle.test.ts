// ModificaOrdine, AnnullaOrdine and StatoOrdine's versions and requests, called from the served WSDL as it is by
// the clients customers run (Python zeep, PHP SoapClient), on SQLite and PostgreSQL: a change makes version 2, a
// cancellation cancels, once production started either becomes a request, once shipped a fault. Raw answers are
// validated against the WSDL's schema with xmllint.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addIntegration } from '../../../src/handoff/integrations.ts';
import { startTestService, type TestCustomer, type TestService } from '../../helpers/service.ts';
import { run } from '../files/helpers.ts';
import { createSchema, PG_SKIP, testDatabaseUrl, type TestSchema } from '../../store/pg-schema.ts';
import { bodyElement, envelope, faultOf, orderFields, post, validateAgainst } from './helpers.ts';

const CLIENTS = path.join(import.meta.dirname, 'clients');
/** Debian's python3 (python3-zeep); a python3 found first on PATH may lack the module. */
const PYTHON = '/usr/bin/python3';

type Answer = { ok: Record<string, unknown> } | { fault: { code: string; message: string } };
type Client = (operation: string, args: Record<string, unknown>) => Promise<Answer>;

const LINE = (quantita: number) => ({ codice_articolo: 'BV-STD', quantita, unita_misura: 'PZ' });

for (const engine of ['sqlite', 'postgres'] as const) {
  void describe(`SOAP: ModificaOrdine and AnnullaOrdine (${engine})`, { skip: engine === 'postgres' ? PG_SKIP : false }, () => {
    let t: TestService;
    let schema: TestSchema | undefined;
    let c1: TestCustomer;
    let ns: string;
    let mis: string;
    let dir: string;
    let xsd: string;

    const call = async (cmd: string, args: string[]): Promise<Answer> => {
      const r = await run(cmd, args, undefined, 60_000);
      assert.equal(r.code, 0, `${cmd} failed: ${r.stderr}`);
      return JSON.parse(r.stdout) as Answer;
    };
    const zeep: Client = (op, args) => call(PYTHON, [path.join(CLIENTS, 'zeep_call.py'), `${t.url}/ws/ordini?wsdl`, ns, c1.apiKey, op, JSON.stringify(args)]);
    const php: Client = (op, args) => call('php', [path.join(CLIENTS, 'php_call.php'), `${t.url}/ws/ordini?wsdl`, ns, c1.apiKey, op, JSON.stringify(args)]);

    const ok = (a: Answer): Record<string, unknown> => {
      assert.ok('ok' in a, `expected an answer, got ${JSON.stringify(a)}`);
      return a.ok;
    };
    const fault = (a: Answer): { code: string; message: string } => {
      assert.ok('fault' in a, `expected a fault, got ${JSON.stringify(a)}`);
      return a.fault;
    };
    const integration = async (p: string, body: unknown) => {
      const res = await fetch(`${t.url}${p}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-api-key': mis } });
      assert.equal(res.status, 200, await res.clone().text());
      return (await res.json()) as Record<string, unknown>;
    };

    before(async () => {
      if (engine === 'postgres') schema = await createSchema(testDatabaseUrl!, 'soap_lifecycle');
      t = await startTestService(schema ? { INTAKE_DATABASE_URL: schema.url } : {});
      c1 = await t.customer('C001');
      ns = `${t.url}/ws/ordini`;
      mis = (await addIntegration(t.service.store, 'MIS')).api_key;
      dir = mkdtempSync(path.join(tmpdir(), 'soap-lifecycle-'));
      const wsdl = await (await fetch(`${t.url}/ws/ordini?wsdl`)).text();
      xsd = path.join(dir, 'ordini.xsd');
      writeFileSync(xsd, `<?xml version="1.0" encoding="UTF-8"?>\n${/<xsd:schema[\s\S]*<\/xsd:schema>/.exec(wsdl)![0]}\n`);
    });
    after(async () => {
      await t?.close();
      await schema?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    for (const [name, client] of [['zeep', () => zeep], ['PHP SoapClient', () => php]] as const) {
      const righe = (q: number) => ({ riga: [LINE(q)] });
      const order = (ref: string, q: number, extra: Record<string, unknown> = {}) => ({
        codice_cliente: 'C001', riferimento_ordine: ref, data_ordine: '2026-11-20', ...extra, righe: righe(q),
      });
      const tag = name === 'zeep' ? 'Z' : 'P';

      void it(`${name}: a change makes version 2, StatoOrdine shows the versions; a cancellation cancels`, async () => {
        const c = client();
        const sent = ok(await c('InviaOrdine', order(`${tag}-1`, 100)));
        assert.equal(sent.esito, 'ok');
        const changed = ok(await c('ModificaOrdine', order(`${tag}-1`, 250, { motivo: 'quantità sbagliata' })));
        assert.equal(changed.esito, 'ok');
        assert.equal(changed.id_ordine, sent.id_ordine);
        assert.equal(changed.numero_ordine, sent.numero_ordine, 'the number stays for life');
        assert.equal(Number(changed.versione), 2);
        assert.equal(changed.messaggio, `Ordine ${String(sent.numero_ordine)} modificato: versione 2`);

        const view = ok(await c('StatoOrdine', { riferimento_ordine: `${tag}-1` }));
        assert.equal(Number(view.versione), 2);
        const versioni = (view.versioni as { versione: Record<string, unknown>[] }).versione;
        assert.deepEqual(versioni.map((v) => [Number(v.versione), v.azione, v.canale]), [[1, 'nuovo', 'soap'], [2, 'modifica', 'soap']]);
        const riga = (view.righe as { riga: Record<string, unknown>[] }).riga;
        assert.deepEqual(riga.map((r) => Number(r.quantita)), [250]);

        const cancelled = ok(await c('AnnullaOrdine', { codice_cliente: 'C001', riferimento_ordine: `${tag}-1`, motivo: 'non serve più' }));
        assert.equal(cancelled.stato, 'annullato');
        assert.equal(cancelled.versione ?? undefined, undefined);
        assert.equal(cancelled.messaggio, `Ordine ${String(sent.numero_ordine)} annullato`);
        assert.equal(ok(await c('StatoOrdine', { id_ordine: sent.id_ordine })).stato, 'annullato');
        const after = fault(await c('ModificaOrdine', order(`${tag}-1`, 300)));
        assert.match(after.code, /Client$/);
        assert.match(after.message, /è annullato: non può più essere modificato/);
      });

      void it(`${name}: once production started, a change is a request production decides; once shipped, a fault`, async () => {
        const c = client();
        const sent = ok(await c('InviaOrdine', order(`${tag}-2`, 100)));
        const id = String(sent.id_ordine);
        await integration(`/api/v1/ordini/${id}/stato`, { stato: 'in_lavorazione' });
        const asked = ok(await c('ModificaOrdine', order(`${tag}-2`, 400)));
        assert.equal(asked.esito, 'ok');
        assert.equal(asked.stato_richiesta, 'in_attesa');
        assert.ok(asked.id_richiesta);
        assert.equal(asked.versione ?? undefined, undefined, 'nothing changed yet');
        assert.match(String(asked.messaggio), /in lavorazione: richiesta di modifica inoltrata alla produzione/);
        const pending = fault(await c('AnnullaOrdine', { codice_cliente: 'C001', riferimento_ordine: `${tag}-2` }));
        assert.match(pending.message, /attende/);

        await integration(`/api/v1/ordini/${id}/richieste/${String(asked.id_richiesta)}`, { esito: 'rifiutata', nota: 'già in stampa' });
        const view = ok(await c('StatoOrdine', { id_ordine: id }));
        assert.equal(Number(view.versione), 1, 'a refused request leaves the version');
        const req = (view.richieste as { richiesta: Record<string, unknown>[] }).richiesta;
        assert.deepEqual(req.map((r) => [r.id_richiesta, r.tipo, r.stato_richiesta, r.nota]), [[asked.id_richiesta, 'modifica', 'rifiutata', 'già in stampa']]);

        const cancel = ok(await c('AnnullaOrdine', { codice_cliente: 'C001', riferimento_ordine: `${tag}-2`, motivo: 'ci ripensiamo' }));
        assert.equal(cancel.stato_richiesta, 'in_attesa');
        assert.match(String(cancel.messaggio), /richiesta di annullamento inoltrata alla produzione/);
        await integration(`/api/v1/ordini/${id}/richieste/${String(cancel.id_richiesta)}`, { esito: 'rifiutata' });

        await integration(`/api/v1/ordini/${id}/stato`, { stato: 'spedito' });
        const shipped = fault(await c('ModificaOrdine', order(`${tag}-2`, 500)));
        assert.match(shipped.code, /Client$/);
        assert.match(shipped.message, /è già stato spedito/);
        assert.match(fault(await c('AnnullaOrdine', { codice_cliente: 'C001', riferimento_ordine: `${tag}-2` })).message, /è già stato spedito/);
      });

      void it(`${name}: a reference never registered is a fault; business errors of a change are esito errore`, async () => {
        const c = client();
        const never = fault(await c('AnnullaOrdine', { codice_cliente: 'C001', riferimento_ordine: `${tag}-NEVER` }));
        assert.match(never.message, /non è mai stato registrato/);
        ok(await c('InviaOrdine', order(`${tag}-3`, 100)));
        const bad = ok(await c('ModificaOrdine', { ...order(`${tag}-3`, 1), righe: { riga: [{ codice_articolo: 'NOPE', quantita: 1, unita_misura: 'PZ' }] } }));
        assert.equal(bad.esito, 'errore');
        assert.match(JSON.stringify(bad.errori), /Articolo sconosciuto: \\"NOPE\\"/);
        assert.equal(Number(ok(await c('StatoOrdine', { riferimento_ordine: `${tag}-3` })).versione), 1);
      });
    }

    void it('every answer validates against the WSDL schema; the refusal is a fault in the usual form', async () => {
      const fields = (ref: string, q: number) => orderFields('C001', ref, { lines: [LINE(q)] });
      const sent = await post(t.url, envelope(ns, c1.apiKey, `<ord:InviaOrdine>${fields('X-1', 1)}</ord:InviaOrdine>`));
      const id = /<ord:id_ordine>([^<]+)</.exec(sent.text)![1]!;
      await validateAgainst(xsd, 'modifica-req', `<ord:ModificaOrdine xmlns:ord="${ns}">${orderFields('C001', 'X-1', { lines: [LINE(2)] })}</ord:ModificaOrdine>`);
      await validateAgainst(xsd, 'annulla-req', `<ord:AnnullaOrdine xmlns:ord="${ns}"><ord:codice_cliente>C001</ord:codice_cliente><ord:riferimento_ordine>X-1</ord:riferimento_ordine><ord:motivo>perché</ord:motivo></ord:AnnullaOrdine>`);
      const changed = await post(t.url, envelope(ns, c1.apiKey, `<ord:ModificaOrdine>${fields('X-1', 2)}</ord:ModificaOrdine>`));
      assert.match(changed.text, /<ord:versione>2<\/ord:versione>/);
      await validateAgainst(xsd, 'modifica-resp', bodyElement(changed.text));
      const again = await post(t.url, envelope(ns, c1.apiKey, `<ord:ModificaOrdine>${fields('X-1', 2)}</ord:ModificaOrdine>`));
      assert.match(again.text, /<ord:versione>2<\/ord:versione>.*<ord:duplicato>true<\/ord:duplicato>/);
      await validateAgainst(xsd, 'modifica-dup', bodyElement(again.text));
      await integration(`/api/v1/ordini/${id}/stato`, { stato: 'in_lavorazione' });
      const request = await post(t.url, envelope(ns, c1.apiKey, '<ord:AnnullaOrdine><ord:codice_cliente>C001</ord:codice_cliente><ord:riferimento_ordine>X-1</ord:riferimento_ordine></ord:AnnullaOrdine>'));
      assert.match(request.text, /<ord:stato_richiesta>in_attesa<\/ord:stato_richiesta>/);
      await validateAgainst(xsd, 'annulla-richiesta', bodyElement(request.text));
      const stato = await post(t.url, envelope(ns, c1.apiKey, `<ord:StatoOrdine><ord:id_ordine>${id}</ord:id_ordine></ord:StatoOrdine>`));
      assert.match(stato.text, /<ord:versione>2<\/ord:versione><ord:versioni>.*<ord:richieste><ord:richiesta>/);
      await validateAgainst(xsd, 'stato-lifecycle', bodyElement(stato.text));
      const rid = /<ord:id_richiesta>([^<]+)</.exec(request.text)![1]!;
      await integration(`/api/v1/ordini/${id}/richieste/${rid}`, { esito: 'accettata', nota: 'fermato in tempo' });
      const cancelled = await post(t.url, envelope(ns, c1.apiKey, `<ord:StatoOrdine><ord:id_ordine>${id}</ord:id_ordine></ord:StatoOrdine>`));
      assert.match(cancelled.text, /<ord:stato>annullato<\/ord:stato>/);
      await validateAgainst(xsd, 'stato-annullato', bodyElement(cancelled.text));

      const locked = faultOf(await post(t.url, envelope(ns, c1.apiKey, `<ord:ModificaOrdine>${fields('X-1', 3)}</ord:ModificaOrdine>`)));
      assert.equal(locked.faultcode, 'soap:Client');
      assert.match(locked.faultstring, /^L'ordine \d{4}-\d{6} è annullato: non può più essere modificato/);
      assert.equal(locked.detail, undefined, 'a conflict has its one message, no detail (as REST answers 409)');
      // A hand-written InviaOrdine naming azione itself acts as the change it names, and says so.
      const named = await post(t.url, envelope(ns, c1.apiKey, `<ord:InviaOrdine>${fields('X-1', 4).replace('<ord:righe>', '<ord:azione>modifica</ord:azione><ord:righe>')}</ord:InviaOrdine>`));
      assert.match(faultOf(named).faultstring, /è annullato: non può più essere modificato/);
      await post(t.url, envelope(ns, c1.apiKey, `<ord:InviaOrdine>${fields('X-2', 1)}</ord:InviaOrdine>`));
      const viaInvia = await post(t.url, envelope(ns, c1.apiKey, `<ord:InviaOrdine>${fields('X-2', 5).replace('<ord:righe>', '<ord:azione>modifica</ord:azione><ord:righe>')}</ord:InviaOrdine>`));
      assert.match(viaInvia.text, /<ord:messaggio>Ordine \d{4}-\d{6} modificato: versione 2<\/ord:messaggio>/);
      const structure = faultOf(await post(t.url, envelope(ns, c1.apiKey, '<ord:AnnullaOrdine><ord:codice_cliente>C001</ord:codice_cliente></ord:AnnullaOrdine>')));
      assert.equal(structure.faultcode, 'soap:Client');
      assert.ok(structure.detail?.some((m) => /riferimento_ordine/.test(m)), JSON.stringify(structure));
    });
  });
}
