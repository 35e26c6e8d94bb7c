// The public shape of the load generator: what runBench takes and what it returns. BenchResult
// is plain JSON (what `svc --json bench` prints and what `make bench` stores and compares).

export interface BenchOptions {
  /** Base URL of the service, e.g. https://127.0.0.1:8443 (a path prefix is kept). */
  url: string
  /** API key sent as `Authorization: Bearer`; undefined sends none (the server answers 401). */
  key?: string
  template: string
  /** Parameter objects cycled through, one per request; empty = no `parameters` member. */
  parameters: Array<Record<string, unknown>>
  environment?: string
  format?: 'pdf' | 'zpl'
  /** Submit `async: true` and poll the job until it succeeds or fails. */
  async: boolean
  /** Closed loop: concurrent clients. Open loop: connections of the pool. */
  connections: number
  /** Open loop at this many requests per second; undefined = closed loop. */
  rate?: number
  durationMs: number
  /** Requests intended to start during the warm-up are sent but not counted. */
  warmupMs: number
  /** Per request phase (headers, then body), as undici's headersTimeout/bodyTimeout: no per-request
   *  timer to allocate, but checked on undici's ~0.5 s tick, so it is coarse below a few seconds. */
  timeoutMs: number
  /** PEM CA certificate(s) to trust (the dev self-signed cert). */
  ca?: Buffer
  /** Skip certificate verification altogether. */
  insecure: boolean
  /** Async mode: give up on a job after this long (counted as an error, errorCode JOB_WAIT_TIMEOUT). */
  jobTimeoutMs: number
  maxErrorRate: number
  /** Stop at once when the first this-many answers (warm-up included) all fail with the same
   *  errorCode; 0 or undefined = never. */
  abortAfter?: number
}

export interface LatencySummary {
  /** All values in milliseconds, microsecond precision. */
  count: number
  min: number
  mean: number
  stdev: number
  p50: number
  p90: number
  p99: number
  p999: number
  max: number
}

export interface AsyncSummary {
  /** Submit to the job reaching succeeded/failed (from the intended start in open loop). */
  completion: LatencySummary
  outcomes: { succeeded: number, failed: number, submitFailed: number, pollFailed: number, timedOut: number }
  polls: number
  /** HTTP statuses of the GET /v1/jobs/{jobId} polls. */
  pollStatuses: Record<string, number>
}

export interface BenchResult {
  mode: 'closed' | 'open'
  async: boolean
  url: string
  template: string
  connections: number
  /** Target rate (open loop) or null. */
  rate: number | null
  startedAt: string
  warmupMs: number
  /** Measured window: end of warm-up to the last counted completion. */
  durationMs: number
  /** Operations counted: renders (sync) or jobs (async). */
  total: number
  /** Operations that did not end in a 2xx render / succeeded job. */
  errors: number
  errorRate: number
  maxErrorRate: number
  passed: boolean
  requestsPerSec: number
  /** Bytes of the documents (sync) or of the jobs' JSON (async submits and polls); problem bodies count 0. */
  bytes: number
  bytesPerSec: number
  /** Sync: render request latency. Async: latency of the submit request. */
  latency: LatencySummary
  /** Status of each counted render/submit request; `network` = no HTTP answer. Sums to total. */
  statuses: Record<string, number>
  /** errorCode of problem bodies, failed jobs' error.code, and network error codes (TIMEOUT, ECONNREFUSED…). */
  errorCodes: Record<string, number>
  /** Open loop: the largest delay between an intended send time and the actual send, ms. */
  sendLagMaxMs: number | null
  asyncResult: AsyncSummary | null
  /** The run stopped early: its first `answers` answers all failed with `errorCode`. */
  abortedEarly: { errorCode: string, answers: number } | null
}

export interface BenchProgress {
  elapsedMs: number
  warmingUp: boolean
  /** Counted so far (after warm-up). */
  requests: number
  errors: number
  /** Completions per second over the last interval (warm-up included). */
  rate: number
}

export interface BenchHooks {
  /** About once per second while running. */
  onProgress?: (progress: BenchProgress) => void
  /** Every counted operation: latency in microseconds and its status (tests, custom analyses). */
  onSample?: (latencyUs: number, status: string) => void
}
