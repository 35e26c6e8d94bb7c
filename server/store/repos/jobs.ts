// The durable render queue. Claims use FOR UPDATE SKIP LOCKED in READ COMMITTED through
// ix_jobs_fair (status, workspace_id, seq): the ORDER BY is served by the index, so concurrent
// claimers skip each other's rows instead of blocking (the filesort trap in shared/notes); not_before
// (a retry's backoff) is a filter on the rows read, not part of the index.
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise'
import type { Conn, Db } from '../db.js'
import { onlyRow, transaction } from '../db.js'
import { fairPick, fairTurn } from './jobs-fair.js'

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed'

export interface JobRow {
  seq: number
  id: string
  workspaceId: string
  apiKeyId: string
  apiKeyPrefix: string
  apiKeyName: string
  templateId: string
  templateCode: string
  version: number
  environment: string
  format: 'pdf' | 'zpl'
  parameters: Record<string, unknown>
  context: Record<string, unknown>
  fileName: string
  status: JobStatus
  attempts: number
  correlationId: string
  runId: string | null
  documentId: string | null
  documentExpiresAt: Date | null
  pageCount: number | null
  labelCount: number | null
  /** Labels: the resolution of the job's run (read by `get` only, for the job view). */
  labelDpi?: number | null
  outputBytes: number | null
  errorCode: string | null
  errorMessage: string | null
  createdAt: Date
  startedAt: Date | null
  completedAt: Date | null
}

export type NewJob = Pick<JobRow, 'id' | 'workspaceId' | 'apiKeyId' | 'apiKeyPrefix' | 'apiKeyName' | 'templateId' | 'templateCode' | 'version' | 'environment' | 'format' | 'parameters' | 'context' | 'fileName' | 'correlationId'>

const JOB_COLUMNS = `j.seq, j.id, j.workspace_id, j.api_key_id, j.api_key_prefix, j.api_key_name, j.template_id, j.template_code, j.version,
  j.environment, j.format, j.parameters, j.context, j.file_name, j.status, j.attempts, j.correlation_id, j.run_id, j.document_id,
  j.page_count, j.label_count, j.output_bytes, j.error_code, j.error_message, j.created_at, j.started_at, j.completed_at`
const COLUMNS = `${JOB_COLUMNS}, d.expires_at AS document_expires_at`
const FROM = 'render_jobs j LEFT JOIN documents d ON d.id = j.document_id'

function toJob (r: RowDataPacket): JobRow {
  return {
    seq: Number(r.seq),
    id: r.id,
    workspaceId: r.workspace_id,
    apiKeyId: r.api_key_id,
    apiKeyPrefix: r.api_key_prefix,
    apiKeyName: r.api_key_name,
    templateId: r.template_id,
    templateCode: r.template_code,
    version: r.version,
    environment: r.environment,
    format: r.format,
    parameters: JSON.parse(r.parameters),
    context: JSON.parse(r.context),
    fileName: r.file_name,
    status: r.status,
    attempts: r.attempts,
    correlationId: r.correlation_id,
    runId: r.run_id,
    documentId: r.document_id,
    documentExpiresAt: r.document_expires_at ?? null,
    pageCount: r.page_count,
    labelCount: r.label_count,
    labelDpi: r.label_dpi ?? null,
    outputBytes: r.output_bytes,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    createdAt: r.created_at,
    startedAt: r.started_at,
    completedAt: r.completed_at
  }
}

export interface JobOutcome {
  status: 'succeeded' | 'failed'
  runId: string
  documentId: string | null
  pageCount: number | null
  labelCount: number | null
  outputBytes: number | null
  errorCode: string | null
  errorMessage: string | null
}

/** The request's columns of a job row, in the order both INSERTs list them. */
const requestValues = (job: NewJob): Array<string | number | Date | null> => [
  job.id, job.workspaceId, job.apiKeyId, job.apiKeyPrefix, job.apiKeyName, job.templateId, job.templateCode,
  job.version, job.environment, job.format, JSON.stringify(job.parameters), JSON.stringify(job.context),
  job.fileName, job.correlationId
]

/** A finished job's outcome columns, in the order both writes list them (run_id … error_message). */
const outcomeValues = (outcome: JobOutcome): Array<string | number | null> => [
  outcome.runId, outcome.documentId, outcome.pageCount, outcome.labelCount, outcome.outputBytes,
  outcome.errorCode, outcome.errorMessage?.slice(0, 2000) ?? null
]

export interface JobsRepo {
  insert(conn: Conn | Db, job: NewJob, createdAt?: Date): Promise<void>
  /**
   * The record of a sync render whose event has a subscriber (the event names a jobId that
   * GET /jobs/{jobId} answers): written once, finished, one attempt that started with the render.
   */
  insertFinished(conn: Conn | Db, job: NewJob, startedAt: Date, outcome: JobOutcome): Promise<void>
  /** Many queued jobs in one multi-row INSERT (the enqueue batcher's write); parameters and context as JSON text. */
  insertMany(conn: Conn | Db, jobs: Array<{
    job: NewJob
    createdAt: Date
    parameters: string
    context: string
  }>): Promise<void>
  /** Queued jobs of a workspace, counted up to `max` (the cap's bound: the count never reads more). */
  countQueued(workspaceId: string, max: number): Promise<number>
  get(workspaceId: string, id: string): Promise<JobRow | undefined>
  /**
   * Claims up to `limit` queued jobs for `owner`, each with a lease; attempts counts claims.
   * Fair across workspaces: round-robin shares over the workspaces with queued jobs, each at
   * most `maxRunningPerWorkspace` running jobs (over all processes) — so one workspace's
   * backlog never holds another's first job behind it.
   */
  claim(owner: string, limit: number, leaseMs: number, maxRunningPerWorkspace?: number): Promise<JobRow[]>
  /** Whether any job is queued (due or not): the claim loop's poll asks this before a claim. */
  anyQueued(): Promise<boolean>
  /** Extends the leases of the claims this owner holds; a claim is (id, attempts as claimed). */
  renewLeases(owner: string, held: Array<{
    id: string
    attempts: number
  }>, leaseMs: number): Promise<void>
  /**
   * Finishes a job this claim still holds; false when the lease was lost. The fencing token is
   * (lease_owner, attempts): the owner alone is the process, which may have stalled past its
   * lease and claimed the same job again (attempts + 1); the stale claim must change nothing.
   */
  finish(conn: Conn, id: string, owner: string | null, attempts: number, outcome: JobOutcome): Promise<boolean>
  /**
   * finish() for many claims in ONE statement (the completion batcher's write): the claims join
   * a derived table on the same fencing token (id, lease owner, attempts, still running).
   * Answers the claims that finished, by index; a claim that lost its lease changed nothing.
   */
  finishMany(conn: Conn, unordered: Array<{
    id: string
    owner: string | null
    attempts: number
    outcome: JobOutcome
  }>): Promise<boolean[]>
  /**
   * Puts a job this owner holds back in the queue: after a transient failure with attempts
   * left, not before `delayMs` from now (the claim skips it until then).
   */
  release(id: string, owner: string, attempts: number, delayMs?: number): Promise<boolean>
  /**
   * Hands back a claim that was never started (the process is shutting down): queued again
   * with its attempt refunded, since no render was tried.
   */
  unclaim(id: string, owner: string, attempts: number): Promise<boolean>
  /** Jobs whose lease ran out (their process died): requeued while attempts remain. */
  requeueExpired(maxAttempts: number): Promise<number>
  /** Claims expired jobs with no attempts left, to be failed with JOB_ABANDONED by the caller. */
  claimAbandoned(owner: string, maxAttempts: number, limit: number): Promise<JobRow[]>
}

export function createJobsRepo (db: Db): JobsRepo {
  /** Which workspace a claim of this process serves next (fair claims, jobs-fair.ts). */
  const turn = fairTurn(JOB_COLUMNS)

  return {
    async insert (conn: Conn | Db, job: NewJob, createdAt = new Date()): Promise<void> {
      await conn.execute(
        `INSERT INTO render_jobs (id, workspace_id, api_key_id, api_key_prefix, api_key_name, template_id,
          template_code, version,
        environment, format, parameters, context, file_name, correlation_id, status, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?)`,
        [...requestValues(job), createdAt]
      )
    },

    async insertFinished (conn: Conn | Db, job: NewJob, startedAt: Date, outcome: JobOutcome): Promise<void> {
      await conn.execute(
        `INSERT INTO render_jobs (id, workspace_id, api_key_id, api_key_prefix, api_key_name, template_id,
          template_code, version,
        environment, format, parameters, context, file_name, correlation_id, status, created_at, attempts,
          started_at, completed_at,
        run_id, document_id, page_count, label_count, output_bytes, error_code, error_message)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, UTC_TIMESTAMP(3), ?, ?, ?, ?, ?, ?, ?)`,
        [
          ...requestValues(job),
          outcome.status,
          startedAt,
          startedAt,
          ...outcomeValues(outcome)
        ]
      )
    },

    async insertMany (
      conn: Conn | Db,
      jobs: Array<{ job: NewJob, createdAt: Date, parameters: string, context: string }>
    ): Promise<void> {
      if (jobs.length === 0) return
      await conn.query(
        `INSERT INTO render_jobs (id, workspace_id, api_key_id, api_key_prefix, api_key_name, template_id,
          template_code, version,
        environment, format, parameters, context, file_name, correlation_id, status, created_at) VALUES ?`,
        [
          jobs.map(({ job, createdAt, parameters, context }) => [
            job.id,
            job.workspaceId,
            job.apiKeyId,
            job.apiKeyPrefix,
            job.apiKeyName,
            job.templateId,
            job.templateCode,
            job.version,
            job.environment,
            job.format,
            parameters,
            context,
            job.fileName,
            job.correlationId,
            'queued',
            createdAt
          ])
        ]
      )
    },

    async countQueued (workspaceId: string, max: number): Promise<number> {
      const [rows] = await db.execute<RowDataPacket[]>(
        `SELECT COUNT(*) AS n FROM (SELECT 1 FROM render_jobs FORCE INDEX (ix_jobs_fair)
        WHERE status = 'queued' AND workspace_id = ? LIMIT ${Math.max(1, Math.floor(max))}) t`,
        [workspaceId]
      )
      return Number(onlyRow(rows).n)
    },

    async get (workspaceId: string, id: string): Promise<JobRow | undefined> {
      const [rows] = await db.execute<RowDataPacket[]>(
        // The run's resolution: one primary-key lookup, for the view only (not on the claim path).
        `SELECT ${COLUMNS}, (SELECT r.label_dpi FROM runs r WHERE r.id = j.run_id) AS label_dpi
        FROM ${FROM} WHERE j.id = ? AND j.workspace_id = ?`,
        [id, workspaceId]
      )
      return rows[0] === undefined ? undefined : toJob(rows[0])
    },

    async claim (
      owner: string,
      limit: number,
      leaseMs: number,
      maxRunningPerWorkspace = Number.MAX_SAFE_INTEGER
    ): Promise<JobRow[]> {
      return await transaction(
        db,
        async (conn) => {
          // Queued jobs have no document yet, so the row alone is the whole job: read it in the
          // locking SELECT and apply the claim's changes in memory (one round trip fewer).
          const picked = await fairPick(conn, turn, limit, maxRunningPerWorkspace)
          if (picked.length === 0) return []
          const now = new Date()
          await conn.query(
            `UPDATE render_jobs SET status = 'running', attempts = attempts + 1, lease_owner = ?,
          lease_expires_at = UTC_TIMESTAMP(3) + INTERVAL ? MICROSECOND, started_at = COALESCE(started_at, ?)
          WHERE seq IN (?)`,
            [owner, leaseMs * 1000, now, picked.map((r) => r.seq)]
          )
          return picked.map((r) => {
            const job = toJob(r)
            return { ...job, status: 'running' as const, attempts: job.attempts + 1, startedAt: job.startedAt ?? now }
          })
        },
        'READ COMMITTED'
      )
    },

    async anyQueued (): Promise<boolean> {
      const [rows] = await db.execute<RowDataPacket[]>(
        "SELECT 1 FROM render_jobs FORCE INDEX (ix_jobs_fair) WHERE status = 'queued' LIMIT 1")
      return rows.length > 0
    },

    async renewLeases (owner: string, held: Array<{ id: string, attempts: number }>, leaseMs: number): Promise<void> {
      if (held.length === 0) return
      await db.query(
        `UPDATE render_jobs SET lease_expires_at = UTC_TIMESTAMP(3) + INTERVAL ? MICROSECOND
        WHERE id IN (?) AND (id, attempts) IN (?) AND lease_owner = ? AND status = 'running'`,
        [leaseMs * 1000, held.map((h) => h.id), held.map((h) => [h.id, h.attempts]), owner]
      )
    },

    async finish (
      conn: Conn,
      id: string,
      owner: string | null,
      attempts: number,
      outcome: JobOutcome
    ): Promise<boolean> {
      const [res] = await conn.execute<ResultSetHeader>(
        `UPDATE render_jobs SET status = ?, run_id = ?, document_id = ?, page_count = ?,
        label_count = ?, output_bytes = ?, error_code = ?, error_message = ?, completed_at = UTC_TIMESTAMP(3),
          lease_owner = NULL,
        lease_expires_at = NULL WHERE id = ? AND status = 'running' AND (lease_owner <=> ?) AND attempts = ?`,
        [
          outcome.status,
          ...outcomeValues(outcome),
          id,
          owner,
          attempts
        ]
      )
      return res.affectedRows === 1
    },

    async finishMany (
      conn: Conn,
      unordered: Array<{ id: string, owner: string | null, attempts: number, outcome: JobOutcome }>
    ): Promise<boolean[]> {
      if (unordered.length === 0) return []
      // Rows are locked in id order, as renewLeases (id IN …) locks them: no deadlock between the two.
      const claims = [...unordered].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.attempts - b.attempts))
      const rows = claims.map(
        () =>
          'SELECT ? AS id, ? AS owner, ? AS attempts, ? AS status, ? AS run_id, ? AS document_id, ? AS page_count, ' +
            '? AS label_count, ? AS output_bytes, ? AS error_code, ? AS error_message'
      )
      const args = claims.flatMap(({ id, owner, attempts, outcome: o }) => [
        id,
        owner,
        attempts,
        o.status,
        o.runId,
        o.documentId,
        o.pageCount,
        o.labelCount,
        o.outputBytes,
        o.errorCode,
        o.errorMessage?.slice(0, 2000) ?? null
      ])
      const [res] = await conn.query<ResultSetHeader>(
        `UPDATE render_jobs j JOIN (${rows.join(' UNION ALL ')}) v
        ON j.id = v.id AND j.attempts = v.attempts AND (j.lease_owner <=> v.owner) AND j.status = 'running'
        SET j.status = v.status, j.run_id = v.run_id, j.document_id = v.document_id, j.page_count = v.page_count, j.label_count = v.label_count,
        j.output_bytes = v.output_bytes, j.error_code = v.error_code, j.error_message = v.error_message, j.completed_at = UTC_TIMESTAMP(3),
        j.lease_owner = NULL, j.lease_expires_at = NULL`,
        args
      )
      if (res.affectedRows === claims.length) return unordered.map(() => true)
      // Some lost their lease (rare): the run id each claim wrote tells which ones won.
      const [won] = await conn.query<RowDataPacket[]>('SELECT run_id FROM render_jobs WHERE id IN (?)', [
        claims.map((c) => c.id)
      ])
      const runs = new Set(won.map((r) => r.run_id as string | null))
      return unordered.map((c) => runs.has(c.outcome.runId))
    },

    async release (id: string, owner: string, attempts: number, delayMs = 0): Promise<boolean> {
      const [res] = await db.execute<ResultSetHeader>(
        `UPDATE render_jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL,
        not_before = IF(? > 0, UTC_TIMESTAMP(3) + INTERVAL ? MICROSECOND, NULL)
        WHERE id = ? AND lease_owner = ? AND attempts = ? AND status = 'running'`,
        [delayMs, delayMs * 1000, id, owner, attempts]
      )
      return res.affectedRows === 1
    },

    async unclaim (id: string, owner: string, attempts: number): Promise<boolean> {
      const [res] = await db.execute<ResultSetHeader>(
        `UPDATE render_jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL,
        started_at = IF(attempts = 1, NULL, started_at), attempts = attempts - 1 WHERE id = ? AND lease_owner = ?
          AND attempts = ? AND status = 'running'`,
        [id, owner, attempts]
      )
      return res.affectedRows === 1
    },

    async requeueExpired (maxAttempts: number): Promise<number> {
      const [res] = await db.execute<ResultSetHeader>(
        `UPDATE render_jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL
        WHERE status = 'running' AND lease_expires_at < UTC_TIMESTAMP(3) AND attempts < ?`,
        [maxAttempts]
      )
      return res.affectedRows
    },

    async claimAbandoned (owner: string, maxAttempts: number, limit: number): Promise<JobRow[]> {
      return await transaction(
        db,
        async (conn) => {
          const [picked] = await conn.query<RowDataPacket[]>(
            `SELECT seq FROM render_jobs WHERE status = 'running' AND lease_expires_at < UTC_TIMESTAMP(3)
          AND attempts >= ? ORDER BY lease_expires_at LIMIT ? FOR UPDATE SKIP LOCKED`,
            [maxAttempts, limit]
          )
          if (picked.length === 0) return []
          const seqs = picked.map((r) => r.seq)
          await conn.query(
            'UPDATE render_jobs SET lease_owner = ?, lease_expires_at = UTC_TIMESTAMP(3) + INTERVAL 60 SECOND WHERE ' +
              'seq IN (?)',
            [owner, seqs]
          )
          const [rows] = await conn.query<RowDataPacket[]>(`SELECT ${COLUMNS} FROM ${FROM} WHERE j.seq IN (?)`, [seqs])
          return rows.map(toJob)
        },
        'READ COMMITTED'
      )
    }
  }
}
