-- Claims of a delivery, counted at claim time. A send cut short by a crash records no attempt,
-- so claims - attempts is the number of interrupted sends; the dispatcher abandons a delivery
-- whose sending keeps stopping its sender (a poison delivery must not be retried forever).
ALTER TABLE webhook_deliveries ADD COLUMN claims INT NOT NULL DEFAULT 0;
