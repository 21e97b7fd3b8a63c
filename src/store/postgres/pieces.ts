/**
 * Uploads streamed into PostgreSQL while they arrive (migration 022, Store.stageUploadPieces): pieces of 1 MiB in
 * upload_pieces under the upload's id, which the submission that adopts them takes as its own id (its raw left
 * empty). In the database rather than a local file, so that every instance reads the file.
 */
import type pg from 'pg';
import type { PoolClient } from 'pg';
import { filePieces, UPLOAD_PIECE_BYTES } from '../common/upload-pieces.ts';
import { withTransaction } from './tx.ts';

type Queryable = Pick<PoolClient, 'query'>;

const INSERT_PIECE = {
  name: 'upload-piece',
  text: `INSERT INTO upload_pieces (upload_id, seq, data) VALUES ($1, $2, $3)
    ON CONFLICT (upload_id, seq) DO UPDATE SET data = excluded.data`,
};

/**
 * The pieces of bytes [from, to) of `file`. Each is copied out of the reader's reused buffer: the query may still
 * be waiting for the connection when the next piece is read.
 */
async function insertPieces(c: Queryable, uploadId: string, file: string, from: number, to: number, end: boolean): Promise<void> {
  for (const p of filePieces(file, from, to, end)) {
    await c.query({ ...INSERT_PIECE, values: [uploadId, p.seq, Buffer.from(p.data)] });
  }
}

/** Bytes [offset, offset + length) of `file` as pieces of `uploadId`, committed durably (synchronous_commit on). */
export async function stagePieces(pool: pg.Pool, uploadId: string, file: string, offset: number, length: number): Promise<void> {
  await withTransaction(pool, async (c) => {
    await c.query(`INSERT INTO upload_staging (upload_id, touched_at) VALUES ($1, now())
      ON CONFLICT (upload_id) DO UPDATE SET touched_at = excluded.touched_at`, [uploadId]);
    await insertPieces(c, uploadId, file, offset, offset + length, false);
  });
}

/**
 * Inside the transaction that inserts submission `id`: adopt the pieces of bytes [0, staged) its upload wrote, which
 * must all be there (an upload the sweep took for dead lost them: refused rather than stored with a hole), and write
 * the rest of the file after them. The upload leaves upload_staging, so that no sweep touches its pieces again.
 */
export async function adoptPieces(c: Queryable, id: string, file: string, size: number, staged: number): Promise<void> {
  const { rows: [have] } = await c.query<{ n: number; bytes: string; last: number | null }>(
    `SELECT count(*)::int AS n, coalesce(sum(octet_length(data)), 0)::text AS bytes, max(seq) AS last FROM upload_pieces
     WHERE upload_id = $1`, [id]);
  const { rowCount } = await c.query('DELETE FROM upload_staging WHERE upload_id = $1', [id]);
  if (rowCount !== 1 || have!.n !== staged / UPLOAD_PIECE_BYTES || Number(have!.bytes) !== staged || (have!.last ?? -1) !== have!.n - 1) {
    throw new Error(`upload ${id}: ${have!.n} pieces of ${have!.bytes} bytes staged, ${staged} bytes expected`);
  }
  await insertPieces(c, id, file, staged, size, true);
}

/** A submission's bytes when its row's raw is empty: the pieces it adopted, put together (empty if none). */
export async function readPieces(db: Queryable, id: string): Promise<Buffer> {
  const { rows } = await db.query<{ data: Buffer }>('SELECT data FROM upload_pieces WHERE upload_id = $1 ORDER BY seq', [id]);
  return rows.length === 1 ? rows[0]!.data : Buffer.concat(rows.map((r) => r.data));
}

/** The size of a submission's bytes, as an SQL expression over a row of `submissions` (listings). */
export const SUBMISSION_SIZE_SQL = `CASE WHEN octet_length(raw) > 0 THEN octet_length(raw)
  ELSE coalesce((SELECT sum(octet_length(p.data))::int FROM upload_pieces p WHERE p.upload_id = submissions.id), 0) END`;

/** The pieces of an upload no submission adopted; none of an adopted one (it is no longer in upload_staging). */
export async function discardPieces(pool: pg.Pool, uploadId: string): Promise<void> {
  await withTransaction(pool, async (c) => {
    const { rowCount } = await c.query('DELETE FROM upload_staging WHERE upload_id = $1', [uploadId]);
    if (rowCount === 1) await c.query('DELETE FROM upload_pieces WHERE upload_id = $1', [uploadId]);
  });
}

/** The orphan sweep: the pieces of every unadopted upload last touched before `before`; how many uploads. */
export async function sweepPieces(pool: pg.Pool, before: string): Promise<number> {
  return withTransaction(pool, async (c) => {
    const { rows } = await c.query<{ upload_id: string }>(
      'DELETE FROM upload_staging WHERE touched_at < $1 RETURNING upload_id', [before]);
    if (rows.length > 0) await c.query('DELETE FROM upload_pieces WHERE upload_id = ANY($1::text[])', [rows.map((r) => r.upload_id)]);
    return rows.length;
  });
}
