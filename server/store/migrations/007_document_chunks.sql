-- Documents larger than one statement may carry (max_allowed_packet): the first 4 MiB stay in
-- documents.content, the rest in 4 MiB rows here, deleted with their document.
CREATE TABLE document_chunks (
  document_id CHAR(36) NOT NULL,
  seq INT NOT NULL,
  content LONGBLOB NOT NULL,
  PRIMARY KEY (document_id, seq),
  CONSTRAINT fk_chunks_doc FOREIGN KEY (document_id) REFERENCES documents (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
