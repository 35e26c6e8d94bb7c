// Stored document bytes per workspace (the storage quota, docs/security.md): one counter row per
// workspace in document_usage (migration 017), changed in the transaction that writes or
// deletes the bytes it counts, so it stays right across nodes and crashes (a rolled-back write
// counts nothing; a dead writer's pending document counts until the sweep deletes it, which
// takes its bytes off in the same transaction). A pending document's `bytes` column is what was
// written of it so far, so a delete always knows what to take off. Reading the usage is one
// statement over one row per workspace with documents, never a SUM over the documents.
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise'
import { problem, type Problem } from '../../errors.js'
import { onlyRow, type Conn, type Db } from '../db.js'

export interface DocumentUsage { workspace: number, total: number }
/** SVC_DOCUMENT_WORKSPACE_QUOTA and SVC_DOCUMENT_TOTAL_QUOTA. */
export interface StorageQuota { workspaceBytes: number, totalBytes: number }

/** The problem of a document refused by the quota (a render limit: no new errorCode). */
export function quotaExceeded (over: 'workspace' | 'total', quota: StorageQuota): Problem {
  return problem('RENDER_LIMIT_EXCEEDED', `Stored documents would exceed ${over === 'workspace' ? 'this workspace\'s' : 'the service\'s'} ` +
    `storage quota of ${over === 'workspace' ? quota.workspaceBytes : quota.totalBytes} bytes; retry when older ` +
      'documents have expired')
}

/** Adds bytes to workspaces' counters without a bound (documents held whole; their size is known). */
export async function addUsage (conn: Conn | Db, bytes: Map<string, number>): Promise<void> {
  // Sorted: every transaction locks counter rows in the same order (no deadlock between two).
  for (const [workspaceId, n] of [...bytes].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)) {
    if (n === 0) continue
    await conn.execute(`INSERT INTO document_usage (workspace_id, bytes) VALUES (?, ?)
      ON DUPLICATE KEY UPDATE bytes = bytes + VALUES(bytes)`, [workspaceId, n])
  }
}

/** Takes deleted bytes off (never below 0: documents written before migration 017 on an old node). */
export async function subtractUsage (conn: Conn, bytes: Map<string, number>): Promise<void> {
  for (const [workspaceId, n] of [...bytes].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)) {
    if (n === 0) continue
    await conn.execute('UPDATE document_usage SET bytes = GREATEST(0, bytes - ?) WHERE workspace_id = ' +
      '?', [n, workspaceId])
  }
}

/**
 * Counts `n` more bytes for the workspace if that keeps it within `quota` and everyone within
 * `total`; else counts nothing and answers which bound it would pass. The workspace bound is
 * exact across nodes (the counter row's lock orders its writers); the total is read without a
 * lock, so writers of different workspaces at the same moment may pass it by a piece each.
 */
export async function reserveUsage (conn: Conn | Db, workspaceId: string, n: number, quota: number,
  total = Number.MAX_SAFE_INTEGER): Promise<'workspace' | 'total' | undefined> {
  if (total < Number.MAX_SAFE_INTEGER) {
    const [rows] = await conn.query<RowDataPacket[]>('SELECT COALESCE(SUM(bytes), 0) AS total FROM document_usage')
    if (Number(onlyRow(rows).total) + n > total) return 'total'
  }
  const add = async (): Promise<boolean> => {
    const [res] = await conn.execute<ResultSetHeader>(
      'UPDATE document_usage SET bytes = bytes + ? WHERE workspace_id = ? AND bytes + ? <= ' +
        '?', [n, workspaceId, n, quota])
    return res.affectedRows === 1
  }
  if (await add()) return undefined
  if (n > quota) return 'workspace'
  // No row yet (the workspace's first stored bytes), or over: with the row there, the update decides.
  // Not INSERT IGNORE: its duplicate-key check takes a shared lock, and two writers upgrading theirs
  // to the update's exclusive one deadlock; ON DUPLICATE KEY UPDATE locks exclusively at once.
  await conn.execute('INSERT INTO document_usage (workspace_id, bytes) VALUES (?, 0) ON DUPLICATE KEY UPDATE bytes = ' +
    'bytes', [workspaceId])
  return await add() ? undefined : 'workspace'
}

/** Sums per workspace of rows being deleted. */
export function byWorkspace (rows: Array<{ workspace_id: string, bytes: number }>): Map<string, number> {
  const out = new Map<string, number>()
  for (const r of rows) out.set(r.workspace_id, (out.get(r.workspace_id) ?? 0) + Number(r.bytes))
  return out
}

export interface DocumentUsageRepo {
  /** The workspace's stored bytes and everyone's (pending documents included). */
  usage(workspaceId: string): Promise<DocumentUsage>
  /** When the oldest stored document expires: the workspace's (index ix_docs_workspace_expiry) or anyone's. */
  oldestExpiry(workspaceId?: string): Promise<Date | undefined>
}

export function createDocumentUsageRepo (db: Db): DocumentUsageRepo {
  return {
    async usage (workspaceId: string): Promise<DocumentUsage> {
      const [rows] = await db.query<RowDataPacket[]>(`SELECT COALESCE(SUM(bytes), 0) AS total,
        COALESCE(SUM(IF(workspace_id = ?, bytes, 0)), 0) AS workspace FROM document_usage`, [workspaceId])
      const row = onlyRow(rows)
      return { workspace: Number(row.workspace), total: Number(row.total) }
    },
    async oldestExpiry (workspaceId?: string): Promise<Date | undefined> {
      const [rows] = workspaceId === undefined
        ? await db.query<RowDataPacket[]>('SELECT MIN(expires_at) AS at FROM documents')
        : await db.query<RowDataPacket[]>('SELECT MIN(expires_at) AS at FROM documents WHERE workspace_id = ' +
          '?', [workspaceId])
      return (onlyRow(rows).at as Date | null) ?? undefined
    }
  }
}
