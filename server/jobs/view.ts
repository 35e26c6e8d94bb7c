// The render job of spec 2.2 as clients see it. Every read of a succeeded job mints a fresh
// signed documentUrl.
import type { JobRow } from '../store/repos/jobs.js'
import type { DocumentUrls } from '../render/outcome.js'

export interface JobView {
  jobId: string
  status: JobRow['status']
  statusUrl: string
  template: string
  version: number
  environment: string
  format: 'pdf' | 'zpl'
  attempts: number
  fileName: string
  createdAt: string
  startedAt: string | null
  completedAt: string | null
  pageCount: number | null
  labelCount: number | null
  /** Labels: the printer resolution rendered at, from the job's run (an extension of spec 2.2). */
  labelDpi: number | null
  outputBytes: number | null
  documentUrl: string | null
  documentUrlExpiresAt: string | null
  documentExpiresAt: string | null
  error: { code: string, message: string } | null
  correlationId: string
}

export function jobView (deps: DocumentUrls, job: JobRow): JobView {
  const base = deps.baseUrl()
  let documentUrl: string | null = null
  let documentUrlExpiresAt: string | null = null
  const documentExpiresAt = job.documentExpiresAt
  if (job.status === 'succeeded' && job.documentId !== null && documentExpiresAt !== null && documentExpiresAt.getTime() > Date.now()) {
    const link = deps.links.mint(job.documentId, documentExpiresAt)
    documentUrl = `${base}/api/v1/documents/${link.token}`
    documentUrlExpiresAt = link.expiresAt.toISOString()
  }
  return {
    jobId: job.id,
    status: job.status,
    statusUrl: `${base}/api/v1/jobs/${job.id}`,
    template: job.templateCode,
    version: job.version,
    environment: job.environment,
    format: job.format,
    attempts: job.attempts,
    fileName: job.fileName,
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    completedAt: job.completedAt?.toISOString() ?? null,
    pageCount: job.format === 'pdf' ? job.pageCount : job.labelCount,
    labelCount: job.labelCount,
    labelDpi: job.labelDpi ?? null,
    outputBytes: job.outputBytes,
    documentUrl,
    documentUrlExpiresAt,
    documentExpiresAt: documentExpiresAt?.toISOString() ?? null,
    error: job.status === 'failed' ? { code: job.errorCode ?? 'RENDER_FAILED', message: job.errorMessage ?? '' } : null,
    correlationId: job.correlationId
  }
}
