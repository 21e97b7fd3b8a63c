// Child of sqlite-writer.test.ts: saves submissions through the real SQLite store as fast as it can, many in
// flight, and prints the id of each one the moment its promise resolves (the moment a channel would acknowledge).
// The parent kills it with SIGKILL mid-stream and checks that every printed id is in the file.
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { addCustomer, newSubmission } from './fixtures.ts';

/** Saves in flight at once, so that batches of several writes share a commit. */
const IN_FLIGHT = 16;

const file = process.argv[2];
if (!file) throw new Error('usage: sqlite-writer-child.ts FILE');
const store = await openSqliteStore(file);
await store.migrate();
const customer = await addCustomer(store, 'C001');
process.stdout.write('ready\n');

// Bounded, so a child whose parent died cannot run for ever.
let left = 200_000;
async function lane(): Promise<void> {
  while (left-- > 0) {
    const s = await store.saveSubmission(newSubmission(customer));
    process.stdout.write(`ack ${s.id}\n`);
  }
}
await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
