/**
 * The identities (customer, reference) already met in one file, with the content hash each had: a repeat is a
 * duplicate of the first when the hashes match, a conflict when they differ (judge.ts).
 *
 * Kept for the whole file, since a repeat may come batches later, so its size matters for a large one. A Map from a
 * joined `${customer}\0${reference}` key to `{ index, hash }` held about 300 bytes per order (the key a cons string
 * over its two parts, an object and a 64-character hex string per order): some 30 MiB live for 100,000 orders at the
 * end of judging, and more in the heap's slack. Here: one Map of references per customer (the reference strings are
 * the orders' own), the position as a small integer, and the 32 bytes of each hash in one Buffer for the file.
 */
const HASH_BYTES = 32;

export class SeenOrders {
  readonly #byCustomer = new Map<string, Map<string, number>>();
  /** The hash of the order first met at position i, at i × HASH_BYTES. */
  readonly #hashes: Buffer;
  readonly #scratch = Buffer.alloc(HASH_BYTES);

  /** `positions`: the number of orders in the file (every index given to set is below it). */
  constructor(positions: number) {
    this.#hashes = Buffer.alloc(positions * HASH_BYTES);
  }

  /** The position of the first order of that identity, if any. */
  first(customer: string, reference: string): number | undefined {
    return this.#byCustomer.get(customer)?.get(reference);
  }

  /** Remember the order at `index` as the first of its identity; `hash` is contentHash's hex. */
  add(customer: string, reference: string, index: number, hash: string): void {
    let refs = this.#byCustomer.get(customer);
    if (!refs) this.#byCustomer.set(customer, (refs = new Map()));
    refs.set(reference, index);
    this.#hashes.write(hash, index * HASH_BYTES, HASH_BYTES, 'hex');
  }

  /** Whether the order first met at `index` had this content hash (hex). */
  sameContent(index: number, hash: string): boolean {
    this.#scratch.write(hash, 0, HASH_BYTES, 'hex');
    return this.#hashes.compare(this.#scratch, 0, HASH_BYTES, index * HASH_BYTES, (index + 1) * HASH_BYTES) === 0;
  }
}
