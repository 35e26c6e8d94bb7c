// The bench's API calls, made through svc/client (docs/client.md) with retries off: a retry
// would hide exactly the errors a bench counts. Measured against the bench's own undici calls
// (http.ts, still used by the drain benchmark): no loss in requests per second (docs/bench.md).
import { NetworkError, ProblemError, SvcClient } from '../../client/index.js'
import type { RenderJob, RenderRequest } from '../../client/index.js'
import { networkCode } from './http.js'
import type { BenchOptions } from './types.js'

export interface ApiOutcome {
  /** HTTP status, or 0 when no answer arrived (network error, timeout, certificate). */
  status: number
  /** Document bytes (sync), or the job's JSON size (async); problem bodies count 0. */
  bytes: number
  /** The problem's errorCode (HTTP_<status> for an answer that is not one), or the network error's code. */
  errorCode: string | undefined
  job: RenderJob | undefined
}

export interface BenchApi {
  render (body: RenderRequest): Promise<ApiOutcome>
  submit (body: RenderRequest): Promise<ApiOutcome>
  job (jobId: string): Promise<ApiOutcome>
  close (): Promise<void>
}

function failed (err: unknown): ApiOutcome {
  if (err instanceof ProblemError) {
    return { status: err.status, bytes: 0, errorCode: err.errorCode === 'UNEXPECTED_RESPONSE' ? `HTTP_${err.status}` : err.errorCode, job: undefined }
  }
  return { status: 0, bytes: 0, errorCode: networkCode(err instanceof NetworkError ? err.cause : err), job: undefined }
}

const jobOutcome = (status: number, job: RenderJob): ApiOutcome => ({
  status,
  bytes: Buffer.byteLength(JSON.stringify(job)),
  errorCode: undefined,
  job
})

export function createBenchApi (options: Pick<BenchOptions, 'url' | 'key' | 'connections' | 'timeoutMs' | 'ca' | 'insecure'>): BenchApi {
  const client = new SvcClient({
    baseUrl: options.url,
    apiKey: options.key ?? '',
    tls: { ca: options.ca, rejectUnauthorized: !options.insecure },
    connections: options.connections,
    timeoutMs: options.timeoutMs,
    retry: { maxAttempts: 1 },
    userAgent: 'svc-bench'
  })
  return {
    async render (body) {
      try {
        const doc = await client.render(body)
        return { status: 200, bytes: doc.body.length, errorCode: undefined, job: undefined }
      } catch (err) { return failed(err) }
    },
    async submit (body) {
      try { return jobOutcome(202, await client.renderAsync(body)) } catch (err) { return failed(err) }
    },
    async job (jobId) {
      try { return jobOutcome(200, await client.getJob(jobId)) } catch (err) { return failed(err) }
    },
    async close () { await client.close() }
  }
}
