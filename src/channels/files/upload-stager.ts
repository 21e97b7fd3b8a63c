/**
 * Copies an upload to a final name into the store while it streams (issue 16 target 5), so that its CLOSE (or
 * FTP's 226) only has to commit the rest of the file and the submission's row: the writing side (upload-writer.ts,
 * in the SFTP thread or here for FTP) reports how much of the spool file is on disk in order from its start, and the
 * stager writes whole pieces of it with Store.stageUploadPieces, one write at a time, each durable. It reads the
 * spool file (the page cache), never the bytes in flight, so a store slower than the network only means a larger
 * remainder at the end, never more memory. A failed piece stops the staging: the save at the end writes the rest.
 */
import type { Store } from '../../domain/store/store.ts';
import type { Logger } from '../../log.ts';
import { UPLOAD_PIECE_BYTES } from '../../domain/store/uploads.ts';

/**
 * How often the writing side reports progress, and so the least one store write stages: 4 pieces of 1 MiB. A
 * store write per 4 MiB is ~13 per 50 MiB, each a commit of the group on SQLite's write thread.
 */
export const STAGE_REPORT_BYTES = 4 * UPLOAD_PIECE_BYTES;
/** The most one store write stages (when the store fell behind): a few MiB keep each commit short for the others. */
const STAGE_MAX_BYTES = 8 * UPLOAD_PIECE_BYTES;

export class UploadStager {
  #available = 0;
  #staged = 0;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(private readonly store: Pick<Store, 'stageUploadPieces'>, readonly uploadId: string, private readonly file: string,
    private readonly log: Logger) {}

  /** Bytes [0, staged) are durable in the store as this upload's pieces. */
  get staged(): number {
    return this.#staged;
  }

  /** The writing side has bytes [0, bytes) of the file on disk. */
  advance(bytes: number): void {
    if (bytes > this.#available) this.#available = bytes;
    this.#kick();
  }

  #kick(): void {
    if (this.#running || this.#stopped) return;
    const length = Math.min(STAGE_MAX_BYTES, Math.floor((this.#available - this.#staged) / UPLOAD_PIECE_BYTES) * UPLOAD_PIECE_BYTES);
    if (length <= 0) return;
    const offset = this.#staged;
    this.#running = this.store.stageUploadPieces(this.uploadId, { file: this.file, offset, length }).then(() => {
      this.#staged = offset + length;
      this.#running = undefined;
      this.#kick();
    }, (err: unknown) => {
      // Not fatal: the save at the end copies whatever was not staged.
      this.log.warn({ err, upload: this.uploadId, staged: offset }, 'could not copy part of an upload into the store while it arrived');
      this.#stopped = true;
      this.#running = undefined;
    });
  }

  /** No more staging; resolves, once the store write under way has ended, with the bytes staged. */
  async stop(): Promise<number> {
    this.#stopped = true;
    while (this.#running) await this.#running;
    return this.#staged;
  }
}
