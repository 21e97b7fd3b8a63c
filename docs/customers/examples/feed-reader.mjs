// Follows the order event feed of order-intake and keeps its place in a file, so that a restart goes on where it
// stopped. Node.js 20 or later, no dependencies:
//   INTAKE_URL=https://ordini.example.com INTAKE_INTEGRATION_KEY=oii_… node feed-reader.mjs
import { readFile, rename, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

const { fetch } = globalThis; // built into Node.js 18 and later

const BASE = process.env.INTAKE_URL ?? 'http://localhost:8080';
const KEY = process.env.INTAKE_INTEGRATION_KEY;
const CURSOR_FILE = process.env.CURSOR_FILE ?? 'eventi.cursor';
// ONCE=1: stop when there is nothing more to read (for a cron job, and for our tests).
const ONCE = process.env.ONCE === '1';

async function loadCursor() {
  try {
    return (await readFile(CURSOR_FILE, 'utf8')).trim() || null;
  } catch {
    return null; // no file yet: read from the first event
  }
}

async function saveCursor(cursor) {
  // Written aside and renamed: a crash never leaves half a cursor behind.
  await writeFile(`${CURSOR_FILE}.tmp`, cursor);
  await rename(`${CURSOR_FILE}.tmp`, CURSOR_FILE);
}

// Your import goes here. It may see an event twice (after a crash before the cursor was saved): use event.id to
// recognise it.
async function handle(event) {
  const o = event.data;
  console.log([event.type, o.numero_ordine ?? '-', o.codice_cliente, o.riferimento_ordine, o.stato_produzione ?? ''].join(' '));
}

let cursor = await loadCursor();
for (;;) {
  const url = new URL('/api/v1/eventi', BASE);
  if (cursor) url.searchParams.set('dopo', cursor);
  url.searchParams.set('limite', '100');
  url.searchParams.set('attesa', ONCE ? '0' : '25'); // long polling: the answer comes as soon as there is an event
  const res = await fetch(url, { headers: { 'X-API-Key': KEY } });
  if (res.status === 400 || res.status === 401 || res.status === 403) {
    // A wrong key or cursor does not fix itself: stop and tell someone.
    console.error(`feed refused the request (${res.status}): ${await res.text()}`);
    process.exit(1);
  }
  if (!res.ok) {
    console.error(`feed answered ${res.status}; trying again in 5 s`);
    await sleep(5000);
    continue;
  }
  const { eventi, cursore } = await res.json();
  for (const event of eventi) await handle(event);
  // Saved after the page is handled: at worst a page is handled again, never skipped.
  if (cursore && cursore !== cursor) {
    cursor = cursore;
    await saveCursor(cursor);
  }
  if (ONCE && eventi.length === 0) break;
}
