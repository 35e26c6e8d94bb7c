-- Render warnings in the run history (e.g. characters no font has, drawn as .notdef boxes):
-- how many, and the first few texts as a JSON array bounded by the recorder (repos/runs.ts),
-- NULL when there were none. One ALTER with defaults: existing rows read 0 / NULL. A migrator
-- that stopped before recording this file runs it again and takes "Duplicate column" as applied
-- (server/store/migrate.ts), so no MariaDB-only ADD COLUMN IF NOT EXISTS is needed.
ALTER TABLE runs
  ADD COLUMN warning_count INT NOT NULL DEFAULT 0,
  ADD COLUMN warnings VARCHAR(1000) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL;
