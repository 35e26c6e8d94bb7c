// The outcome of a render: engine and data failures as the problems of spec Part 7, and what
// recording an outcome writes (run record, job row fields, stored document, event), shared by
// sync renders (sync.ts) and group-committed jobs (jobs/completions.ts).
import { randomUUID } from 'node:crypto'
import type { RenderFailure, RenderSuccess } from '../../engine/types.js'
import { problem, Problem } from '../errors.js'
import type { ErrorCode } from '../errors.js'
import type { RunRecord } from '../store/repos/runs.js'
import type { JobOutcome, JobRow } from '../store/repos/jobs.js'
import type { Config } from '../config.js'
import type { DocumentLinks } from '../documents/links.js'
import type { Conn } from '../store/db.js'
import type { DocumentsRepo } from '../store/repos/documents.js'
import type { StorageQuota } from '../store/repos/document-usage.js'

/** What a document's URL is made of: a signed link and this service's base URL. */
export interface DocumentUrls {
  links: DocumentLinks
  /** Absolute base URL of this service (https://host:port), for statusUrl and documentUrl. */
  baseUrl: () => string
}

/** A new document's expiry (SVC_DOCUMENT_TTL). */
export interface DocumentTtl { config: { documents: Pick<Config['documents'], 'ttlMs'> } }

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
  /** The document when it was held whole (small); absent when it was streamed. */
  bytes?: Buffer
  /** Size of the output, held or streamed. */
  outputBytes: number | null
  /** A document already written while streaming (pending until the outcome's commit). */
  document?: { id: string, expiresAt: Date }
  contentType?: string
  pageCount: number | null
  labelCount: number | null
  errorCode: ErrorCode | null
  errorMessage: string | null
  /** The render's warnings (RenderSuccess.warnings), for the run history; absent when none. */
  warnings?: string[]
  /** Labels: the printer resolution rendered at (RenderSuccess.labelDpi), for the run history. */
  labelDpi?: number
}

const CONTENT_TYPES = { pdf: 'application/pdf', zpl: 'application/zpl' } as const
export const contentTypeOf = (format: 'pdf' | 'zpl'): string => CONTENT_TYPES[format]

/**
 * A successful render. `streamed`: its bytes went to a sink (output.ts) instead of r.bytes,
 * `outputBytes` of them, maybe into `document` (written pending).
 */
export function successOutcome (r: RenderSuccess,
  streamed?: { outputBytes: number, document?: { id: string, expiresAt: Date } }): Outcome {
  const bytes = streamed !== undefined
    ? undefined
    : Buffer.isBuffer(r.bytes) ? r.bytes : Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength)
  return {
    ok: true,
    bytes,
    outputBytes: streamed?.outputBytes ?? (bytes as Buffer).length,
    document: streamed?.document,
    contentType: CONTENT_TYPES[r.format],
    pageCount: r.format === 'pdf' ? r.pageCount : r.labelCount,
    labelCount: r.format === 'zpl' ? r.labelCount : null,
    errorCode: null,
    errorMessage: null,
    warnings: r.warnings,
    labelDpi: r.labelDpi
  }
}

export const failureOutcome = (p: Problem): Outcome => ({
  ok: false,
  outputBytes: null,
  pageCount: null,
  labelCount: null,
  errorCode: p.code,
  errorMessage: p.message
})

/** What a run record says about who rendered what (a job row has all of it). */
export type RunSubject = Pick<JobRow, 'workspaceId' | 'apiKeyId' | 'apiKeyPrefix' | 'apiKeyName' | 'correlationId' | 'templateCode' | 'version' | 'environment'> & { format: string }

/** The run history row of one render, sync or async, success or failure. */
export function runOf (p: RunSubject, mode: 'sync' | 'async', jobId: string | null, startedAt: number, outcome: Outcome, runId: string = randomUUID()): RunRecord {
  const completed = Date.now()
  return {
    id: runId,
    workspaceId: p.workspaceId,
    apiKeyId: p.apiKeyId,
    apiKeyPrefix: p.apiKeyPrefix,
    apiKeyName: p.apiKeyName,
    correlationId: p.correlationId,
    mode,
    jobId,
    templateCode: p.templateCode,
    version: p.version,
    environment: p.environment,
    format: p.format,
    status: outcome.ok ? 'succeeded' : 'failed',
    errorCode: outcome.errorCode,
    errorMessage: outcome.errorMessage,
    durationMs: completed - startedAt,
    pageCount: outcome.pageCount,
    labelCount: outcome.labelCount,
    outputBytes: outcome.outputBytes,
    warningCount: outcome.warnings?.length ?? 0,
    warnings: outcome.warnings ?? [],
    labelDpi: outcome.labelDpi ?? null,
    startedAt: new Date(startedAt),
    completedAt: new Date(completed)
  }
}

export function eventData (deps: DocumentUrls, job: Pick<JobRow, 'id' | 'templateCode' | 'version' | 'environment' | 'format' | 'fileName' | 'correlationId' | 'apiKeyId' | 'apiKeyPrefix' | 'apiKeyName'>, runId: string, outcome: Outcome, documentId: string | null, documentExpiresAt: Date | null): { type: 'document.generated' | 'document.failed', data: Record<string, unknown> } {
  const apiKey = { id: job.apiKeyId, prefix: job.apiKeyPrefix, name: job.apiKeyName }
  const common = {
    template: job.templateCode,
    version: job.version,
    environment: job.environment,
    format: job.format,
    jobId: job.id,
    runId
  }
  if (outcome.ok && documentId !== null && documentExpiresAt !== null) {
    const link = deps.links.mint(documentId, documentExpiresAt)
    return {
      type: 'document.generated',
      data: {
        ...common,
        pageCount: outcome.pageCount ?? outcome.labelCount ?? 0,
        outputBytes: outcome.outputBytes ?? 0,
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

/** The stored document of a successful outcome: written while streaming, or a new id and expiry. */
export function newDocument (deps: DocumentTtl, outcome: Outcome): { id: string, expiresAt: Date } | null {
  if (outcome.ok && outcome.document !== undefined) return outcome.document
  return outcome.ok && outcome.bytes !== undefined
    ? { id: randomUUID(), expiresAt: new Date(Date.now() + deps.config.documents.ttlMs) }
    : null
}

/** What finishing a job writes into its row. */
export function jobOutcomeOf (outcome: Outcome, runId: string, documentId: string | null): JobOutcome {
  return {
    status: outcome.ok ? 'succeeded' : 'failed',
    runId,
    documentId,
    pageCount: outcome.pageCount,
    labelCount: outcome.labelCount,
    outputBytes: outcome.outputBytes,
    errorCode: outcome.errorCode,
    errorMessage: outcome.errorMessage
  }
}

/**
 * Stores the documents of finished renders in the transaction that records them: a held
 * document is inserted, one written while streaming is made visible (document-writer.ts). With
 * a quota, a held document that would pass it throws RENDER_LIMIT_EXCEEDED (sync renders; a
 * job's was admitted under the quota and its group commit must not fail for it).
 */
export async function storeDocuments (documents: DocumentsRepo, conn: Conn,
  items: Array<{ job: Pick<JobRow, 'id' | 'workspaceId' | 'fileName'>, outcome: Outcome, doc: { id: string, expiresAt: Date } }>,
  quota?: StorageQuota
): Promise<void> {
  await documents.insertMany(conn, items.filter((i) => i.outcome.document === undefined)
    .map((i) => documentRow(i.job, i.outcome, i.doc)), quota)
  await documents.commitPending(conn, items.filter((i) => i.outcome.document !== undefined)
    .map((i) => ({ id: i.doc.id })))
}

/** The stored document's row for a job (see newDocument). */
export function documentRow (job: Pick<JobRow, 'id' | 'workspaceId' | 'fileName'>, outcome: Outcome, doc: { id: string, expiresAt: Date }) {
  return { id: doc.id, workspaceId: job.workspaceId, jobId: job.id, contentType: outcome.contentType ?? 'application/octet-stream', fileName: job.fileName, content: outcome.bytes as Buffer, expiresAt: doc.expiresAt }
}
