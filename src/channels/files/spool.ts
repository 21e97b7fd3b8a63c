/**
 * The spool: local files that hold uploads while they arrive, under `<dataDir>/spool/`.
 *
 * - `uploads/<random>`: an upload to a final name, until its bytes are committed to the store (then deleted) or
 *   the upload is cut (then deleted unprocessed). Nothing here was ever acknowledged, so a crash's leftovers are
 *   deleted at start.
 * - `temp/<customer>/<hash>.data` + `.name`: files uploaded under a temporary name (see names.ts), kept so that the
 *   client can resume them and processed only when renamed to a final name. The name is kept beside the data
 *   because a client's name may be longer in bytes than the disk allows once encoded.
 *
 * The spool is per instance: a temporary file exists on the instance that received it. Stored files are not here.
 */
import { createHash, randomUUID, type Hash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../log.ts';
import { LIMITS } from './limits.ts';

export class TooLargeError extends Error {
  constructor(readonly max: number) {
    super(`file troppo grande: il massimo è ${max} byte`);
  }
}

/**
 * Hex SHA-256 of a file, read in pieces into one buffer (an upload may be as large as maxFileBytes; a stream's
 * fresh buffer per piece left ~50 MiB for the collector to find after a 50 MiB file).
 */
export async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  const buf = Buffer.allocUnsafe(SPOOL_BUFFER_BYTES);
  const h = await open(file, 'r');
  try {
    for (;;) {
      const { bytesRead } = await h.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      hash.update(buf.subarray(0, bytesRead));
    }
  } finally {
    await h.close();
  }
  return hash.digest('hex');
}

export interface TempFile {
  name: string;
  size: number;
  mtime: Date;
}

/**
 * Bytes gathered from consecutive writes before one write to disk. SFTP clients send 32 KiB WRITEs (64 in flight);
 * one disk write each held a 50 MiB upload to about 40 MiB/s, while 1 MiB sequential writes reach the speed of the
 * network. It is also the memory one open upload may hold beyond what is on its way to disk (plus one written buffer
 * kept to be filled again).
 */
export const SPOOL_BUFFER_BYTES = 1024 * 1024;

/**
 * An open spool file that bytes are written into, at given offsets (SFTP) or one after the other (FTP).
 *
 * Writes that continue the previous one are gathered in a buffer and written when it is full; any other write
 * (out of order, overlapping: SFTP allows both) first sends the buffer on. Disk writes happen one at a time in
 * the order the writes came, so where writes overlap the later one wins. A write resolves once its bytes are
 * buffered, or, when it filled the buffer or had to send it on, once the disk has them (so a fast client waits
 * for the disk instead of filling memory). Nothing is promised before close(), which writes the rest, fsyncs,
 * and fails if any disk write failed: an upload that lost bytes is never acknowledged.
 *
 * While the writes run in order from the file's start (what every client we know does), the SHA-256 of the file is
 * computed as they arrive (sha256 after close): reading 50 MiB back to hash it was a fifth of the time between the
 * last WRITE and the CLOSE acknowledgement (performance-history.md). Any other write gives that up (sha256 undefined).
 */
export class SpoolWriter {
  #size = 0;
  #next = 0;
  #closed = false;
  #buf: Buffer | undefined;
  /** A buffer whose disk write has ended, taken again instead of a fresh one (see #flush). */
  #spare: Buffer | undefined;
  /** File offset of #buf[0], and how many bytes #buf holds. */
  #bufAt = 0;
  #bufLen = 0;
  /** Disk writes, one after the other. */
  #queue: Promise<void> = Promise.resolve();
  /** The first disk write that failed: every later write, and close(), fails with it. */
  #failed: unknown;
  /** SHA-256 of bytes [0, #hashedTo), while every write has continued the one before from offset 0. */
  #hash: Hash | undefined;
  #hashedTo = 0;
  #digest: string | undefined;
  /** While every write has continued the one before from offset 0: the bytes [0, #writtenTo) are in the file. */
  #ordered: boolean;
  #writtenTo = 0;
  /**
   * Told each time the file's in-order prefix on disk grows (not after an out-of-order write): the tree copies it
   * into the store while the upload goes on (upload-stager.ts). Synchronous and must not throw.
   */
  onWritten: ((bytes: number) => void) | undefined;

  private constructor(readonly file: string, private readonly handle: FileHandle, private readonly max: number, start: number) {
    this.#size = start;
    this.#next = start;
    this.#ordered = start === 0;
    if (start === 0) this.#hash = createHash('sha256');
  }

  /**
   * `mode`: 'new' creates or empties the file; 'keep' opens it as it is (resume); 'exclusive' fails if it exists.
   */
  static async open(file: string, max: number, mode: 'new' | 'keep' | 'exclusive', start?: number): Promise<SpoolWriter> {
    const handle = mode === 'keep'
      ? await open(file, 'r+', 0o600).catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT') return open(file, 'w', 0o600);
        throw e;
      })
      : await open(file, mode === 'exclusive' ? 'wx' : 'w', 0o600);
    try {
      const size = (await handle.stat()).size;
      const from = start ?? size;
      if (from > size) throw new Error(`ripresa da ${from} byte, ma il file ne ha ${size}`);
      if (from < size) await handle.truncate(from);
      return new SpoolWriter(file, handle, max, from);
    } catch (e) {
      await handle.close();
      throw e;
    }
  }

  get size(): number {
    return this.#size;
  }

  /** Hex SHA-256 of the whole file, once closed, when it was written in order from its start; else undefined. */
  get sha256(): string | undefined {
    return this.#digest;
  }

  /** Write `data` at `offset`, or after the last write when offset is undefined. */
  async write(data: Uint8Array, offset?: number): Promise<void> {
    if (this.#closed) throw new Error('file già chiuso');
    if (this.#failed !== undefined) throw this.#failed;
    const at = offset ?? this.#next;
    if (at + data.length > this.max) throw new TooLargeError(this.max);
    this.#next = at + data.length;
    if (this.#next > this.#size) this.#size = this.#next;
    if (this.#hash && at === this.#hashedTo) {
      this.#hash.update(data);
      this.#hashedTo = this.#next;
    } else {
      this.#hash = undefined;
      this.#ordered = false;
    }
    const follows = this.#bufLen > 0 && at === this.#bufAt + this.#bufLen && this.#bufLen + data.length <= SPOOL_BUFFER_BYTES;
    const waits: Promise<void>[] = [];
    if (this.#bufLen > 0 && !follows) waits.push(this.#flush());
    if (data.length >= SPOOL_BUFFER_BYTES) {
      // Too big to gather: written as it is, with a copy, since the caller may reuse its buffer once we resolve.
      waits.push(this.#enqueue(Buffer.from(data), data.length, at));
    } else {
      if (this.#bufLen === 0) this.#bufAt = at;
      this.#buf ??= this.#spare ?? Buffer.allocUnsafe(SPOOL_BUFFER_BYTES);
      if (this.#buf === this.#spare) this.#spare = undefined;
      this.#buf.set(data, this.#bufLen);
      this.#bufLen += data.length;
      if (this.#bufLen === SPOOL_BUFFER_BYTES) waits.push(this.#flush());
    }
    await Promise.all(waits);
  }

  /** Send the buffer to disk (a fresh one takes its place); resolves when it is written. */
  #flush(): Promise<void> {
    if (this.#bufLen === 0 || this.#buf === undefined) return this.#queue;
    const buf = this.#buf;
    const p = this.#enqueue(buf, this.#bufLen, this.#bufAt);
    this.#buf = undefined;
    this.#bufLen = 0;
    // Once written, the buffer is taken for the next one: a fresh 1 MiB per flush is memory the collector must
    // find again, and under a fast upload it ran full collections for a second of every 50 MiB.
    p.then(() => {
      this.#spare ??= buf;
    }, () => undefined);
    return p;
  }

  #enqueue(buf: Uint8Array, length: number, at: number): Promise<void> {
    const p = this.#queue.then(async () => {
      if (this.#failed !== undefined) throw this.#failed;
      let done = 0;
      while (done < length) {
        const { bytesWritten } = await this.handle.write(buf, done, length - done, at + done);
        done += bytesWritten;
      }
      // Disk writes run one after the other in the order of the writes, so an in-order write that ended here
      // extends the prefix that is in the file.
      if (this.#ordered && at === this.#writtenTo) {
        this.#writtenTo = at + length;
        this.onWritten?.(this.#writtenTo);
      }
    });
    this.#queue = p.catch((err: unknown) => {
      this.#failed ??= err;
    });
    return p;
  }

  /**
   * Write what is buffered, flush to disk (unless `sync` is false) and close; fails if any write failed. Without
   * sync the bytes are only as safe as the page cache: for a file whose durable copy is made elsewhere (an upload
   * to a final name is copied into the store, whose commit is what the acknowledgement waits for).
   */
  async close(opts: { sync?: boolean } = {}): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#flush().catch(() => undefined);
      await this.#queue;
      if (this.#failed !== undefined) throw this.#failed;
      if (opts.sync !== false) await this.handle.sync();
      if (this.#hash && this.#hashedTo === this.#size) this.#digest = this.#hash.digest('hex');
      this.#hash = undefined;
    } finally {
      await this.handle.close();
    }
  }

  /** Close (without caring about errors) and delete the file. */
  async discard(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#buf = undefined;
      this.#bufLen = 0;
      this.#hash = undefined;
      await this.#queue;
      await this.handle.close().catch(() => undefined);
    }
    await rm(this.file, { force: true });
  }
}

export class Spool {
  readonly uploads: string;
  readonly temp: string;
  /** Temporary files being written right now, by "customer/name": one writer at a time, no rename meanwhile. */
  readonly #busy = new Set<string>();

  constructor(dataDir: string, private readonly log: Logger) {
    this.uploads = path.join(dataDir, 'spool', 'uploads');
    this.temp = path.join(dataDir, 'spool', 'temp');
  }

  /** Create the folders, delete uploads a crash cut (never acknowledged) and temporary files long abandoned. */
  async init(now = Date.now()): Promise<void> {
    await mkdir(this.uploads, { recursive: true, mode: 0o700 });
    await mkdir(this.temp, { recursive: true, mode: 0o700 });
    const cut = await readdir(this.uploads);
    for (const f of cut) await rm(path.join(this.uploads, f), { force: true, recursive: true });
    if (cut.length > 0) this.log.warn({ discarded: cut.length }, 'discarded uploads cut by the previous stop (never acknowledged)');
    for (const customer of await readdir(this.temp)) {
      const dir = path.join(this.temp, customer);
      for (const f of await readdir(dir).catch(() => [] as string[])) {
        if (!f.endsWith('.data')) continue;
        const st = await stat(path.join(dir, f)).catch(() => undefined);
        if (st && now - st.mtimeMs > LIMITS.tempMaxAgeMs) {
          await rm(path.join(dir, f), { force: true });
          await rm(path.join(dir, f.replace(/\.data$/, '.name')), { force: true });
          this.log.info({ customer, file: f }, 'deleted an abandoned temporary upload');
        }
      }
    }
  }

  newUploadFile(): string {
    return path.join(this.uploads, randomUUID());
  }

  #dir(customerId: string): string {
    // Customer ids are the store's UUIDs; anything else is hashed rather than trusted as a folder name.
    const safe = /^[A-Za-z0-9-]{1,64}$/.test(customerId) ? customerId : createHash('sha256').update(customerId).digest('hex');
    return path.join(this.temp, safe);
  }

  #base(customerId: string, name: string): string {
    return path.join(this.#dir(customerId), createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 40));
  }

  tempDataFile(customerId: string, name: string): string {
    return `${this.#base(customerId, name)}.data`;
  }

  async statTemp(customerId: string, name: string): Promise<TempFile | undefined> {
    const st = await stat(this.tempDataFile(customerId, name)).catch(() => undefined);
    return st ? { name, size: st.size, mtime: st.mtime } : undefined;
  }

  /**
   * The customer's temporary files. One untouched for LIMITS.tempMaxAgeMs is deleted here, as init() does at start:
   * a service that runs for months must not let abandoned ones fill the customer's LIMITS.tempFilesPerCustomer.
   */
  async listTemp(customerId: string, now = Date.now()): Promise<TempFile[]> {
    const dir = this.#dir(customerId);
    const files = await readdir(dir).catch(() => [] as string[]);
    const out: TempFile[] = [];
    for (const f of files) {
      if (!f.endsWith('.name')) continue;
      const name = await readFile(path.join(dir, f), 'utf8').catch(() => undefined);
      const st = name === undefined ? undefined : await this.statTemp(customerId, name);
      if (!st) continue;
      if (now - st.mtime.getTime() > LIMITS.tempMaxAgeMs && !this.isBusy(customerId, st.name)) {
        await this.removeTemp(customerId, st.name).then(
          () => this.log.info({ customer: customerId, file: st.name }, 'deleted an abandoned temporary upload'),
          (err: unknown) => this.log.warn({ err, customer: customerId, file: st.name }, 'could not delete an abandoned temporary upload'),
        );
        continue;
      }
      out.push(st);
    }
    return out;
  }

  /**
   * Where a temporary file's bytes and its name record go. The file is opened by whoever writes it (upload-writer.ts:
   * the main thread for FTP, the SFTP thread for SFTP), which creates the folder and writes the name once it is open.
   */
  tempFiles(customerId: string, name: string): { data: string; nameRecord: { dir: string; file: string } } {
    const base = this.#base(customerId, name);
    return { data: `${base}.data`, nameRecord: { dir: this.#dir(customerId), file: `${base}.name` } };
  }

  async removeTemp(customerId: string, name: string): Promise<void> {
    const base = this.#base(customerId, name);
    await unlink(`${base}.data`);
    await rm(`${base}.name`, { force: true });
  }

  async renameTemp(customerId: string, from: string, to: string): Promise<void> {
    const src = this.#base(customerId, from);
    const dst = this.#base(customerId, to);
    await rename(`${src}.data`, `${dst}.data`);
    await writeFile(`${dst}.name`, to, { encoding: 'utf8', mode: 0o600 });
    await rm(`${src}.name`, { force: true });
  }

  /** Mark a temporary file as being written; false when someone already is. */
  claim(customerId: string, name: string): boolean {
    const key = `${customerId}/${name}`;
    if (this.#busy.has(key)) return false;
    this.#busy.add(key);
    return true;
  }

  release(customerId: string, name: string): void {
    this.#busy.delete(`${customerId}/${name}`);
  }

  isBusy(customerId: string, name: string): boolean {
    return this.#busy.has(`${customerId}/${name}`);
  }
}
