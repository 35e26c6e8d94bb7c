// Run history (the Logs page). Writes are batched: one multi-row INSERT per flush.
import type { RowDataPacket } from 'mysql2/promise'
import type { Conn, Db } from '../db.js'

export interface RunRecord {
  id: string
  workspaceId: string
  apiKeyId: string | null
  apiKeyPrefix: string | null
  apiKeyName: string | null
  correlationId: string
  mode: 'sync' | 'async'
  jobId: string | null
  templateCode: string
  version: number | null
  environment: string | null
  format: string | null
  status: 'succeeded' | 'failed'
  errorCode: string | null
  errorMessage: string | null
  durationMs: number
  pageCount: number | null
  labelCount: number | null
  outputBytes: number | null
  /** How many warnings the render gave (characters no font has …); 0 when none or failed. */
  warningCount: number
  /** The first warning texts, as many as fit the column (see storedWarnings); [] when none. */
  warnings: string[]
  startedAt: Date
  completedAt: Date
  /** Labels: the printer resolution rendered at (018_label_dpi.sql); null otherwise. */
  labelDpi?: number | null
}

const COLUMNS = ['id', 'workspace_id', 'api_key_id', 'api_key_prefix', 'api_key_name', 'correlation_id', 'mode', 'job_id', 'template_code',
  'version', 'environment', 'format', 'status', 'error_code', 'error_message', 'duration_ms', 'page_count', 'label_count', 'output_bytes',
  'warning_count', 'warnings', 'started_at', 'completed_at', 'label_dpi']

/** Size of the `warnings` column (011_run_warnings.sql) and what one stored text may take. */
const WARNINGS_CHARS = 1000
const WARNING_CHARS = 300

/**
 * The first warnings as a JSON array that fits the column (whole texts, each cut to
 * WARNING_CHARS), or NULL for none: the count says how many there were in all.
 */
export function storedWarnings (warnings: readonly string[]): string | null {
  const kept: string[] = []
  for (const w of warnings) {
    const text = w.length > WARNING_CHARS ? w.slice(0, WARNING_CHARS - 1) + '…' : w
    if (JSON.stringify([...kept, text]).length > WARNINGS_CHARS) break
    kept.push(text)
  }
  return kept.length === 0 ? null : JSON.stringify(kept)
}

function parseWarnings (text: string | null): string[] {
  if (text === null) return []
  const parsed: unknown = JSON.parse(text)
  return Array.isArray(parsed) ? parsed.filter((w): w is string => typeof w === 'string') : []
}

function values (r: RunRecord): unknown[] {
  return [
    r.id,
    r.workspaceId,
    r.apiKeyId,
    r.apiKeyPrefix,
    r.apiKeyName,
    r.correlationId,
    r.mode,
    r.jobId,
    r.templateCode,
    r.version,
    r.environment,
    r.format,
    r.status,
    r.errorCode,
    r.errorMessage?.slice(0, 2000) ?? null,
    r.durationMs,
    r.pageCount,
    r.labelCount,
    r.outputBytes,
    r.warningCount,
    storedWarnings(r.warnings),
    r.startedAt,
    r.completedAt,
    r.labelDpi ?? null
  ]
}

function toRun (r: RowDataPacket): RunRecord {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    apiKeyId: r.api_key_id,
    apiKeyPrefix: r.api_key_prefix,
    apiKeyName: r.api_key_name,
    correlationId: r.correlation_id,
    mode: r.mode,
    jobId: r.job_id,
    templateCode: r.template_code,
    version: r.version,
    environment: r.environment,
    format: r.format,
    status: r.status,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    durationMs: r.duration_ms,
    pageCount: r.page_count,
    labelCount: r.label_count,
    outputBytes: r.output_bytes,
    warningCount: r.warning_count,
    warnings: parseWarnings(r.warnings),
    startedAt: r.started_at,
    completedAt: r.completed_at,
    labelDpi: r.label_dpi ?? null
  }
}

export interface RunsRepo {
  insertMany(conn: Conn | Db, runs: RunRecord[]): Promise<void>
  list(workspaceId: string, filter: {
    limit: number
    keyPrefix?: string
    status?: 'succeeded' | 'failed'
  }): Promise<RunRecord[]>
  get(id: string): Promise<RunRecord | undefined>
}

export function createRunsRepo (db: Db): RunsRepo {
  return {
    async insertMany (conn: Conn | Db, runs: RunRecord[]): Promise<void> {
      if (runs.length === 0) return
      await conn.query(`INSERT INTO runs (${COLUMNS.join(', ')}) VALUES ?`, [runs.map(values)])
    },
    async list (workspaceId: string, filter: { limit: number, keyPrefix?: string, status?: 'succeeded' | 'failed' }): Promise<RunRecord[]> {
      const where = ['workspace_id = ?']
      const args: unknown[] = [workspaceId]
      if (filter.keyPrefix !== undefined) { where.push('api_key_prefix = ?'); args.push(filter.keyPrefix) }
      if (filter.status !== undefined) { where.push('status = ?'); args.push(filter.status) }
      const [rows] = await db.query<RowDataPacket[]>(`SELECT * FROM runs WHERE ${where.join(' AND ')} ORDER BY started_at DESC, id LIMIT ?`, [...args, filter.limit])
      return rows.map(toRun)
    },
    async get (id: string): Promise<RunRecord | undefined> {
      const [rows] = await db.query<RowDataPacket[]>('SELECT * FROM runs WHERE id = ?', [id])
      return rows[0] === undefined ? undefined : toRun(rows[0])
    }
  }
}
