-- Printer resolution of labels (issue 35): an environment's default (NULL = each template's own
-- authored resolution) and, in the run history, the resolution a label was rendered at (NULL for
-- documents). The job view reads it from the job's run.
ALTER TABLE environments ADD COLUMN label_dpi SMALLINT NULL;
ALTER TABLE runs ADD COLUMN label_dpi SMALLINT NULL;
