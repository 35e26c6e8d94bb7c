-- Documents written while they render (issue 15): chunks are appended under a `pending` row
-- that no download sees; the commit that finishes the run flips it. A writer that died leaves
-- a pending row that the expiry sweep deletes with its chunks (ON DELETE CASCADE).
ALTER TABLE documents ADD COLUMN pending TINYINT(1) NOT NULL DEFAULT 0;
