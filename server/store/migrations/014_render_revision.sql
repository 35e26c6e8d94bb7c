-- Bumped in the same statement as any change to what a render resolves to in a workspace: a
-- template's version in force or its disabled flag (a publish, enable, disable), an environment's
-- data source, a re-sealed data-source password. Renders read it with the API key's row, so each
-- process's held resolutions (template version + environment, services/templates.ts) are
-- invalidated by the database itself: the first render that starts after a change sees it, on
-- every process. Inserting a row needs no bump (only successful resolutions are held).
ALTER TABLE workspaces ADD COLUMN render_revision BIGINT NOT NULL DEFAULT 0;
