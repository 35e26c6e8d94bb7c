// Part 7's retry rules as one policy: only 429 (after Retry-After), 503 and network failures;
// exponential backoff with full jitter (AWS architecture blog's "full jitter": a uniform delay in
// [0, min(cap, base·2^n)]), a bounded number of attempts.

export interface RetryOptions {
  /** Attempts in all, the first included (default 4; 1 disables retries). */
  maxAttempts?: number
  /** Backoff base (default 250 ms) and cap (default 10 s) of the jittered delay. */
  baseDelayMs?: number
  maxDelayMs?: number
  /** A Retry-After longer than this is not waited for: the error is thrown (default 60 s). */
  maxRetryAfterMs?: number
}

export interface RetryPolicy { maxAttempts: number, baseDelayMs: number, maxDelayMs: number, maxRetryAfterMs: number }

/** Told before each retry: which attempt failed, why, and how long the client waits. */
export interface RetryEvent { attempt: number, delayMs: number, status?: number, networkCode?: string }

export function retryPolicy (options: RetryOptions = {}): RetryPolicy {
  const policy = { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 10_000, maxRetryAfterMs: 60_000, ...options }
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) throw new TypeError('retry.maxAttempts: an integer ≥ 1')
  return policy
}

/** Full jitter after the `attempt`-th failure (1-based). */
export function backoffDelay (policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)))
}

/** Retry-After as delta-seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function parseRetryAfter (value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value
  if (text === undefined || text.trim() === '') return undefined
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** Failures of the connection phase: the request cannot have reached the server. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT'])
/** Failures after the request may have been (partly) sent. */
const MAYBE_SENT = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])

/** The network failure's code, and whether retrying it can duplicate work. Other errors
 *  (certificate checks, aborts, bad options) are not network failures and never retried. */
export function networkFailure (err: unknown): { code: string, sent: boolean } | undefined {
  const code = (err as { code?: unknown } | null | undefined)?.code
  if (typeof code !== 'string') return undefined
  if (NOT_SENT.has(code)) return { code, sent: false }
  if (MAYBE_SENT.has(code)) return { code, sent: true }
  return undefined
}
