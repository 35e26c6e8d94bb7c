-- The data model for the whole spec. Times are UTC DATETIME(3); public ids are UUID strings;
-- queues also carry an AUTO_INCREMENT `seq` so claims can walk an index in arrival order.
-- Portable DDL (docs/deploy.md): every table states utf8mb4 / utf8mb4_bin, and a default that
-- calls a function is in parentheses (MySQL 8 accepts no other form; MariaDB reads it the same).

CREATE TABLE workspaces (
  id CHAR(36) NOT NULL PRIMARY KEY,
  name VARCHAR(200) NOT NULL,
  created_at DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- An environment of a workspace with its MySQL data source. The password is encrypted with the
-- master key (AES-256-GCM); the rest of the connection is not secret but never leaves the server.
CREATE TABLE environments (
  id CHAR(36) NOT NULL PRIMARY KEY,
  workspace_id CHAR(36) NOT NULL,
  env_key VARCHAR(64) NOT NULL,
  is_production TINYINT(1) NOT NULL DEFAULT 0,
  ds_host VARCHAR(255) NULL,
  ds_port INT NULL,
  ds_user VARCHAR(128) NULL,
  ds_password_enc VARBINARY(512) NULL,
  ds_database VARCHAR(128) NULL,
  ds_version INT NOT NULL DEFAULT 1,
  created_at DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
  updated_at DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
  UNIQUE KEY uq_env (workspace_id, env_key),
  CONSTRAINT fk_env_ws FOREIGN KEY (workspace_id) REFERENCES workspaces (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- API keys: `svc_<mode>_<id>_<secret>`; only SHA-256 of the secret is stored.
CREATE TABLE api_keys (
  id VARCHAR(32) NOT NULL PRIMARY KEY,
  workspace_id CHAR(36) NOT NULL,
  name VARCHAR(200) NOT NULL,
  mode ENUM('live', 'test') NOT NULL,
  scopes VARCHAR(255) NOT NULL,
  secret_hash BINARY(32) NOT NULL,
  expires_at DATETIME(3) NULL,
  revoked_at DATETIME(3) NULL,
  last_used_at DATETIME(3) NULL,
  created_at DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
  KEY ix_keys_ws (workspace_id, created_at),
  CONSTRAINT fk_keys_ws FOREIGN KEY (workspace_id) REFERENCES workspaces (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE templates (
  id CHAR(36) NOT NULL PRIMARY KEY,
  workspace_id CHAR(36) NOT NULL,
  code VARCHAR(64) NOT NULL,
  format ENUM('document', 'label') NOT NULL,
  current_version INT NULL,
  disabled TINYINT(1) NOT NULL DEFAULT 0,
  created_at DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
  updated_at DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
  UNIQUE KEY uq_template (workspace_id, code),
  CONSTRAINT fk_tpl_ws FOREIGN KEY (workspace_id) REFERENCES workspaces (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Published versions are immutable: the definition is the template file as published.
CREATE TABLE template_versions (
  template_id CHAR(36) NOT NULL,
  version INT NOT NULL,
  description VARCHAR(1000) NOT NULL DEFAULT '',
  document_type VARCHAR(200) NOT NULL DEFAULT '',
  definition LONGTEXT NOT NULL,
  public_view LONGTEXT NOT NULL,
  note VARCHAR(1000) NULL,
  published_by VARCHAR(200) NULL,
  published_at DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
  PRIMARY KEY (template_id, version),
  CONSTRAINT fk_tv_tpl FOREIGN KEY (template_id) REFERENCES templates (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Durable async render queue. Claimed with FOR UPDATE SKIP LOCKED in READ COMMITTED through
-- ix_jobs_claim (status, seq) so the claim's ORDER BY never needs a filesort.
CREATE TABLE render_jobs (
  seq BIGINT NOT NULL AUTO_INCREMENT,
  id CHAR(36) NOT NULL,
  workspace_id CHAR(36) NOT NULL,
  api_key_id VARCHAR(32) NOT NULL,
  api_key_prefix VARCHAR(64) NOT NULL,
  api_key_name VARCHAR(200) NOT NULL,
  template_id CHAR(36) NOT NULL,
  template_code VARCHAR(64) NOT NULL,
  version INT NOT NULL,
  environment VARCHAR(64) NOT NULL,
  format ENUM('pdf', 'zpl') NOT NULL,
  parameters LONGTEXT NOT NULL,
  context LONGTEXT NOT NULL,
  file_name VARCHAR(255) NOT NULL,
  status ENUM('queued', 'running', 'succeeded', 'failed') NOT NULL DEFAULT 'queued',
  attempts INT NOT NULL DEFAULT 0,
  lease_owner VARCHAR(64) NULL,
  lease_expires_at DATETIME(3) NULL,
  correlation_id VARCHAR(128) NOT NULL,
  run_id CHAR(36) NULL,
  document_id CHAR(36) NULL,
  page_count INT NULL,
  label_count INT NULL,
  output_bytes INT NULL,
  error_code VARCHAR(64) NULL,
  error_message VARCHAR(2000) NULL,
  created_at DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
  started_at DATETIME(3) NULL,
  completed_at DATETIME(3) NULL,
  PRIMARY KEY (seq),
  UNIQUE KEY uq_jobs_id (id),
  KEY ix_jobs_claim (status, seq),
  KEY ix_jobs_lease (status, lease_expires_at),
  KEY ix_jobs_ws (workspace_id, created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Stored documents (async results, and sync results when a webhook subscriber needs a link).
CREATE TABLE documents (
  id CHAR(36) NOT NULL PRIMARY KEY,
  workspace_id CHAR(36) NOT NULL,
  job_id CHAR(36) NULL,
  content_type VARCHAR(64) NOT NULL,
  file_name VARCHAR(255) NOT NULL,
  bytes INT NOT NULL,
  content LONGBLOB NOT NULL,
  created_at DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
  expires_at DATETIME(3) NOT NULL,
  KEY ix_docs_expiry (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Run history (the Logs page): one row per render, sync or async, success or failure.
CREATE TABLE runs (
  id CHAR(36) NOT NULL PRIMARY KEY,
  workspace_id CHAR(36) NOT NULL,
  api_key_id VARCHAR(32) NULL,
  api_key_prefix VARCHAR(64) NULL,
  api_key_name VARCHAR(200) NULL,
  correlation_id VARCHAR(128) NOT NULL,
  mode ENUM('sync', 'async') NOT NULL,
  job_id CHAR(36) NULL,
  template_code VARCHAR(64) NOT NULL,
  version INT NULL,
  environment VARCHAR(64) NULL,
  format VARCHAR(8) NULL,
  status ENUM('succeeded', 'failed') NOT NULL,
  error_code VARCHAR(64) NULL,
  error_message VARCHAR(2000) NULL,
  duration_ms INT NOT NULL,
  page_count INT NULL,
  label_count INT NULL,
  output_bytes INT NULL,
  started_at DATETIME(3) NOT NULL,
  completed_at DATETIME(3) NOT NULL,
  KEY ix_runs_ws (workspace_id, started_at),
  KEY ix_runs_key (api_key_id, started_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE webhook_endpoints (
  id CHAR(36) NOT NULL PRIMARY KEY,
  workspace_id CHAR(36) NOT NULL,
  url VARCHAR(2048) NOT NULL,
  events VARCHAR(512) NOT NULL,
  description VARCHAR(1000) NOT NULL DEFAULT '',
  -- The signing secret must be read back to sign, so it is encrypted, not hashed.
  secret_enc VARBINARY(512) NOT NULL,
  enabled TINYINT(1) NOT NULL DEFAULT 1,
  created_at DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
  updated_at DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
  KEY ix_wh_ws (workspace_id, enabled),
  CONSTRAINT fk_wh_ws FOREIGN KEY (workspace_id) REFERENCES workspaces (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The outbox: events are written in the same transaction as the outcome they announce, then
-- fanned out into deliveries (fanned_out = 1) by whichever process claims them.
CREATE TABLE events (
  seq BIGINT NOT NULL AUTO_INCREMENT,
  id CHAR(36) NOT NULL,
  workspace_id CHAR(36) NOT NULL,
  type VARCHAR(64) NOT NULL,
  payload LONGTEXT NOT NULL,
  fanned_out TINYINT(1) NOT NULL DEFAULT 0,
  created_at DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
  PRIMARY KEY (seq),
  UNIQUE KEY uq_events_id (id),
  KEY ix_events_fanout (fanned_out, seq)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE webhook_deliveries (
  seq BIGINT NOT NULL AUTO_INCREMENT,
  id CHAR(36) NOT NULL,
  event_id CHAR(36) NOT NULL,
  endpoint_id CHAR(36) NOT NULL,
  workspace_id CHAR(36) NOT NULL,
  status ENUM('pending', 'succeeded', 'failed', 'abandoned') NOT NULL DEFAULT 'pending',
  attempts INT NOT NULL DEFAULT 0,
  next_attempt_at DATETIME(3) NULL,
  lease_expires_at DATETIME(3) NULL,
  last_http_status INT NULL,
  last_response_excerpt VARCHAR(1024) NULL,
  last_error VARCHAR(1000) NULL,
  created_at DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
  updated_at DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
  PRIMARY KEY (seq),
  UNIQUE KEY uq_deliveries_id (id),
  KEY ix_deliveries_due (status, next_attempt_at),
  KEY ix_deliveries_endpoint (endpoint_id, seq)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE webhook_attempts (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  delivery_id CHAR(36) NOT NULL,
  attempt INT NOT NULL,
  started_at DATETIME(3) NOT NULL,
  duration_ms INT NOT NULL,
  http_status INT NULL,
  response_excerpt VARCHAR(1024) NULL,
  error VARCHAR(1000) NULL,
  KEY ix_attempts_delivery (delivery_id, attempt)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
