-- Issue 16 target 5: an FTP/SFTP upload is copied into the store while it streams, so that its CLOSE (the upload's
-- acknowledgement) only commits a remainder and the row, not one 50 MiB bytea. The pieces are keyed by the upload's
-- id, which becomes the id of the submission that adopts them (in the transaction that inserts its row, with an
-- empty raw, and deletes its upload_staging row); every instance reads them from here. Readers take a submission's
-- bytes from submissions.raw, or from here when raw is empty (store/postgres/pieces.ts).
-- upload_staging lists the uploads whose pieces no submission has adopted yet, with the time of their last piece:
-- the orphan sweep deletes the pieces of those not touched for a long time (a connection killed, a crash).
CREATE TABLE upload_pieces (
  upload_id text    NOT NULL,
  seq       integer NOT NULL,
  data      bytea   NOT NULL,
  PRIMARY KEY (upload_id, seq)
);
CREATE TABLE upload_staging (
  upload_id  text PRIMARY KEY,
  touched_at timestamptz NOT NULL
);
