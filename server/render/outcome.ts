// Turning engine and data failures into the problems of spec Part 7, and recording outcomes:
// the run (batched unless an event must be written with it) and, when an endpoint subscribes,
// the job row, stored document and outbox event in ONE transaction.
import { randomUUID } from 'node:crypto'
import type { RenderFailure } from '../../workers/types.js'
import { problem, Problem } from '../errors.js'
import type { ErrorCode } from '../errors.js'
import { transaction } from '../store/db.js'
import type { Conn } from '../store/db.js'
import type { RunRecord } from '../store/repos/runs.js'
import type { JobRow } from '../store/repos/jobs.js'
import type { RenderDeps } from './deps.js'

/** The problem for an engine failure. RENDER_TIMEOUT stays a job code; sync callers map it. */
export function engineProblem (failure: RenderFailure): Problem {
  if (failure.code === 'RENDER_BUSY') return problem('RENDER_BUSY', 'Render capacity is saturated; retry shortly or render asynchronously', { headers: { 'Retry-After': '1' } })
  return problem(failure.code, failure.message)
}

export function asProblem (err: unknown): Problem {
  return err instanceof Problem ? err : problem('INTERNAL_ERROR', 'An unexpected error occurred during the render')
}

export interface Outcome {
  ok: boolean
  bytes?: Buffer
  contentType?: string
  pageCount: number | null
  labelCount: number | null
  errorCode: ErrorCode | null
  errorMessage: string | null
}

export function eventData (deps: RenderDeps, job: Pick<JobRow, 'id' | 'templateCode' | 'version' | 'environment' | 'format' | 'fileName' | 'correlationId' | 'apiKeyId' | 'apiKeyPrefix' | 'apiKeyName'>, runId: string, outcome: Outcome, documentId: string | null, documentExpiresAt: Date | null): { type: 'document.generated' | 'document.failed', data: Record<string, unknown> } {
  const apiKey = { id: job.apiKeyId, prefix: job.apiKeyPrefix, name: job.apiKeyName }
  const common = { template: job.templateCode, version: job.version, environment: job.environment, format: job.format, jobId: job.id, runId }
  if (outcome.ok && documentId !== null && documentExpiresAt !== null) {
    const link = deps.links.mint(documentId, documentExpiresAt)
    return {
      type: 'document.generated',
      data: {
        ...common,
        pageCount: outcome.pageCount ?? outcome.labelCount ?? 0,
        outputBytes: outcome.bytes?.length ?? 0,
        fileName: job.fileName,
        documentUrl: `${deps.baseUrl()}/api/v1/documents/${link.token}`,
        documentExpiresAt: documentExpiresAt.toISOString(),
        correlationId: job.correlationId,
        apiKey
      }
    }
  }
  return { type: 'document.failed', data: { ...common, errorCode: outcome.errorCode, message: outcome.errorMessage, correlationId: job.correlationId, apiKey } }
}

/**
 * Writes a finished render's job (when `existing` is false, a job row is created so the event's
 * jobId can be read back), its document, run and event in one transaction.
 */
export async function commitOutcome (deps: RenderDeps, job: JobRow | (Omit<JobRow, 'seq'> & { seq?: number }), run: RunRecord, outcome: Outcome,
  options: { owner: string | null, createJob: boolean, event: boolean }): Promise<boolean> {
  return await transaction(deps.db, async (conn: Conn) => {
    if (options.createJob) await deps.jobs.insert(conn, job, 'running', job.createdAt, { attempts: job.attempts, startedAt: job.startedAt })
    let documentId: string | null = null
    let documentExpiresAt: Date | null = null
    if (outcome.ok && outcome.bytes !== undefined) {
      documentId = randomUUID()
      documentExpiresAt = new Date(Date.now() + deps.config.documents.ttlMs)
      await deps.documents.insert(conn, { id: documentId, workspaceId: job.workspaceId, jobId: job.id, contentType: outcome.contentType ?? 'application/octet-stream', fileName: job.fileName, content: outcome.bytes, expiresAt: documentExpiresAt })
    }
    const finished = await deps.jobs.finish(conn, job.id, options.owner, job.attempts, {
      status: outcome.ok ? 'succeeded' : 'failed',
      runId: run.id,
      documentId,
      pageCount: outcome.pageCount,
      labelCount: outcome.labelCount,
      outputBytes: outcome.bytes?.length ?? null,
      errorCode: outcome.errorCode,
      errorMessage: outcome.errorMessage
    })
    // Lost the lease (another process took the job over): undo everything, it will finish there.
    if (!finished) throw new LeaseLost()
    await deps.runs.insertMany(conn, [run])
    if (options.event) {
      const e = eventData(deps, job, run.id, outcome, documentId, documentExpiresAt)
      await deps.outbox.append(conn, { workspaceId: job.workspaceId, ...e })
    }
    return true
  }).catch((err: unknown) => {
    if (err instanceof LeaseLost) return false
    throw err
  })
}

class LeaseLost extends Error {}
