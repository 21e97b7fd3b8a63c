// Changing and cancelling orders by file over SFTP (OpenSSH's sftp through sshpass), on SQLite and PostgreSQL: a CSV
// with the azione and motivo columns acts on orders registered earlier by REST; the outcome files say what became of
// each, in Italian for people (.esito.txt) and with versione, stato and id_richiesta for programs (.esito.json).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addIntegration } from '../../../src/handoff/integrations.ts';
import { order, type TestCustomer } from '../../helpers/service.ts';
import { createSchema, PG_SKIP, testDatabaseUrl, type TestSchema } from '../../store/pg-schema.ts';
import { sftpBatch, startFiles, type FilesHarness } from './helpers.ts';

for (const engine of ['sqlite', 'postgres'] as const) {
  void describe(`SFTP: changing and cancelling orders by file (${engine})`, { skip: engine === 'postgres' ? PG_SKIP : false }, () => {
    let h: FilesHarness;
    let schema: TestSchema | undefined;
    let c1: TestCustomer;
    let mis: string;
    let dir: string;

    before(async () => {
      if (engine === 'postgres') schema = await createSchema(testDatabaseUrl!, 'sftp_lifecycle');
      h = await startFiles(schema ? { INTAKE_DATABASE_URL: schema.url } : {});
      c1 = await h.t.customer('C001');
      mis = (await addIntegration(h.t.service.store, 'MIS')).api_key;
      dir = mkdtempSync(path.join(tmpdir(), 'sftp-lifecycle-'));
    });
    after(async () => {
      await h?.close();
      await schema?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const api = async (method: string, p: string, key: string, body?: unknown) => {
      const res = await fetch(`${h.t.url}${p}`, {
        method, headers: { 'content-type': 'application/json', 'x-api-key': key }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const register = async (ref: string) => {
      const r = await api('POST', '/api/v1/ordini', c1.apiKey, order('C001', ref));
      assert.equal(r.status, 201);
      return r.body as { id_ordine: string; numero_ordine: string };
    };
    const upload = async (name: string, rows: string[]) => {
      const local = path.join(dir, name);
      writeFileSync(local, ['codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura;azione;motivo', ...rows].join('\r\n'));
      const put = await sftpBatch(h.sftpPort, c1.ftpUser, c1.ftpPassword, [`put ${local} /ordini/${name}`]);
      assert.equal(put.code, 0, put.stderr);
      await h.processed('C001', name);
      const text = path.join(dir, `${name}.txt`);
      const json = path.join(dir, `${name}.json`);
      const get = await sftpBatch(h.sftpPort, c1.ftpUser, c1.ftpPassword, [
        `get /ordini/esiti/${name}.esito.txt ${text}`, `get /ordini/esiti/${name}.esito.json ${json}`,
      ]);
      assert.equal(get.code, 0, get.stderr);
      return { text: readFileSync(text, 'utf8'), json: JSON.parse(readFileSync(json, 'utf8')) as { esito: string; ordini: Record<string, unknown>[] } };
    };

    void it('the outcome files say which order was modified, cancelled, forwarded or refused', async () => {
      const changed = await register('FLC-1');
      const cancelled = await register('FLC-2');
      const started = await register('FLC-3');
      const shipped = await register('FLC-4');
      assert.equal((await api('POST', `/api/v1/ordini/${started.id_ordine}/stato`, mis, { stato: 'in_lavorazione' })).status, 200);
      assert.equal((await api('POST', `/api/v1/ordini/${shipped.id_ordine}/stato`, mis, { stato: 'spedito' })).status, 200);

      const { text, json } = await upload('modifiche.csv', [
        'C001;FLC-1;2026-11-20;VOL-A4;2000;PZ;modifica;serve più volantini',
        'C001;FLC-2;;;;;annulla;ordinato per errore',
        'C001;FLC-3;2026-11-20;BV-STD;10;PZ;modifica;meno biglietti',
        'C001;FLC-4;;;;;annulla;',
      ]);
      assert.match(text, /\r\nEsito: ERRORE - 1 ordine modificato, 1 ordine annullato, 1 richiesta inoltrata alla produzione, 1 ordine con errori\r\n/);
      assert.match(text, new RegExp(`\\r\\nOrdine 1 \\(riferimento FLC-1\\): Ordine ${changed.numero_ordine} modificato: versione 2\\r\\n`
        + '  Righe della versione 2:\\r\\n {4}VOL-A4 \\(Volantini A4\\): 2000 PZ\\r\\n'));
      assert.match(text, new RegExp(`\\r\\nOrdine 2 \\(riferimento FLC-2\\): Ordine ${cancelled.numero_ordine} annullato\\r\\nOrdine 3`));
      assert.match(text, new RegExp(`\\r\\nOrdine 3 \\(riferimento FLC-3\\): Ordine ${started.numero_ordine} in lavorazione: richiesta di modifica inoltrata alla produzione \\(richiesta [^)]+\\); riceverà l'esito\\r\\n`));
      assert.match(text, new RegExp(`\\r\\nOrdine 4 \\(riferimento FLC-4, riga 5 del file\\): annullamento NON eseguito \\(ordine ${shipped.numero_ordine}\\)\\r\\n`
        + `  - L'ordine ${shipped.numero_ordine} è già stato spedito`));

      const [one, two, three, four] = json.ordini;
      assert.deepEqual([one!.azione, one!.versione, one!.messaggio], ['modifica', 2, `Ordine ${changed.numero_ordine} modificato: versione 2`]);
      assert.deepEqual((one!.righe_registrate as { codice_articolo: string }[]).map((r) => r.codice_articolo), ['VOL-A4']);
      assert.deepEqual([two!.azione, two!.stato, two!.righe_registrate], ['annulla', 'annullato', undefined]);
      assert.deepEqual([three!.azione, three!.stato_richiesta, three!.righe_registrate], ['modifica', 'in_attesa', undefined]);
      assert.ok(three!.id_richiesta);
      assert.deepEqual([four!.esito, four!.codice, four!.azione], ['errore', 'ORDER_LOCKED', 'annulla']);

      // Production accepts the change: the order is at version 2 now, and the first file's outcome still shows what
      // that file did; a later change of the first order by a second file recaps its own version.
      const decided = await api('POST', `/api/v1/ordini/${started.id_ordine}/richieste/${String(three!.id_richiesta)}`, mis, { esito: 'accettata' });
      assert.equal(decided.status, 200);
      const again = await upload('ancora.csv', ['C001;FLC-1;2026-11-20;VOL-A4;3000;PZ;modifica;']);
      assert.match(again.text, new RegExp(`Ordine ${changed.numero_ordine} modificato: versione 3\\r\\n  Righe della versione 3:\\r\\n {4}VOL-A4 \\(Volantini A4\\): 3000 PZ\\r\\n`));
      const get = await sftpBatch(h.sftpPort, c1.ftpUser, c1.ftpPassword, [`get /ordini/esiti/modifiche.csv.esito.txt ${path.join(dir, 'first.txt')}`]);
      assert.equal(get.code, 0, get.stderr);
      assert.match(readFileSync(path.join(dir, 'first.txt'), 'utf8'), / {4}VOL-A4 \(Volantini A4\): 2000 PZ\r\n/, 'version 2 keeps its lines');
    });
  });
}
