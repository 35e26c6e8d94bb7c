-- Stored document bytes per workspace (issue 30, finding 5: the storage quota). One row per
-- workspace, changed in the same transaction as every write and delete of document bytes
-- (store/repos/document-usage.ts), so it is right across nodes and crashes without a SUM over
-- the documents; the first statements can be re-run (the backfill sets, it does not add).
CREATE TABLE IF NOT EXISTS document_usage (
  workspace_id CHAR(36) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
  bytes BIGINT NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

INSERT INTO document_usage (workspace_id, bytes)
  SELECT workspace_id, SUM(bytes) FROM documents GROUP BY workspace_id
  ON DUPLICATE KEY UPDATE bytes = VALUES(bytes);

-- When a workspace at its quota gets space back: its oldest document's expiry (Retry-After).
CREATE INDEX ix_docs_workspace_expiry ON documents (workspace_id, expires_at);
