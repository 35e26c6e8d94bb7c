-- Retry backoff for jobs: a transient failure requeues the job with not_before in the future,
-- and the claim skips it until then. The claim still walks ix_jobs_claim (status, seq) so its
-- ORDER BY needs no filesort (shared/notes: a filesort plan breaks SKIP LOCKED); not_before is
-- checked on the rows it reads, and only jobs waiting for a retry have it set.
ALTER TABLE render_jobs ADD COLUMN not_before DATETIME(3) NULL AFTER lease_expires_at;
