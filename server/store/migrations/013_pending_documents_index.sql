-- The expiry sweep also deletes pending documents whose writer is dead (older than
-- config.documents.pendingMaxAgeMs): this index lets it find them without scanning every
-- document, and lock only the rows it deletes.
ALTER TABLE documents ADD KEY ix_docs_pending (pending, created_at);
