import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import iconv from 'iconv-lite';
import { ARTICLE_BATCH_SIZE, detectDelimiter, importArticles } from '../../src/catalog/import-articles.ts';
import type { Article, Store } from '../../src/domain/store/store.ts';
import { openTempStore, type TempStore } from '../auth/temp-store.ts';

void describe('detectDelimiter', () => {
  void it('picks the delimiter of the header line', () => {
    assert.equal(detectDelimiter('codice_articolo;descrizione;unita_misura'), ';');
    assert.equal(detectDelimiter('codice_articolo,descrizione,unita_misura'), ',');
    assert.equal(detectDelimiter('codice_articolo\tdescrizione\tunita_misura'), '\t');
    assert.equal(detectDelimiter('"a,b";c;d'), ';');
  });

  void it('refuses a header without any delimiter', () => {
    assert.throws(() => detectDelimiter('codice_articolo'), /line 1: cannot find the column delimiter/);
  });
});

void describe('importArticles', () => {
  let t: TempStore;
  let n = 0;
  const file = (name: string) => path.join(t.dataDir, `${n++}-${name}`);

  before(async () => {
    t = await openTempStore();
  });
  after(async () => t.cleanup());

  /** Descriptions as stored, read back through the real SQLite file (the port has no "get article"). */
  async function descriptions(codes: string[]): Promise<Map<string, string>> {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(path.join(t.dataDir, 'intake.sqlite'), { readonly: true });
    try {
      const rows = db.prepare(`SELECT codice_articolo, descrizione, unita_misura FROM articles WHERE codice_articolo IN (${codes.map(() => '?').join(',')})`)
        .all(...codes) as Article[];
      return new Map(rows.map((r) => [r.codice_articolo, `${r.descrizione}|${r.unita_misura}`]));
    } finally {
      db.close();
    }
  }

  void it('reads a Windows-1252 file with ; (what Italian Excel writes)', async () => {
    const f = file('excel.csv');
    const text = 'codice_articolo;descrizione;unita_misura\r\nW-1;Caffè perché città;pz\r\nW-2;"Con ; dentro";RS\r\n';
    await writeFile(f, iconv.encode(text, 'win1252'));
    assert.deepEqual(await importArticles(t.store, f), { rows: 2 });
    const d = await descriptions(['W-1', 'W-2']);
    assert.equal(d.get('W-1'), 'Caffè perché città|PZ');
    assert.equal(d.get('W-2'), 'Con ; dentro|RS');
  });

  void it('reads UTF-8 with a BOM, commas, quotes and columns in another order', async () => {
    const f = file('utf8.csv');
    await writeFile(f, `\uFEFFUnita Misura,Codice Articolo,Extra,Descrizione\nKG,U-1,zzz,"Città ""bella"""\n`);
    assert.deepEqual(await importArticles(t.store, f), { rows: 1 });
    assert.equal((await descriptions(['U-1'])).get('U-1'), 'Città "bella"|KG');
  });

  void it('reads tab-separated UTF-8 without BOM', async () => {
    const f = file('tabs.tsv');
    await writeFile(f, 'codice_articolo\tdescrizione\tunita_misura\nT-1\tÈ già qui\tMQ\n\nT-2\t\t\n');
    assert.deepEqual(await importArticles(t.store, f), { rows: 2 });
    const d = await descriptions(['T-1', 'T-2']);
    assert.equal(d.get('T-1'), 'È già qui|MQ');
    assert.equal(d.get('T-2'), '|');
  });

  void it('switches to Windows-1252 when the first non-UTF-8 byte comes after the sniffed 64 KiB', async () => {
    const f = file('late.csv');
    const lines = ['codice_articolo;descrizione;unita_misura'];
    for (let i = 0; i < 5000; i++) lines.push(`L-${i};Descrizione semplice numero ${i};PZ`);
    lines.push('L-LAST;Perché sì;PZ');
    const bytes = iconv.encode(`${lines.join('\r\n')}\r\n`, 'win1252');
    assert.ok(bytes.length > 128 * 1024);
    await writeFile(f, bytes);
    assert.deepEqual(await importArticles(t.store, f), { rows: 5001 });
    assert.equal((await descriptions(['L-LAST'])).get('L-LAST'), 'Perché sì|PZ');
  });

  void it('refuses a UTF-8 file with a broken byte later on, naming the line', async () => {
    const f = file('broken.csv');
    const head = Buffer.from(`codice_articolo;descrizione;unita_misura\nB-0;Città;PZ\n${'B-x;pad;PZ\n'.repeat(8000)}`);
    await writeFile(f, Buffer.concat([head, Buffer.from('B-9;bad \xe8 byte;PZ\n', 'latin1')]));
    await assert.rejects(importArticles(t.store, f), /not valid UTF-8 from about line \d+; save the whole file as UTF-8/);
  });

  void it('names the line of a row without code', async () => {
    const f = file('nocode.csv');
    await writeFile(f, 'codice_articolo;descrizione;unita_misura\nOK-1;a;PZ\n;senza codice;PZ\n');
    await assert.rejects(importArticles(t.store, f), (e: Error) => e.message.includes('line 3: codice_articolo is missing') && e.message.includes(f));
  });

  void it('refuses a bad unit code, a missing column, an empty file and a missing file', async () => {
    const unit = file('unit.csv');
    await writeFile(unit, 'codice_articolo;descrizione;unita_misura\nX;a;p z\n');
    await assert.rejects(importArticles(t.store, unit), /line 2: unita_misura "P Z" is not a unit code/);

    const cols = file('cols.csv');
    await writeFile(cols, 'codice;descrizione\nX;a\n');
    await assert.rejects(importArticles(t.store, cols), /line 1: the header lacks codice_articolo, unita_misura/);

    const empty = file('empty.csv');
    await writeFile(empty, '');
    await assert.rejects(importArticles(t.store, empty), /the file is empty/);

    await assert.rejects(importArticles(t.store, file('missing.csv')), /missing\.csv: no such file/);
  });

  void it('reports an unclosed quote instead of swallowing the file', async () => {
    const f = file('quote.csv');
    await writeFile(f, `codice_articolo;descrizione;unita_misura\nQ-1;"never closed;PZ\n${'Q-2;x;PZ\n'.repeat(10_000)}`);
    await assert.rejects(importArticles(t.store, f), /quote\.csv: .*(Quote Not Closed|Max Record Size)/i);
  });

  void it('lets the later of two rows with the same code win', async () => {
    const f = file('dups.csv');
    await writeFile(f, 'codice_articolo;descrizione;unita_misura\nD-1;first;PZ\nD-1;second;CF\n');
    assert.deepEqual(await importArticles(t.store, f), { rows: 2 });
    assert.equal((await descriptions(['D-1'])).get('D-1'), 'second|CF');
  });

  void it('streams 40,000 rows in batches of 5,000, storing while it reads, with bounded memory, reporting progress', async () => {
    const f = file('big.csv');
    const rows = 40_000;
    const parts = ['codice_articolo;descrizione;unita_misura\n'];
    for (let i = 0; i < rows; i++) parts.push(`BIG-${i};Articolo numero ${i} della prova di carico;PZ\n`);
    const content = parts.join('');
    await writeFile(f, content);
    const size = Buffer.byteLength(content);

    // The real store, observed: how many rows each upsert call carries.
    const batches: number[] = [];
    /** Bytes read so far, as progress reports them. */
    let last = 0;
    /** Bytes read when the first batch was stored: less than the file if the import streams. */
    let readAtFirstBatch: number | undefined;
    const observed: Store = new Proxy(t.store, {
      get(target, prop, receiver) {
        if (prop === 'upsertArticles') {
          return (r: readonly Article[]) => {
            batches.push(r.length);
            readAtFirstBatch ??= last;
            return target.upsertArticles(r);
          };
        }
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });

    let calls = 0;
    const before = process.memoryUsage().rss;
    const before2 = await t.store.countArticles();
    const res = await importArticles(observed, f, {
      onProgress(read, total) {
        assert.equal(total, size);
        assert.ok(read >= last);
        last = read;
        calls++;
      },
    });
    const growth = process.memoryUsage().rss - before;

    assert.deepEqual(res, { rows });
    assert.equal((await t.store.countArticles()) - before2, rows);
    assert.equal(last, size, 'progress reaches the file size');
    assert.ok(calls > 1);
    assert.equal(batches.length, rows / ARTICLE_BATCH_SIZE);
    assert.ok(batches.every((b) => b === ARTICLE_BATCH_SIZE));
    // Streaming, shown by the order of events rather than by memory: the first batch was stored while most of the
    // file was still unread (a whole-file read would have read it all before the first row was parsed). This is
    // what lets the file be 2 MB instead of the 11 MB the memory bound alone needed.
    assert.ok(readAtFirstBatch !== undefined && readAtFirstBatch < size / 2, `first batch stored after ${readAtFirstBatch} of ${size} bytes`);
    // Loose on purpose: GC timing varies.
    assert.ok(growth < 200 * 1024 * 1024, `rss grew by ${Math.round(growth / 1024 / 1024)} MiB`);
    assert.ok((await t.store.knownArticles(['BIG-0', `BIG-${rows - 1}`])).size === 2);
  });
});
