-- Per-key request limits (NULL = SVC_RATE_LIMIT) and the shared sliding window behind them.
-- One row per key: 21 slots of 3 s (s0..s20, slot c in column c MOD 21) holding the tokens
-- nodes leased in that slot; `epoch` is the newest slot written. See server/auth/rate-limiter.ts.
-- The charset and collation are stated as on every table: key_id must match api_keys.id exactly
-- for the foreign key (errno 150 otherwise), whatever the database's default collation.
ALTER TABLE api_keys ADD COLUMN rate_limit INT NULL;
CREATE TABLE rate_limit_windows (
  key_id VARCHAR(32) NOT NULL PRIMARY KEY,
  epoch BIGINT NOT NULL DEFAULT 0,
  last_grant INT NOT NULL DEFAULT 0,
  leases BIGINT NOT NULL DEFAULT 0,
  s0 INT NOT NULL DEFAULT 0, s1 INT NOT NULL DEFAULT 0, s2 INT NOT NULL DEFAULT 0,
  s3 INT NOT NULL DEFAULT 0, s4 INT NOT NULL DEFAULT 0, s5 INT NOT NULL DEFAULT 0,
  s6 INT NOT NULL DEFAULT 0, s7 INT NOT NULL DEFAULT 0, s8 INT NOT NULL DEFAULT 0,
  s9 INT NOT NULL DEFAULT 0, s10 INT NOT NULL DEFAULT 0, s11 INT NOT NULL DEFAULT 0,
  s12 INT NOT NULL DEFAULT 0, s13 INT NOT NULL DEFAULT 0, s14 INT NOT NULL DEFAULT 0,
  s15 INT NOT NULL DEFAULT 0, s16 INT NOT NULL DEFAULT 0, s17 INT NOT NULL DEFAULT 0,
  s18 INT NOT NULL DEFAULT 0, s19 INT NOT NULL DEFAULT 0, s20 INT NOT NULL DEFAULT 0,
  CONSTRAINT fk_rate_key FOREIGN KEY (key_id) REFERENCES api_keys (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
