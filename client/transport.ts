// One undici Agent (a keep-alive pool per origin, HTTP/1.1 pipelining off, the caller's TLS
// options) and the retry loop every call goes through. Error answers become ProblemErrors.
import { setTimeout as sleep } from 'node:timers/promises'
import { Agent } from 'undici'
import type { Dispatcher } from 'undici'
import { NetworkError, ProblemError } from './problem.js'
import { backoffDelay, networkFailure, parseRetryAfter, retryPolicy } from './retry.js'
import type { RetryEvent, RetryOptions, RetryPolicy } from './retry.js'
import type { ProblemBody } from './types.js'

export interface TlsOptions {
  /** PEM certificate(s) of a private CA to trust (in addition to none: replaces the default store). */
  ca?: string | Buffer | Array<string | Buffer>
  /** Client certificate and key, for a gateway that asks for one. */
  cert?: string | Buffer
  key?: string | Buffer
  servername?: string
  /** false skips certificate checks: for experiments only. */
  rejectUnauthorized?: boolean
}

export interface TransportOptions {
  tls?: TlsOptions
  /** Keep-alive connections per origin (default 16). */
  connections?: number
  /** Waiting for the answer's headers, then between body chunks (default 120 s each). */
  timeoutMs?: number
  retry?: RetryOptions
  onRetry?: (event: RetryEvent) => void
}

/** `always`: idempotent calls. `unsent`: a network failure is retried only when the request
 *  cannot have reached the server; 429 and 503 answers are (the server did not take it). */
export type RetryMode = 'always' | 'unsent'

export interface SendOptions {
  method: 'GET' | 'POST'
  url: URL
  headers: Record<string, string>
  body?: string
  retry: RetryMode
  signal?: AbortSignal
}

export class Transport {
  readonly agent: Agent
  private readonly policy: RetryPolicy
  private readonly onRetry: ((event: RetryEvent) => void) | undefined

  constructor (options: TransportOptions = {}) {
    const timeout = options.timeoutMs ?? 120_000
    this.agent = new Agent({
      connections: options.connections ?? 16,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      connect: { ...options.tls }
    })
    this.policy = retryPolicy(options.retry)
    this.onRetry = options.onRetry
  }

  /** Resolves with a 2xx answer whose body the caller must consume; throws ProblemError or NetworkError. */
  async send (req: SendOptions): Promise<Dispatcher.ResponseData> {
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= this.policy.maxAttempts
      let res: Dispatcher.ResponseData
      try {
        res = await this.agent.request({
          origin: req.url.origin,
          path: req.url.pathname + req.url.search,
          method: req.method,
          headers: req.headers,
          body: req.body,
          signal: req.signal
        })
      } catch (err) {
        const failure = networkFailure(err)
        if (failure === undefined) throw err
        if (last || (failure.sent && req.retry === 'unsent')) throw new NetworkError(failure.code, err)
        await this.wait({ attempt, delayMs: backoffDelay(this.policy, attempt), networkCode: failure.code }, req.signal)
        continue
      }
      if (res.statusCode < 400) return res
      const problem = await readProblem(res, req.headers['x-correlation-id'])
      if (last || (res.statusCode !== 429 && res.statusCode !== 503)) throw problem
      const retryAfterMs = problem.retryAfter === undefined ? undefined : problem.retryAfter * 1000
      if (retryAfterMs !== undefined && retryAfterMs > this.policy.maxRetryAfterMs) throw problem
      // Never earlier than Retry-After; the jitter spreads clients that were refused together.
      const delayMs = Math.max(retryAfterMs ?? 0, backoffDelay(this.policy, attempt))
      await this.wait({ attempt, delayMs, status: res.statusCode }, req.signal)
    }
  }

  private async wait (event: RetryEvent, signal: AbortSignal | undefined): Promise<void> {
    this.onRetry?.(event)
    await sleep(event.delayMs, undefined, { signal })
  }

  async close (): Promise<void> { await this.agent.close() }
}

/** Reads an error answer to the end (so the connection is reused) into a ProblemError. */
export async function readProblem (
  res: Dispatcher.ResponseData,
  sentCorrelationId: string | undefined
): Promise<ProblemError> {
  let body: Partial<ProblemBody> | undefined
  try {
    const value: unknown = await res.body.json()
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) body = value as Partial<ProblemBody>
  } catch {
    body = undefined
  }
  const header = res.headers['x-correlation-id']
  const correlationId = (Array.isArray(header) ? header[0] : header) ?? sentCorrelationId ?? ''
  const retryAfterMs = parseRetryAfter(res.headers['retry-after'])
  return new ProblemError(
    res.statusCode,
    body,
    correlationId,
    retryAfterMs === undefined ? undefined : retryAfterMs / 1000
  )
}
