/**
 * What both stores share about an upload's streamed pieces (migration 022; Store.stageUploadPieces): their size, and
 * the checks of a piece range and of an adoption. The pieces of an upload are rows (upload_id, seq, data) of
 * UPLOAD_PIECE_BYTES each, the last one shorter; seq = offset / UPLOAD_PIECE_BYTES.
 */
import { openSync, readSync, closeSync } from 'node:fs';
import type { NewSubmission } from '../../domain/store/store.ts';
import { UPLOAD_PIECE_BYTES } from '../../domain/store/uploads.ts';

export { UPLOAD_PIECE_BYTES };

/** Throws unless the range starts and ends on piece boundaries (only the adopting save writes a short last piece). */
export function checkPieceRange(uploadId: string, piece: { offset: number; length: number }): void {
  if (typeof uploadId !== 'string' || uploadId === '') throw new TypeError('upload id required');
  const { offset, length } = piece;
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length <= 0
    || offset % UPLOAD_PIECE_BYTES !== 0 || length % UPLOAD_PIECE_BYTES !== 0) {
    throw new RangeError(`upload ${uploadId}: pieces are staged in whole ${UPLOAD_PIECE_BYTES}-byte pieces (offset ${offset}, length ${length})`);
  }
}

/** The staged part a save adopts, checked against the submission: its id is the upload's, within the file. */
export function stagedOf(s: NewSubmission): { bytes: number } | undefined {
  const staged = s.rawFile?.staged;
  if (!staged || staged.bytes === 0) return undefined;
  if (staged.id !== s.id) throw new Error(`submission ${s.id}: its staged pieces belong to upload ${staged.id}`);
  if (staged.bytes % UPLOAD_PIECE_BYTES !== 0 || staged.bytes > s.rawFile!.size) {
    throw new RangeError(`submission ${s.id}: ${staged.bytes} staged bytes do not fit a file of ${s.rawFile!.size}`);
  }
  return { bytes: staged.bytes };
}

/**
 * Each piece of bytes [from, to) of `file`, read into one reused buffer (the caller writes it before the next is
 * read). Fails if the file ends before `to`, or, when `to` is its `end`, goes on after it: what is stored must be
 * what was hashed.
 */
export function* filePieces(file: string, from: number, to: number, end = false): Generator<{ seq: number; data: Buffer }> {
  const buf = Buffer.allocUnsafe(UPLOAD_PIECE_BYTES);
  const fd = openSync(file, 'r');
  try {
    for (let at = from; at < to; at += UPLOAD_PIECE_BYTES) {
      const want = Math.min(UPLOAD_PIECE_BYTES, to - at);
      let n = 0;
      while (n < want) {
        const got = readSync(fd, buf, n, want - n, at + n);
        if (got === 0) throw new Error(`${file}: ends at ${at + n} bytes, ${to} were expected`);
        n += got;
      }
      yield { seq: at / UPLOAD_PIECE_BYTES, data: buf.subarray(0, want) };
    }
    // Longer than the hashed size: the file changed after it was hashed.
    if (end && readSync(fd, buf, 0, 1, to) !== 0) throw new Error(`${file}: holds more than the ${to} bytes expected`);
  } finally {
    closeSync(fd);
  }
}
