// Stored documents live in MySQL so any server process can serve a link; a sweeper deletes
// expired ones in small batches. A document is stored in chunks of DOCUMENT_CHUNK_BYTES: the
// first in its `documents` row (most documents are one chunk: one row, as before), the rest in
// `document_chunks` (migration 007), so no statement carries more than one chunk and any
// document up to SVC_RENDER_MAX_BYTES fits whatever the database's max_allowed_packet, as
// long as one chunk does (checked at start, store/limits.ts). Downloads stream chunk by chunk.
// A document may also be written while it renders (document-writer.ts): pending until committed.
// Every write and delete counts its bytes in document_usage in the same transaction (the storage
// quota, document-usage.ts).
import { Readable } from 'node:stream'
import type { RowDataPacket } from 'mysql2/promise'
import { transaction } from '../db.js'
import type { Conn, Db } from '../db.js'
import { addUsage, byWorkspace, quotaExceeded, reserveUsage, subtractUsage } from './document-usage.js'
import type { StorageQuota } from './document-usage.js'
import { commitPending, discardPending, createDocumentWriter } from './document-writer.js'
import type { DocumentWriter, PendingDocument } from './document-writer.js'

export const DOCUMENT_CHUNK_BYTES = 4 * 1024 * 1024

export interface NewDocument {
  id: string
  workspaceId: string
  jobId: string | null
  contentType: string
  fileName: string
  content: Buffer
  expiresAt: Date
}
export interface DocumentMeta {
  id: string
  workspaceId: string
  contentType: string
  fileName: string
  bytes: number
  expiresAt: Date
}
export interface StoredDocument extends DocumentMeta { content: Buffer }
/** A document to send: its metadata and its bytes as a stream (read one chunk at a time). */
export interface OpenDocument extends DocumentMeta { stream: Readable }

/** Groups of items whose total weight stays within `max` (a heavier item goes alone). */
function groups<T> (items: T[], weigh: (item: T) => number, max: number): T[][] {
  const out: T[][] = []
  let current: T[] = []
  let weight = 0
  for (const item of items) {
    const w = weigh(item)
    if (current.length > 0 && weight + w > max) { out.push(current); current = []; weight = 0 }
    current.push(item)
    weight += w
  }
  if (current.length > 0) out.push(current)
  return out
}

export interface DocumentsRepo {
  insert(conn: Conn | Db, doc: NewDocument, quota?: StorageQuota): Promise<void>
  insertMany: (conn: Conn | Db, docs: NewDocument[], quota?: StorageQuota) => Promise<void>
  /** A document written chunk by chunk while it renders, invisible until commitPending (document-writer.ts). */
  writer: (doc: PendingDocument) => DocumentWriter
  commitPending: typeof commitPending
  discardPending: (id: string) => Promise<void>
  /** The document if it exists and has not expired, its bytes streamed (see chunks). */
  open(id: string): Promise<OpenDocument | undefined>
  /** The whole document in memory (CLI and tests); downloads use open(). */
  get(id: string): Promise<StoredDocument | undefined>
  deleteExpired: (limit?: number) => Promise<number>
  /**
   * One sweep: batches of `batch` rows (short transactions, short locks) until a batch comes
   * back short, at most `maxBatches` of them, so a backlog drains in a few sweeps rather than
   * at 500 rows a minute, and one sweep stays bounded.
   */
  sweepExpired(batch?: number, maxBatches?: number): Promise<number>
  /** The same sweep for pending documents of dead writers (see deleteDeadPending); chunks go with them. */
  sweepDeadPending(maxAgeMs: number, batch?: number, maxBatches?: number): Promise<number>
}

export function createDocumentsRepo (db: Db, chunkBytes = DOCUMENT_CHUNK_BYTES): DocumentsRepo {
  /**
   * Deletes up to `limit` documents matching `where` (oldest first by `order`) and takes their
   * bytes off their workspaces' usage, in one short transaction. Rows another sweeper holds are
   * skipped, so nodes sweeping at once neither wait for each other nor count a row twice.
   */
  async function deleteCounted (where: string, order: string, limit: number): Promise<number> {
    return await transaction(db, async (conn) => {
      const [rows] = await conn.query<RowDataPacket[]>(`SELECT id, workspace_id, bytes FROM documents
        WHERE ${where} ORDER BY ${order} LIMIT ${Number(limit)} FOR UPDATE SKIP LOCKED`)
      if (rows.length === 0) return 0
      await conn.query('DELETE FROM documents WHERE id IN (?)', [rows.map((r) => r.id as string)])
      await subtractUsage(conn, byWorkspace(rows as Array<{ workspace_id: string, bytes: number }>))
      return rows.length
    })
  }

  async function deleteExpired (limit = 500): Promise<number> {
    return await deleteCounted('expires_at <= UTC_TIMESTAMP(3)', 'expires_at', limit)
  }

  /**
   * Pending documents older than `maxAgeMs` by the database's clock (the one that set
   * created_at, so nodes' clocks do not matter): their writer died, as no live one writes that
   * long (config.documents.pendingMaxAgeMs). Younger ones may be another node's render in flight.
   */
  async function deleteDeadPending (maxAgeMs: number, limit = 500): Promise<number> {
    return await deleteCounted('pending = 1 AND created_at <= UTC_TIMESTAMP(3) - ' +
      `INTERVAL ${Math.floor(maxAgeMs) * 1000} MICROSECOND`,
    'created_at', limit)
  }

  /** Batches of `batch` rows (short transactions, short locks) until one comes back short, at most `maxBatches`. */
  async function inBatches (remove: (limit: number) => Promise<number>, batch: number,
    maxBatches: number): Promise<number> {
    let total = 0
    for (let i = 0; i < maxBatches; i++) {
      const deleted = await remove(batch)
      total += deleted
      if (deleted < batch) break
    }
    return total
  }

  /**
   * Many documents: their rows (first chunks) in multi-row INSERTs of at most one chunk's worth
   * of bytes each, then every further chunk in a statement of its own. Prepared (execute), not
   * query(): the binary protocol sends the bytes as they are, where query() would inline them
   * as hex, twice the size against max_allowed_packet.
   */
  async function insertMany (conn: Conn | Db, docs: NewDocument[], quota?: StorageQuota): Promise<void> {
    if (docs.length === 0) return
    if (quota !== undefined) await reserve(conn, docs, quota)
    const head = (d: NewDocument): Buffer => d.content.subarray(0, chunkBytes)
    for (const group of groups(docs, (d) => head(d).length, chunkBytes)) {
      await conn.execute(
        'INSERT INTO documents (id, workspace_id, job_id, content_type, file_name, bytes, content, ' +
          `expires_at) VALUES ${group.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        group.flatMap((d) => [
          d.id,
          d.workspaceId,
          d.jobId,
          d.contentType,
          d.fileName,
          d.content.length,
          head(d),
          d.expiresAt
        ])
      )
    }
    for (const d of docs) {
      for (let seq = 1; seq * chunkBytes < d.content.length; seq++) {
        await conn.execute('INSERT INTO document_chunks (document_id, seq, content) VALUES (?, ?, ?)',
          [d.id, seq, d.content.subarray(seq * chunkBytes, (seq + 1) * chunkBytes)])
      }
    }
    // Without a quota, counted, not bounded: a job's document held whole is small
    // (SVC_RENDER_STREAM_ABOVE) and its job was admitted under the quota (jobs/storage-cap.ts);
    // refusing it here would fail a whole group commit.
    if (quota === undefined) {
      await addUsage(conn, byWorkspace(docs.map((d) => ({ workspace_id: d.workspaceId, bytes: d.content.length }))))
    }
  }

  /** Counts each document against the quota, or throws RENDER_LIMIT_EXCEEDED (the caller's transaction rolls back). */
  async function reserve (conn: Conn | Db, docs: NewDocument[], quota: StorageQuota): Promise<void> {
    const sorted = [...docs].sort((a, b) => a.workspaceId < b.workspaceId ? -1 : a.workspaceId > b.workspaceId ? 1 : 0)
    for (const d of sorted) {
      const over = await reserveUsage(conn, d.workspaceId, d.content.length, quota.workspaceBytes, quota.totalBytes)
      if (over !== undefined) throw quotaExceeded(over, quota)
    }
  }

  async function head (id: string): Promise<{ meta: DocumentMeta, first: Buffer } | undefined> {
    const [rows] = await db.execute<RowDataPacket[]>(`SELECT id, workspace_id, content_type, file_name, bytes,
      content, expires_at FROM documents
      WHERE id = ? AND expires_at > UTC_TIMESTAMP(3) AND pending = 0`, [id])
    const [r] = rows
    if (r === undefined) return undefined
    return {
      meta: {
        id: r.id,
        workspaceId: r.workspace_id,
        contentType: r.content_type,
        fileName: r.file_name,
        bytes: r.bytes,
        expiresAt: r.expires_at
      },
      first: r.content
    }
  }

  async function * chunks ({ meta, first }: { meta: DocumentMeta, first: Buffer }): AsyncGenerator<Buffer> {
    yield first
    let sent = first.length
    for (let seq = 1; sent < meta.bytes; seq++) {
      const [rows] = await db.execute<RowDataPacket[]>('SELECT content FROM document_chunks WHERE document_id = ? ' +
        'AND seq = ?', [meta.id, seq])
      // Swept (or deleted) while being sent: the response ends short and the client sees it.
      const [row] = rows
      if (row === undefined) throw new Error(`document ${meta.id} lost chunk ${seq} while being sent`)
      const chunk = row.content as Buffer
      sent += chunk.length
      yield chunk
    }
  }

  return {
    async insert (conn: Conn | Db, doc: NewDocument, quota?: StorageQuota): Promise<void> {
      await insertMany(conn, [doc], quota)
    },
    insertMany,
    writer: (doc: PendingDocument): DocumentWriter => createDocumentWriter(db, doc, chunkBytes),
    commitPending,
    discardPending: (id: string): Promise<void> => discardPending(db, id),
    async open (id: string): Promise<OpenDocument | undefined> {
      const doc = await head(id)
      if (doc === undefined) return undefined
      return { ...doc.meta, stream: Readable.from(chunks(doc), { objectMode: false }) }
    },
    async get (id: string): Promise<StoredDocument | undefined> {
      const doc = await head(id)
      if (doc === undefined) return undefined
      const parts: Buffer[] = []
      for await (const chunk of chunks(doc)) parts.push(chunk)
      return { ...doc.meta, content: Buffer.concat(parts) }
    },
    deleteExpired,
    async sweepExpired (batch = 500, maxBatches = 20): Promise<number> {
      return await inBatches(deleteExpired, batch, maxBatches)
    },
    async sweepDeadPending (maxAgeMs: number, batch = 500, maxBatches = 20): Promise<number> {
      return await inBatches((limit) => deleteDeadPending(maxAgeMs, limit), batch, maxBatches)
    }
  }
}
