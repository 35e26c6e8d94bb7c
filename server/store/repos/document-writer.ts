// A document written while it renders: output is gathered into DOCUMENT_CHUNK_BYTES pieces and
// each full piece is written at once (the first as the `documents` row, marked pending; the
// rest into `document_chunks`), so at most one chunk is held. Nothing is visible to downloads
// until commit() flips `pending` in the transaction that finishes the run; a writer that
// failed or whose process died leaves a pending row that discard() or the expiry sweep deletes.
// A job's writes are fenced on its claim (id, lease owner, attempts, still running): a claim
// that lost its lease cannot add a byte to anything. Each piece is counted against the
// workspace's storage quota in the transaction that writes it (document-usage.ts): a piece that
// would pass the quota is not written, and the render fails with RENDER_LIMIT_EXCEEDED.
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise'
import { transaction } from '../db.js'
import type { Conn, Db } from '../db.js'
import { addUsage, quotaExceeded, reserveUsage, subtractUsage } from './document-usage.js'

export interface PendingDocument {
  id: string
  workspaceId: string
  jobId: string | null
  contentType: string
  fileName: string
  expiresAt: Date
  /** The job claim the writes belong to (async jobs); absent for sync renders. */
  fence?: { owner: string, attempts: number }
  /** The workspace's storage quota in bytes (SVC_DOCUMENT_WORKSPACE_QUOTA); absent: counted, not bounded. */
  quotaBytes?: number
  /** All workspaces' (SVC_DOCUMENT_TOTAL_QUOTA), checked with quotaBytes. */
  totalQuotaBytes?: number
}

export interface DocumentWriter {
  /** Resolves when the chunk is held or written; rejects when a write failed or the lease was lost. */
  write (chunk: Buffer): Promise<void>
  /** Writes what is left; answers the document's size. Still pending until commit. */
  finish (): Promise<number>
}

export class LeaseLost extends Error {}

export function createDocumentWriter (db: Db, doc: PendingDocument, chunkBytes: number): DocumentWriter {
  let parts: Buffer[] = []
  let held = 0
  let seq = 0
  let total = 0
  const fence = doc.fence === undefined
    ? { sql: 'FROM DUAL', args: [] as Array<string | number | null> }
    : {
        sql: 'FROM render_jobs WHERE id = ? AND lease_owner = ? AND attempts = ? AND status = \'running\'',
        args: [doc.jobId, doc.fence.owner, doc.fence.attempts] as Array<string | number | null>
      }

  async function flush (): Promise<void> {
    const content = parts.length === 1 && parts[0] !== undefined ? parts[0] : Buffer.concat(parts, held)
    parts = []
    held = 0
    await transaction(db, async (conn) => {
      if (doc.quotaBytes === undefined) await addUsage(conn, new Map([[doc.workspaceId, content.length]]))
      else if (content.length > 0) {
        const over = await reserveUsage(conn, doc.workspaceId, content.length, doc.quotaBytes, doc.totalQuotaBytes)
        if (over !== undefined) {
          const totalBytes = doc.totalQuotaBytes ?? Number.MAX_SAFE_INTEGER
          throw quotaExceeded(over, { workspaceBytes: doc.quotaBytes, totalBytes })
        }
      }
      // `bytes` of a pending document is what was written so far (a delete takes that off the quota).
      const [res] = seq === 0
        ? await conn.execute<ResultSetHeader>(
          `INSERT INTO documents (id, workspace_id, job_id, content_type, file_name, bytes, content, expires_at,
            pending)
          SELECT ?, ?, ?, ?, ?, ?, ?, ?, 1 ${fence.sql}`,
          [doc.id, doc.workspaceId, doc.jobId, doc.contentType, doc.fileName, content.length, content, doc.expiresAt,
            ...fence.args])
        : await conn.execute<ResultSetHeader>(
          `INSERT INTO document_chunks (document_id, seq, content) SELECT ?, ?, ? ${fence.sql}`,
          [doc.id, seq, content, ...fence.args])
      if (res.affectedRows !== 1) {
        throw new LeaseLost(`job ${String(doc.jobId)} lost its lease while writing its ` +
        'document')
      }
      if (seq > 0) await conn.execute('UPDATE documents SET bytes = bytes + ? WHERE id = ?', [content.length, doc.id])
    })
    seq++
  }

  return {
    async write (chunk) {
      total += chunk.length
      let rest = chunk
      while (held + rest.length >= chunkBytes) {
        const take = chunkBytes - held
        parts.push(rest.subarray(0, take))
        held += take
        rest = rest.subarray(take)
        await flush()
      }
      if (rest.length > 0) { parts.push(rest); held += rest.length }
    },
    async finish () {
      if (held > 0 || seq === 0) await flush()
      return total
    }
  }
}

/**
 * Makes pending documents visible: inside the transaction that finishes the run. Their `bytes`
 * is already their size (every piece written added its own), as counted in document_usage.
 */
export async function commitPending (conn: Conn | Db, docs: Array<{ id: string }>): Promise<void> {
  for (const d of docs) {
    await conn.execute('UPDATE documents SET pending = 0 WHERE id = ? AND pending = 1', [d.id])
  }
}

/** Deletes a pending document (its chunks go with it) and its bytes from the quota; never a committed one. */
export async function discardPending (db: Db, id: string): Promise<void> {
  await transaction(db, async (conn) => {
    const [rows] = await conn.execute<RowDataPacket[]>('SELECT workspace_id, bytes FROM documents WHERE id = ? AND ' +
      'pending = 1 FOR UPDATE', [id])
    const [row] = rows
    if (row === undefined) return
    await conn.execute('DELETE FROM documents WHERE id = ?', [id])
    await subtractUsage(conn, new Map([[row.workspace_id as string, Number(row.bytes)]]))
  })
}
