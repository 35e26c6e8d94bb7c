// Stored documents live in MySQL so any server process can serve a link; a sweeper deletes
// expired ones in small batches.
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise'
import type { Conn, Db } from '../db.js'

export interface StoredDocument { id: string, workspaceId: string, contentType: string, fileName: string, bytes: number, content: Buffer, expiresAt: Date }

export function documentsRepo (db: Db) {
  async function deleteExpired (limit = 500): Promise<number> {
    const [res] = await db.execute<ResultSetHeader>(`DELETE FROM documents WHERE expires_at <= UTC_TIMESTAMP(3) ORDER BY expires_at LIMIT ${Number(limit)}`)
    return res.affectedRows
  }
  return {
    async insert (conn: Conn | Db, doc: { id: string, workspaceId: string, jobId: string | null, contentType: string, fileName: string, content: Buffer, expiresAt: Date }): Promise<void> {
      await conn.execute('INSERT INTO documents (id, workspace_id, job_id, content_type, file_name, bytes, content, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [doc.id, doc.workspaceId, doc.jobId, doc.contentType, doc.fileName, doc.content.length, doc.content, doc.expiresAt])
    },
    /**
     * Many documents in one INSERT. Prepared (execute), not query(): the binary protocol sends the
     * bytes as they are, where query() would inline them as hex, twice the size against
     * max_allowed_packet.
     */
    async insertMany (conn: Conn | Db, docs: Array<{ id: string, workspaceId: string, jobId: string | null, contentType: string, fileName: string, content: Buffer, expiresAt: Date }>): Promise<void> {
      if (docs.length === 0) return
      await conn.execute(`INSERT INTO documents (id, workspace_id, job_id, content_type, file_name, bytes, content, expires_at) VALUES ${docs.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        docs.flatMap((d) => [d.id, d.workspaceId, d.jobId, d.contentType, d.fileName, d.content.length, d.content, d.expiresAt]))
    },
    /** The document if it exists and has not expired. */
    async get (id: string): Promise<StoredDocument | undefined> {
      const [rows] = await db.execute<RowDataPacket[]>(`SELECT id, workspace_id, content_type, file_name, bytes, content, expires_at FROM documents
        WHERE id = ? AND expires_at > UTC_TIMESTAMP(3)`, [id])
      if (rows.length === 0) return undefined
      const r = rows[0]
      return { id: r.id, workspaceId: r.workspace_id, contentType: r.content_type, fileName: r.file_name, bytes: r.bytes, content: r.content, expiresAt: r.expires_at }
    },
    deleteExpired,
    /**
     * One sweep: batches of `batch` rows (short transactions, short locks) until a batch comes
     * back short, at most `maxBatches` of them, so a backlog drains in a few sweeps rather than
     * at 500 rows a minute, and one sweep stays bounded.
     */
    async sweepExpired (batch = 500, maxBatches = 20): Promise<number> {
      let total = 0
      for (let i = 0; i < maxBatches; i++) {
        const deleted = await deleteExpired(batch)
        total += deleted
        if (deleted < batch) break
      }
      return total
    }
  }
}
export type DocumentsRepo = ReturnType<typeof documentsRepo>
