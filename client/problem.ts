// Errors the client throws. Branch on `errorCode` (ProblemError) or on the class, never on text.
import type { ErrorCode, ProblemBody, RenderJob } from './types.js'

/** An answer that is not a problem document (a proxy's HTML page, a truncated body …). */
export type ClientErrorCode = ErrorCode | 'UNEXPECTED_RESPONSE'

/** The service answered with an RFC 9457 problem (spec Part 7). */
export class ProblemError extends Error {
  readonly status: number
  readonly errorCode: ClientErrorCode
  readonly correlationId: string
  readonly title: string
  /** Only on validation errors: member name → messages. */
  readonly errors: Record<string, string[]> | undefined
  /** Seconds from Retry-After (429, some 503), when the answer carried it. */
  readonly retryAfter: number | undefined

  constructor (status: number, body: Partial<ProblemBody> | undefined, correlationId: string, retryAfter?: number) {
    const known = body !== undefined && typeof body.errorCode === 'string'
    super(known ? `${body.errorCode}: ${body.detail ?? body.title ?? ''}` : `HTTP ${status}: not a problem document`)
    this.name = 'ProblemError'
    this.status = status
    this.errorCode = known ? body.errorCode as ErrorCode : 'UNEXPECTED_RESPONSE'
    this.title = body?.title ?? ''
    this.correlationId = typeof body?.correlationId === 'string' ? body.correlationId : correlationId
    this.errors = body?.errors
    this.retryAfter = retryAfter
  }
}

/** No HTTP answer (refused, reset, timed out, DNS …), after the retries allowed. */
export class NetworkError extends Error {
  /** undici's or the system's code: ECONNREFUSED, UND_ERR_SOCKET, UND_ERR_HEADERS_TIMEOUT … */
  readonly code: string
  constructor (code: string, cause: unknown) {
    super(`network failure: ${code}`, { cause })
    this.name = 'NetworkError'
    this.code = code
  }
}

/** waitForJob() reached its deadline; `job` is the last state seen. */
export class JobTimeoutError extends Error {
  constructor (readonly job: RenderJob) {
    super(`job ${job.jobId} still ${job.status} at the deadline`)
    this.name = 'JobTimeoutError'
  }
}
