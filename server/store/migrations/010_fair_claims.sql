-- Fair job claims (tenant isolation): the claim serves workspaces in turn, reading each one's
-- oldest queued jobs through (status, workspace_id, seq): equality on the first two columns,
-- so ORDER BY seq comes from the index (no filesort, SKIP LOCKED keeps working), and the list
-- of workspaces with queued jobs is a loose index scan of the same index. It also counts each
-- workspace's running and queued jobs for the per-workspace caps.
ALTER TABLE render_jobs ADD KEY ix_jobs_fair (status, workspace_id, seq);
