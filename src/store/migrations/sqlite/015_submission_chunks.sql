-- Raw bytes of a submission in pieces of their own table (issue 19 item 11, issue 16 target 6). Kept inside the
-- submissions row, a large file cost its size again in memory and in the WAL at every UPDATE of that row (claiming
-- it, recording its outcome): SQLite rewrites a whole record, overflow pages included. Pieces are written once with
-- the submission, in the same transaction, and never updated; SQLite copies one piece at a time, not the file.
-- Submissions saved before this migration keep their bytes in submissions.raw; new ones leave it empty (X'').
CREATE TABLE submission_chunks (
  submission_id TEXT    NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
  seq           INTEGER NOT NULL,
  data          BLOB    NOT NULL,
  PRIMARY KEY (submission_id, seq)
);
