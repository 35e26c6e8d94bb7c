// One undici Agent (a keep-alive pool per origin, HTTP/1.1 pipelining off, the caller's TLS
// options) and the retry loop every call goes through. Error answers become ProblemErrors.
// Calls read whole answers (whole-response.ts); a download streams (send).
import { setTimeout as sleep } from 'node:timers/promises'
import { Agent } from 'undici'
import type { Dispatcher } from 'undici'
import { NetworkError, ProblemError } from './problem.js'
import { backoffDelay, networkFailure, parseRetryAfter, retryPolicy } from './retry.js'
import type { RetryEvent, RetryOptions, RetryPolicy } from './retry.js'
import type { ProblemBody } from './types.js'
import { headerValue, wholeResponse } from './whole-response.js'
import type { WholeResponse } from './whole-response.js'

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

  /** A 2xx answer read to its end; throws ProblemError or NetworkError. */
  async sendWhole (req: SendOptions): Promise<WholeResponse> {
    return await this.retrying(req,
      async () => await wholeResponse(this.agent, this.dispatchOptions(req), req.signal),
      (res) => problemOf(res.statusCode, res.headers, parseJson(res.body), req.headers['x-correlation-id']))
  }

  /** A 2xx answer whose body the caller must consume as a stream (downloads); throws ProblemError or NetworkError. */
  async send (req: SendOptions): Promise<Dispatcher.ResponseData> {
    return await this.retrying(req,
      async () => await this.agent.request({ ...this.dispatchOptions(req), signal: req.signal }),
      async (res) => await readProblem(res, req.headers['x-correlation-id']))
  }

  private dispatchOptions (req: SendOptions): Dispatcher.DispatchOptions {
    const { url, method, headers, body } = req
    return { origin: url.origin, path: url.pathname + url.search, method, headers, body }
  }

  /** The retry loop of every call: `attempt` sends once, `problem` turns an error answer into a ProblemError. */
  private async retrying<R extends { statusCode: number }> (
    req: SendOptions,
    attempt: () => Promise<R>,
    problem: (res: R) => ProblemError | Promise<ProblemError>
  ): Promise<R> {
    for (let n = 1; ; n++) {
      const last = n >= this.policy.maxAttempts
      let res: R
      try {
        res = await attempt()
      } catch (err) {
        const failure = networkFailure(err)
        if (failure === undefined) throw err
        if (last || (failure.sent && req.retry === 'unsent')) throw new NetworkError(failure.code, err)
        await this.wait({ attempt: n, delayMs: backoffDelay(this.policy, n), networkCode: failure.code }, req.signal)
        continue
      }
      if (res.statusCode < 400) return res
      const p = await problem(res)
      if (last || (res.statusCode !== 429 && res.statusCode !== 503)) throw p
      const retryAfterMs = p.retryAfter === undefined ? undefined : p.retryAfter * 1000
      if (retryAfterMs !== undefined && retryAfterMs > this.policy.maxRetryAfterMs) throw p
      // Never earlier than Retry-After; the jitter spreads clients that were refused together.
      const delayMs = Math.max(retryAfterMs ?? 0, backoffDelay(this.policy, n))
      await this.wait({ attempt: n, delayMs, status: res.statusCode }, req.signal)
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
  let body: unknown
  try {
    body = await res.body.json()
  } catch {
    body = undefined
  }
  return problemOf(res.statusCode, res.headers, body, sentCorrelationId)
}

function parseJson (bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'))
  } catch {
    return undefined
  }
}

/** An error answer's status, headers and parsed body (undefined when it was not JSON) as a ProblemError. */
function problemOf (
  statusCode: number,
  headers: WholeResponse['headers'],
  value: unknown,
  sentCorrelationId: string | undefined
): ProblemError {
  const body = typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Partial<ProblemBody> : undefined
  const correlationId = headerValue(headers, 'x-correlation-id') ?? sentCorrelationId ?? ''
  const retryAfterMs = parseRetryAfter(headers['retry-after'])
  return new ProblemError(statusCode, body, correlationId, retryAfterMs === undefined ? undefined : retryAfterMs / 1000)
}
