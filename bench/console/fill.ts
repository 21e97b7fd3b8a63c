/**
 * Fills a SQLite store with `n` submissions, their order attempts and `n` registered orders, straight through
 * better-sqlite3 in large transactions: going through the intake would take hours for 1,000,000 and measure the
 * intake, not the lists. The rows have the shape the service writes (ISO times, JSON outcome, one order per
 * submission, 1 in 10 refused), spread over 20 customers, 4 channels and the last 100 days.
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';

export const CUSTOMERS = 20;
const CHANNELS = ['rest', 'sftp', 'email', 'portal'] as const;
const BATCH = 50_000;

export async function fillStore(file: string, n: number, progress: (m: string) => void): Promise<{ customerIds: string[] }> {
  const store = await openSqliteStore(file);
  const customerIds: string[] = [];
  try {
    await store.migrate();
    for (let c = 0; c < CUSTOMERS; c++) {
      const code = `B${String(c).padStart(3, '0')}`;
      customerIds.push((await store.createCustomer({ id: randomUUID(), code, name: `Cliente ${code}`, mailbox: `${code.toLowerCase()}@bench.test` })).id);
    }
  } finally {
    await store.close();
  }
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    const sub = db.prepare(`INSERT INTO submissions (id, customer_id, customer_code, channel, file_name, media_type, raw, meta, single_order,
      sha256, received_at, state, outcome, processed_at, attempts) VALUES (?, ?, ?, ?, ?, 'text/csv', ?, '{}', 0, ?, ?, 'processed', ?, ?, 1)`);
    const att = db.prepare(`INSERT INTO order_attempts (submission_id, idx, customer_id, riferimento_ordine, esito, outcome, received_at, channel)
      VALUES (?, 0, ?, ?, ?, ?, ?, ?)`);
    const ord = db.prepare(`INSERT INTO orders (id, customer_id, codice_cliente, riferimento_ordine, numero_ordine, year, seq, data_ordine,
      content_hash, submission_id, channel, registered_at) VALUES (?, ?, ?, ?, ?, 2026, ?, '2026-11-20', ?, ?, ?, ?)`);
    const start = Date.parse('2026-08-17T00:00:00Z');
    const step = (100 * 86_400_000) / n;
    const raw = Buffer.from('codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura\n');
    const batch = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const c = i % CUSTOMERS;
        const code = `B${String(c).padStart(3, '0')}`;
        // UUIDv7 like the service: time-ordered keys append to the primary key's b-tree instead of splitting pages.
        const id = uuidv7();
        const at = new Date(start + Math.floor(i * step)).toISOString();
        const ref = `REF-${i}`;
        const channel = CHANNELS[i % CHANNELS.length]!;
        const refused = i % 10 === 0;
        const orderId = uuidv7();
        const numero = `2026-${String(i + 1).padStart(6, '0')}`;
        const oo = refused
          ? { index: 0, riferimento_ordine: ref, esito: 'errore', code: 'BUSINESS', errori: [{ campo: 'righe[0].codice_articolo', messaggio: 'Articolo sconosciuto: "X"' }] }
          : { index: 0, riferimento_ordine: ref, esito: 'ok', id_ordine: orderId, numero_ordine: numero };
        const outcome = JSON.stringify({ submissionId: id, esito: oo.esito, orders: [oo] });
        sub.run(id, customerIds[c], code, channel, `ordini-${i}.csv`, raw, id.replace(/-/g, ''), at, outcome, at);
        att.run(id, customerIds[c], ref, oo.esito, JSON.stringify(oo), at, channel);
        if (!refused) ord.run(orderId, customerIds[c], code, ref, numero, i + 1, `h${i}`, id, channel, at);
      }
    });
    for (let i = 0; i < n; i += BATCH) {
      batch(i, Math.min(n, i + BATCH));
      progress(`console: ${Math.min(n, i + BATCH).toLocaleString('en-US')} / ${n.toLocaleString('en-US')} submissions written`);
    }
    db.exec('ANALYZE');
  } finally {
    db.close();
  }
  return { customerIds };
}
