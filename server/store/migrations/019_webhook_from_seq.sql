-- The events an endpoint receives: only those recorded after it was created or last enabled,
-- i.e. with events.seq above this value (the highest seq at that moment, read in the same
-- transaction; an order given by the database, not by the clocks of different nodes). Existing
-- endpoints get 0, which keeps their behaviour: every event still to fan out reaches them.
ALTER TABLE webhook_endpoints ADD COLUMN from_seq BIGINT NOT NULL DEFAULT 0;
