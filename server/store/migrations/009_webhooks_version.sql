-- Bumped in the same transaction as any change to a workspace's webhook endpoints (create,
-- enable, disable, delete). Renders read it with their environment row, so a process's cache of
-- "does anyone subscribe?" is invalidated by the database itself: the first render that starts
-- after a change sees it, on every process (docs/webhooks.md).
ALTER TABLE workspaces ADD COLUMN webhooks_version BIGINT NOT NULL DEFAULT 0;
