// Memory of one large upload (issue 19 item 11, issue 16 target 6): `order-intake serve` in a child process of its
// own receives a 48 MiB CSV file through a real FTP client (basic-ftp), stores and judges it; the kernel's high-water
// mark of its resident set (VmHWM) must not grow by more than a bound that does not depend on holding the file as a
// whole. Before, the file was read whole, copied to the write thread and decoded from a Buffer, and judged in batches
// of 1,000 orders however many lines they had: the same upload grew the service by 381 MiB (8x the file). Read in
// pieces from the spool and judged in batches of at most 10,000 lines it grew by 121 MiB (same loaded machine).
import assert from 'node:assert/strict';
import { closeSync, createReadStream, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, it } from 'node:test';
import { Client as FtpClient } from 'basic-ftp';
import { SQLITE_FILE_NAME } from '../../../src/store/open.ts';
import { openSqliteStore } from '../../../src/store/sqlite/store.ts';
import { spawnServe, stopOrKill, waitForLine, type ServeProcess } from '../../helpers/child.ts';
import { TEST_ARTICLES } from '../../helpers/service.ts';
import { seedStore } from '../../multi/seed.ts';

/**
 * The upload: 48 MiB of orders of 200 lines (~4,400 orders), so that what judging keeps per order (the outcome,
 * bounded per order by test/intake/memory-per-order.test.ts) is small next to what depends on the file's size.
 */
const LINES_PER_ORDER = 200;
const FILE_BYTES = 48 * 2 ** 20;
/**
 * Growth of the service's peak resident memory allowed for that upload: 4 times its size (192 MiB), room above the
 * 121 MiB measured for a baseline taken before start-up garbage was collected; the old code's 381 MiB is far above.
 */
const MAX_GROWTH = 4 * FILE_BYTES;

const dir = mkdtempSync(path.join(tmpdir(), 'upload-memory-'));
let serve: ServeProcess | undefined;
after(async () => {
  if (serve) await stopOrKill(serve);
  rmSync(dir, { recursive: true, force: true });
});

/** Writes the CSV a chunk of 1,000 orders at a time, so that the test itself holds little. */
function writeCsv(file: string, code: string): number {
  const fd = openSync(file, 'w');
  let size = 0;
  const put = (s: string) => {
    size += writeSync(fd, s);
  };
  try {
    put('codice_cliente;riferimento_ordine;data_ordine;data_consegna;codice_articolo;quantita;unita_misura\n');
    for (let o = 0; size < FILE_BYTES; o++) {
      let chunk = '';
      for (let k = 0; k < 50; k++) {
        for (let line = 0; line < LINES_PER_ORDER; line++) {
          const a = TEST_ARTICLES[line % TEST_ARTICLES.length]!;
          chunk += `${code};MEM-${o}-${k};2026-01-15;2026-02-02;${a.codice_articolo};${100 + line};${a.unita_misura}\n`;
        }
      }
      put(chunk);
    }
  } finally {
    closeSync(fd);
  }
  return size;
}

function memory(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(text)?.[1]) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

void it('stores and judges a 48 MiB CSV upload without growing by a multiple of its size (basic-ftp, serve in a child)', async () => {
  const dataDir = path.join(dir, 'data');
  mkdirSync(dataDir);
  const store = await openSqliteStore(path.join(dataDir, SQLITE_FILE_NAME));
  const [customer] = await seedStore(store).finally(() => store.close());
  const file = path.join(dir, 'grande.csv');
  const size = writeCsv(file, 'C001');

  serve = await spawnServe(dataDir, { INTAKE_FTP_PORT: '0', INTAKE_FTP_PASV_RANGE: '32000-32099', INTAKE_LOG_LEVEL: 'info' });
  const ftpPort = Number((await waitForLine(serve, /"channel":"ftp".*"port":(\d+)/))[1]);
  await waitForLine(serve, /service ready/, 30_000);
  const before = memory(serve.proc.pid!);

  const client = new FtpClient(120_000);
  try {
    await client.access({ host: '127.0.0.1', port: ftpPort, user: customer!.ftpUser, password: customer!.ftpPassword });
    const r = await client.uploadFrom(createReadStream(file), '/ordini/grande.csv');
    assert.equal(r.code, 226);
  } finally {
    client.close();
  }
  const done = await waitForLine(serve, /"submission processed".*"orders":(\d+)|"orders":(\d+).*"submission processed"/, 180_000);
  const orders = Number(done[1] ?? done[2]);
  assert.ok(orders > 4000, `${orders} orders judged`);
  const peak = memory(serve.proc.pid!).hwm;
  const growth = peak - before.rss;
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
  process.stdout.write(`# upload of ${mib(size)}: service ${mib(before.rss)} at rest, peak ${mib(peak)} (+${mib(growth)})\n`);
  assert.ok(growth < MAX_GROWTH,
    `a ${mib(size)} upload grew the service from ${mib(before.rss)} to a peak of ${mib(peak)} (+${mib(growth)}; bound +${mib(MAX_GROWTH)})`);
});
