-- Render warnings in the run history (e.g. characters no font has, drawn as .notdef boxes):
-- how many, and the first few texts as a JSON array bounded by the recorder (repos/runs.ts),
-- NULL when there were none. One ALTER with defaults: existing rows read 0 / NULL, and the
-- IF NOT EXISTS lets a migrator that stopped before recording this file run it again.
ALTER TABLE runs
  ADD COLUMN IF NOT EXISTS warning_count INT NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS warnings VARCHAR(1000) NULL;
