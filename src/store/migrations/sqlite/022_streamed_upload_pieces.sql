-- Issue 16 target 5: an FTP/SFTP upload is copied into the store while it streams, so that its CLOSE (the upload's
-- acknowledgement) only commits a remainder and the row. The pieces cannot go into submission_chunks, whose foreign
-- key wants the submission row first, and moving them there at the CLOSE would write the file again. So they are
-- written here, keyed by the upload's id, which becomes the id of the submission that adopts them (in the
-- transaction that inserts its row and deletes its upload_staging row). Readers take a submission's bytes from
-- submission_chunks, else from here, else from submissions.raw (store/sqlite/bodies.ts).
-- upload_staging lists the uploads whose pieces no submission has adopted yet, with the time of their last piece:
-- the orphan sweep deletes the pieces of those not touched for a long time (a connection killed, a crash).
CREATE TABLE upload_pieces (
  upload_id TEXT    NOT NULL,
  seq       INTEGER NOT NULL,
  data      BLOB    NOT NULL,
  PRIMARY KEY (upload_id, seq)
);
CREATE TABLE upload_staging (
  upload_id  TEXT PRIMARY KEY,
  touched_at TEXT NOT NULL
);
