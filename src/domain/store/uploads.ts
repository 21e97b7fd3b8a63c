/**
 * What a caller of Store.stageUploadPieces must know: the size of the pieces a streamed upload is staged in. Ranges
 * start and end on piece boundaries (only the adopting save writes a short last piece).
 */

/** Bytes per piece row: the size of SQLite's submission_chunks, so that both engines hold a file alike. */
export const UPLOAD_PIECE_BYTES = 1024 * 1024;
