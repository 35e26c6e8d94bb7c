// The bench's HTTP side: one undici Pool per origin with keep-alive over TLS and pipelining 1
// (a render farm answers one request at a time per connection anyway; pipelining would only
// add head-of-line blocking to the latencies we measure). Bodies are always read to the end so
// connections are reused (read whole, as the client's calls are: client/whole-response.ts), and
// bytes are counted; only bodies we need (problems, jobs) are parsed.
import { Pool } from 'undici'
import { headerValue, wholeResponse } from '../../client/whole-response.js'
import type { WholeResponse } from '../../client/whole-response.js'
import type { BenchOptions } from './types.js'

export interface HttpOutcome {
  /** HTTP status, or 0 when no answer arrived (network error, timeout). */
  status: number
  bytes: number
  /** Parsed body when the answer was a JSON object (jobs, problems), else undefined. */
  json: Record<string, unknown> | undefined
  /** errorCode of a problem body, or the network error's code. */
  errorCode: string | undefined
}

export interface BenchClient {
  /** Path prefix of the base URL ('' or '/something'). */
  prefix: string
  send (method: 'GET' | 'POST', path: string, body: string | undefined): Promise<HttpOutcome>
  close (): Promise<void>
}

export function createClient (options: Pick<BenchOptions, 'url' | 'key' | 'connections' | 'timeoutMs' | 'ca' | 'insecure'>): BenchClient {
  const base = new URL(options.url)
  const pool = new Pool(base.origin, {
    connections: options.connections,
    pipelining: 1,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 30_000,
    connect: { ca: options.ca, rejectUnauthorized: !options.insecure }
  })
  // Built once: the hot path only picks one of these two objects.
  const auth: Record<string, string> = options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }
  const postHeaders = { ...auth, 'content-type': 'application/json', 'user-agent': 'svc-bench' }
  const getHeaders = { ...auth, 'user-agent': 'svc-bench' }
  return {
    prefix: base.pathname.replace(/\/+$/, ''),
    async send (method, path, body) {
      let res: WholeResponse
      try {
        res = await wholeResponse(pool, { method, path, body, headers: method === 'POST' ? postHeaders : getHeaders })
      } catch (err) {
        return { status: 0, bytes: 0, json: undefined, errorCode: networkCode(err) }
      }
      return answerOf(res)
    },
    async close () { await pool.close() }
  }
}

function answerOf (res: WholeResponse): HttpOutcome {
  const type = headerValue(res.headers, 'content-type')
  let json: Record<string, unknown> | undefined
  if (type?.includes('json') === true) {
    try {
      const value: unknown = JSON.parse(res.body.toString('utf8'))
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) json = value as Record<string, unknown>
    } catch { json = undefined }
  }
  // A non-problem error body (a proxy's HTML page) still gets a code to count.
  const errorCode = res.statusCode >= 400 ? (typeof json?.errorCode === 'string' ? json.errorCode : `HTTP_${res.statusCode}`) : undefined
  return { status: res.statusCode, bytes: res.body.length, json, errorCode }
}

/** A stable code for a failure without an HTTP answer. */
export function networkCode (err: unknown): string {
  const code = (err as { code?: unknown } | null | undefined)?.code
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return 'TIMEOUT'
  if (typeof code === 'string') return code
  const cause = (err as { cause?: { code?: unknown } } | null | undefined)?.cause?.code
  return typeof cause === 'string' ? cause : 'NETWORK_ERROR'
}
