/**
 * Raw bytes of submissions on SQLite, in pieces (submission_chunks, migration 015) rather than inside the
 * submissions row. SQLite rewrites a whole record at every UPDATE, so a file kept in its row cost its size again
 * in memory and in the WAL each time the row changed (the outcome recorded: +150 MiB peak for a 52 MiB file), and
 * binding it whole made SQLite copy it twice. A piece at a time, SQLite holds one piece.
 *
 * A submission saved before migration 015 has its bytes in submissions.raw and no pieces; one saved since has
 * submissions.raw empty, unless its bytes are few (INLINE_BODY_BYTES). Readers take the pieces when there are any,
 * else the column (an empty file has neither).
 */
import type Database from 'better-sqlite3';
import { filePieces, UPLOAD_PIECE_BYTES } from '../common/upload-pieces.ts';

/**
 * Bytes kept in the submissions row itself rather than in pieces: a REST or SOAP order (a few hundred bytes to a few
 * KiB). Rewriting that much with the row when its outcome is recorded costs less than a piece of its own, which was
 * one more INSERT and two more B-trees (the table and its key) per order on the write thread (5 % of its time under
 * REST load); a row this size stays within its page (SQLite keeps up to ~4 KiB of a row on a 4 KiB page).
 */
export const INLINE_BODY_BYTES = 2048;

/** Bytes per piece: small next to the memory it saves, large enough that a 100 MiB file is 100 rows. */
export const SUBMISSION_CHUNK_BYTES = UPLOAD_PIECE_BYTES;

/** The size of a submission's raw bytes, as an SQL expression over a row of `submissions` (listings, copy). */
export const SUBMISSION_SIZE_SQL = `coalesce((SELECT sum(length(c.data)) FROM submission_chunks c WHERE c.submission_id = submissions.id),
  (SELECT sum(length(p.data)) FROM upload_pieces p WHERE p.upload_id = submissions.id), length(submissions.raw))`;
/** The same, for a database migrated to 015 but not yet to 022 (a copy's source; copy/tables.ts). */
export const SUBMISSION_SIZE_SQL_015 = `coalesce((SELECT sum(length(c.data)) FROM submission_chunks c WHERE c.submission_id = submissions.id),
  length(submissions.raw))`;

type Prepare = (sql: string) => Database.Statement;

/** Writes the pieces of `raw` for a submission whose row was just inserted with an empty raw (same transaction). */
export function insertSubmissionChunks(q: Prepare, id: string, raw: Uint8Array): void {
  const insert = q('INSERT INTO submission_chunks (submission_id, seq, data) VALUES (?, ?, ?)');
  for (let at = 0, seq = 0; at < raw.length; at += SUBMISSION_CHUNK_BYTES, seq++) {
    const piece = raw.subarray(at, at + SUBMISSION_CHUNK_BYTES);
    insert.run(id, seq, Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
  }
}

/**
 * Writes the pieces of a submission whose bytes are in a local file (an upload in the spool, Submission.rawFile),
 * reading one piece at a time: the file is never held whole. One buffer serves every piece (SQLite copies a bound
 * value when it runs the insert). Fails if the file is not `size` bytes long: what is stored must be what was hashed.
 */
export function insertSubmissionChunksFromFile(q: Prepare, id: string, file: string, size: number): void {
  const insert = q('INSERT INTO submission_chunks (submission_id, seq, data) VALUES (?, ?, ?)');
  for (const p of filePieces(file, 0, size, true)) insert.run(id, p.seq, p.data);
}

/** Where a submission's pieces may be: saved whole (migration 015), or streamed while uploaded (migration 022). */
const PIECE_TABLES = [
  { size: 'SELECT sum(length(data)) AS n FROM submission_chunks WHERE submission_id = ?',
    data: 'SELECT data FROM submission_chunks WHERE submission_id = ? ORDER BY seq' },
  { size: 'SELECT sum(length(data)) AS n FROM upload_pieces WHERE upload_id = ?',
    data: 'SELECT data FROM upload_pieces WHERE upload_id = ? ORDER BY seq' },
] as const;

/**
 * The raw bytes of a submission: its pieces put together into one Buffer (one copy: the pieces are read one at a
 * time into it), from submission_chunks or from upload_pieces (an upload streamed into the store, adopted by the
 * submission of the same id), or `inRow` (submissions.raw) for one saved before the pieces existed.
 * `streamed` false: the database has no upload_pieces yet (a copy's source before migration 022).
 */
export function readSubmissionBody(q: Prepare, id: string, inRow: Buffer | Uint8Array | undefined, streamed = true): Buffer {
  for (const t of streamed ? PIECE_TABLES : PIECE_TABLES.slice(0, 1)) {
    const size = (q(t.size).get(id) as { n: number | bigint | null }).n;
    if (size === null) continue;
    const out = Buffer.allocUnsafe(Number(size));
    let at = 0;
    for (const r of q(t.data).iterate(id) as Iterable<{ data: Buffer }>) at += r.data.copy(out, at);
    if (at !== out.length) throw new Error(`submission ${id}: its pieces changed while being read`);
    return out;
  }
  return inRow === undefined ? Buffer.alloc(0) : Buffer.isBuffer(inRow) ? inRow : Buffer.from(inRow);
}

/**
 * Streamed uploads (migration 022): bytes [offset, offset + length) of `file` as pieces of `uploadId`, and the
 * upload marked as touched `at` (the orphan sweep's clock). Written again if the same range comes twice.
 */
export function stageUploadPieces(q: Prepare, uploadId: string, file: string, offset: number, length: number, at: string): void {
  q(`INSERT INTO upload_staging (upload_id, touched_at) VALUES (?, ?)
    ON CONFLICT (upload_id) DO UPDATE SET touched_at = excluded.touched_at`).run(uploadId, at);
  const insert = q('INSERT OR REPLACE INTO upload_pieces (upload_id, seq, data) VALUES (?, ?, ?)');
  for (const p of filePieces(file, offset, offset + length)) insert.run(uploadId, p.seq, p.data);
}

/**
 * A submission's save adopts the pieces its upload staged, bytes [0, staged): they must all be there (an upload the
 * orphan sweep took for dead has lost them, and is refused rather than stored with a hole), the rest of the file is
 * written after them, and the upload leaves upload_staging, so that no sweep can touch its pieces again.
 */
export function adoptUploadPieces(q: Prepare, id: string, file: string, size: number, staged: number): void {
  const have = q(`SELECT count(*) AS n, coalesce(sum(length(data)), 0) AS bytes, max(seq) AS last FROM upload_pieces
    WHERE upload_id = ?`).get(id) as { n: number; bytes: number; last: number | null };
  const adopted = q('DELETE FROM upload_staging WHERE upload_id = ?').run(id).changes;
  if (adopted !== 1 || have.n !== staged / UPLOAD_PIECE_BYTES || have.bytes !== staged || (have.last ?? -1) !== have.n - 1) {
    throw new Error(`upload ${id}: ${have.n} pieces of ${have.bytes} bytes staged, ${staged} bytes expected`);
  }
  const insert = q('INSERT INTO upload_pieces (upload_id, seq, data) VALUES (?, ?, ?)');
  for (const p of filePieces(file, staged, size, true)) insert.run(id, p.seq, p.data);
}

/** The pieces of an upload no submission adopted (still in upload_staging); none of an adopted one. */
export function discardStagedUpload(q: Prepare, uploadId: string): void {
  if (q('DELETE FROM upload_staging WHERE upload_id = ?').run(uploadId).changes === 1) {
    q('DELETE FROM upload_pieces WHERE upload_id = ?').run(uploadId);
  }
}

/** The orphan sweep: every unadopted upload last touched before `before`; returns how many. */
export function sweepStagedUploads(q: Prepare, before: string): number {
  const stale = q('SELECT upload_id FROM upload_staging WHERE touched_at < ?').all(before) as { upload_id: string }[];
  for (const s of stale) discardStagedUpload(q, s.upload_id);
  return stale.length;
}
