-- Webhook dispatcher claim index. A delivery is due when next_attempt_at <= now; terminal
-- deliveries (succeeded, abandoned) and parked ones (endpoint disabled) have next_attempt_at NULL,
-- and a claimed one has it moved to its lease expiry, so a crashed sender's delivery comes due
-- again by itself. `WHERE next_attempt_at <= ? ORDER BY next_attempt_at LIMIT n` walks this
-- index in order (no filesort), which FOR UPDATE SKIP LOCKED needs.
ALTER TABLE webhook_deliveries ADD KEY ix_deliveries_next (next_attempt_at);
