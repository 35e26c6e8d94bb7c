// Turning engine and data failures into the problems of spec Part 7, and what recording an
// outcome writes (job row fields, stored document, event), shared by sync renders with a
// subscriber (commitSyncOutcome) and group-committed jobs (completions.ts).
import { randomUUID } from 'node:crypto'
import type { RenderFailure } from '../../workers/types.js'
import { problem, Problem } from '../errors.js'
import type { ErrorCode } from '../errors.js'
import { transaction } from '../store/db.js'
import type { Conn } from '../store/db.js'
import type { RunRecord } from '../store/repos/runs.js'
import type { JobOutcome, JobRow } from '../store/repos/jobs.js'
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

/** A document row to store for a successful outcome: a new id and its expiry. */
export function newDocument (deps: RenderDeps, outcome: Outcome): { id: string, expiresAt: Date } | null {
  return outcome.ok && outcome.bytes !== undefined ? { id: randomUUID(), expiresAt: new Date(Date.now() + deps.config.documents.ttlMs) } : null
}

/** What finishing a job writes into its row. */
export function jobOutcomeOf (outcome: Outcome, runId: string, documentId: string | null): JobOutcome {
  return {
    status: outcome.ok ? 'succeeded' : 'failed',
    runId,
    documentId,
    pageCount: outcome.pageCount,
    labelCount: outcome.labelCount,
    outputBytes: outcome.bytes?.length ?? null,
    errorCode: outcome.errorCode,
    errorMessage: outcome.errorMessage
  }
}

/** The stored document's row for a job (see newDocument). */
export function documentRow (job: Pick<JobRow, 'id' | 'workspaceId' | 'fileName'>, outcome: Outcome, doc: { id: string, expiresAt: Date }) {
  return { id: doc.id, workspaceId: job.workspaceId, jobId: job.id, contentType: outcome.contentType ?? 'application/octet-stream', fileName: job.fileName, content: outcome.bytes as Buffer, expiresAt: doc.expiresAt }
}

/**
 * A sync render whose event an endpoint subscribes to: a job row (so the event has a jobId),
 * its document (for the documentUrl), the run and the event, written in ONE transaction.
 * Job outcomes go through completions.ts instead.
 */
export async function commitSyncOutcome (deps: RenderDeps, job: Omit<JobRow, 'seq'> & { seq?: number }, run: RunRecord, outcome: Outcome): Promise<void> {
  await transaction(deps.db, async (conn: Conn, tx) => {
    await deps.jobs.insert(conn, job, 'running', job.createdAt, { attempts: job.attempts, startedAt: job.startedAt })
    const doc = newDocument(deps, outcome)
    if (doc !== null) await deps.documents.insert(conn, documentRow(job, outcome, doc))
    // The row was written just above in this transaction, owned by nobody: the finish cannot miss.
    await deps.jobs.finish(conn, job.id, null, job.attempts, jobOutcomeOf(outcome, run.id, doc?.id ?? null))
    await deps.runs.insertMany(conn, [run])
    await deps.outbox.append(tx, { workspaceId: job.workspaceId, ...eventData(deps, job, run.id, outcome, doc?.id ?? null, doc?.expiresAt ?? null) })
  })
}
