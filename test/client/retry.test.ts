// Part 7's retry rules, counted against real HTTP servers started here that answer 429, 503,
// drop connections or keep a job running: which calls are retried, how often, after how long.
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createHmac } from 'node:crypto'
import { JobTimeoutError, NetworkError, ProblemError, SvcClient, verifyWebhook } from 'svc/client'
import type { ClientOptions, RetryEvent } from 'svc/client'
import { backoffDelay, retryPolicy } from '../../client/retry.js'
import { pollInterval } from '../../client/wait.js'

const servers: Server[] = []
const clients: SvcClient[] = []
after(async () => {
  for (const c of clients) await c.close()
  for (const s of servers) await new Promise((resolve) => s.close(resolve))
})

/** A real server; `answer` sees the 1-based request number. Counts requests per path. */
async function server (
  answer: (n: number, req: IncomingMessage, res: ServerResponse) => void
): Promise<{ url: string, count: () => number }> {
  let n = 0
  const s = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      answer(++n, req, res)
    })
  })
  servers.push(s)
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const address = s.address()
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`,
    count: () => n
  }
}

const problem = (
  res: ServerResponse,
  status: number,
  errorCode: string,
  headers: Record<string, string> = {}
): void => {
  res.writeHead(status, { 'content-type': 'application/problem+json', 'x-correlation-id': 'srv', ...headers })
  res.end(
    JSON.stringify({ type: 'about:blank', title: errorCode, status, detail: 'test', errorCode, correlationId: 'srv' })
  )
}
const pdf = (res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'application/pdf', 'x-template-version': '3', 'x-page-count': '2', 'x-document-format': 'pdf', 'x-environment': 'production', 'x-run-id': 'r1', 'content-disposition': 'attachment; filename="a.pdf"' })
  res.end('%PDF-1.7 test')
}
const job = (status: string): string => JSON.stringify({ jobId: '00000000-0000-4000-8000-000000000001', status, statusUrl: 'x', template: 't', version: 1, environment: 'e', format: 'pdf', attempts: 0, createdAt: '2026-01-01T00:00:00Z', error: null, correlationId: 'c' })

function client (url: string, events: RetryEvent[], options: Partial<ClientOptions> = {}): SvcClient {
  const c = new SvcClient({ baseUrl: url, apiKey: 'svc_test_k_s', retry: { maxAttempts: 4, baseDelayMs: 5 }, onRetry: (e) => events.push(e), ...options })
  clients.push(c)
  return c
}

test('429 with Retry-After: waits at least that long, then succeeds (3 attempts)', async () => {
  const s = await server((n, _req, res) => { if (n <= 2) problem(res, 429, 'RATE_LIMITED', { 'retry-after': '1' }); else pdf(res) })
  const events: RetryEvent[] = []
  const doc = await client(s.url, events).render({ template: 't' })
  assert.equal(s.count(), 3)
  assert.deepEqual(events.map((e) => e.status), [429, 429])
  for (const e of events) assert.ok(e.delayMs >= 1000, `delay ${e.delayMs} honours Retry-After: 1`)
  assert.equal(doc.version, 3)
  assert.equal(doc.pageCount, 2)
  assert.equal(doc.body.toString(), '%PDF-1.7 test')
})

test('a Retry-After beyond maxRetryAfterMs is thrown at once', async () => {
  const s = await server((_n, _req, res) => { problem(res, 429, 'RATE_LIMITED', { 'retry-after': '120' }) })
  const events: RetryEvent[] = []
  const err = await client(s.url, events).render({ template: 't' }).catch((e: unknown) => e)
  assert.ok(err instanceof ProblemError)
  assert.equal(err.errorCode, 'RATE_LIMITED')
  assert.equal(err.retryAfter, 120)
  assert.equal(s.count(), 1)
})

test('503 is retried up to maxAttempts with jittered backoff; other 4xx/5xx never', async () => {
  const busy = await server((_n, _req, res) => { problem(res, 503, 'RENDER_BUSY') })
  const events: RetryEvent[] = []
  const err = await client(busy.url, events).render({ template: 't' }).catch((e: unknown) => e)
  assert.ok(err instanceof ProblemError)
  assert.equal(err.errorCode, 'RENDER_BUSY')
  assert.equal(busy.count(), 4)
  assert.deepEqual(events.map((e) => e.attempt), [1, 2, 3])
  events.forEach((e, i) => assert.ok(e.delayMs >= 0 && e.delayMs < 5 * 2 ** i, `full jitter below the cap of attempt ${i + 1}`))
  for (const [status, code] of [[400, 'VALIDATION_FAILED'], [500, 'INTERNAL_ERROR'], [422, 'RENDER_FAILED']] as const) {
    const s = await server((_n, _req, res) => { problem(res, status, code) })
    const e = await client(s.url, []).render({ template: 't' }).catch((x: unknown) => x)
    assert.ok(e instanceof ProblemError && e.errorCode === code)
    assert.equal(s.count(), 1, `${status} is not retried`)
  }
})

test('an answer that is not a problem document is UNEXPECTED_RESPONSE', async () => {
  const s = await server((_n, _req, res) => { res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>') })
  const err = await client(s.url, []).render({ template: 't' }).catch((e: unknown) => e)
  assert.ok(err instanceof ProblemError)
  assert.equal(err.errorCode, 'UNEXPECTED_RESPONSE')
  assert.equal(err.status, 502)
})

test('a connection dropped after the request was sent: sync render retried, async submit not', async () => {
  const s = await server((n, req, res) => {
    if (n === 1 || n === 3) { req.socket.destroy(); return }
    if (n === 2) { pdf(res); return }
    res.writeHead(202, { 'content-type': 'application/json' }).end(job('queued'))
  })
  const events: RetryEvent[] = []
  const c = client(s.url, events)
  const doc = await c.render({ template: 't' })
  assert.equal(doc.version, 3)
  assert.equal(s.count(), 2)
  assert.equal(events.length, 1)
  assert.equal(typeof events[0]?.networkCode, 'string')
  const err = await c.renderAsync({ template: 't' }).catch((e: unknown) => e)
  assert.ok(err instanceof NetworkError, String(err))
  assert.equal(s.count(), 3, 'the async submit was sent once: it may have created a job')
})

test('a document cut off mid-body is a network failure: the sync render is retried and answers the whole body', async () => {
  const s = await server((n, req, res) => {
    if (n === 1) {
      // Headers and half the announced body, then the connection drops.
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': '100', 'x-template-version': '3' })
      res.write('%PDF-1.7 half', () => { req.socket.destroy() })
      return
    }
    pdf(res)
  })
  const events: RetryEvent[] = []
  const doc = await client(s.url, events).render({ template: 't' })
  assert.equal(doc.body.toString(), '%PDF-1.7 test')
  assert.equal(s.count(), 2)
  assert.equal(events.length, 1)
  assert.equal(typeof events[0]?.networkCode, 'string')
})

test('an AbortSignal ends a call that waits for its answer, and one aborted before it is sent', async () => {
  const s = await server((_n, _req, res) => { setTimeout(() => { pdf(res) }, 5_000).unref() })
  const c = client(s.url, [])
  const controller = new AbortController()
  const pending = c.render({ template: 't' }, { signal: controller.signal }).catch((e: unknown) => e)
  setTimeout(() => { controller.abort() }, 50)
  const err = await pending
  assert.ok(err instanceof Error && err.name === 'AbortError', String(err))
  const before = await c.getJob('j', { signal: AbortSignal.abort() }).catch((e: unknown) => e)
  assert.ok(before instanceof Error && before.name === 'AbortError', String(before))
  assert.equal(s.count(), 1, 'the call aborted before it started was never sent')
})

test('async submit: refused connections (nothing sent) and 503 answers are retried', async () => {
  const closed = await server(() => {})
  const port = new URL(closed.url).port
  await new Promise((resolve) => servers.pop()?.close(resolve))
  const events: RetryEvent[] = []
  const err = await client(`http://127.0.0.1:${port}`, events).renderAsync({ template: 't' }).catch((e: unknown) => e)
  assert.ok(err instanceof NetworkError)
  assert.equal(err.code, 'ECONNREFUSED')
  assert.deepEqual(events.map((e) => e.networkCode), ['ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED'])
  const s = await server((n, _req, res) => { if (n === 1) problem(res, 503, 'SERVICE_UNAVAILABLE'); else res.writeHead(202, { 'content-type': 'application/json' }).end(job('queued')) })
  const queued = await client(s.url, []).renderAsync({ template: 't' })
  assert.equal(queued.status, 'queued')
  assert.equal(s.count(), 2)
})

test('waitForJob(): polls until the deadline, then JobTimeoutError with the last state; AbortSignal stops it', async () => {
  const s = await server((_n, _req, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end(job('running')) })
  const c = client(s.url, [])
  const err = await c.waitForJob('00000000-0000-4000-8000-000000000001', { timeoutMs: 300, initialIntervalMs: 20 }).catch((e: unknown) => e)
  assert.ok(err instanceof JobTimeoutError, String(err))
  assert.equal(err.job.status, 'running')
  const polls = s.count()
  assert.ok(polls >= 3, `polled ${polls} times`)
  const controller = new AbortController()
  const waiting = c.waitForJob('00000000-0000-4000-8000-000000000001', { initialIntervalMs: 20, onPoll: () => { controller.abort() }, signal: controller.signal })
  await assert.rejects(waiting, { name: 'AbortError' })
  assert.equal(s.count(), polls + 1)
})

test('waitForJob(): transient poll failures do not end the wait', async () => {
  const s = await server((n, _req, res) => {
    if (n <= 2) problem(res, 503, 'SERVICE_UNAVAILABLE')
    else res.writeHead(200, { 'content-type': 'application/json' }).end(job(n < 4 ? 'running' : 'succeeded'))
  })
  const done = await client(s.url, [], { retry: { maxAttempts: 1 } }).waitForJob('00000000-0000-4000-8000-000000000001', { initialIntervalMs: 10, timeoutMs: 30_000 })
  assert.equal(done.status, 'succeeded')
  assert.equal(s.count(), 4)
})

test('schedules: poll intervals 1 s, 1 s, 2 s, 2 s then ×1.5 to the cap; full jitter bounds', () => {
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5, 6, 20].map((n) => pollInterval(n)),
    [1000, 1000, 2000, 2000, 3000, 4500, 6750, 15000]
  )
  const p = retryPolicy({ baseDelayMs: 100, maxDelayMs: 1000 })
  assert.equal(backoffDelay(p, 1, () => 0), 0)
  assert.equal(backoffDelay(p, 3, () => 0.999999), 399)
  assert.equal(backoffDelay(p, 10, () => 0.999999), 999)
})

test('verifyWebhook (re-exported) accepts either secret during a rotation', () => {
  const body = JSON.stringify({ id: 'e1', type: 'webhook.test' })
  const t = Math.floor(Date.now() / 1000)
  const sign = (secret: string): string => `t=${t}, v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`
  const header = sign('whsec_old')
  assert.deepEqual(verifyWebhook({ rawBody: body, signatureHeader: header, secrets: ['whsec_new', 'whsec_old'] }), { ok: true, timestamp: t })
  assert.deepEqual(verifyWebhook({ rawBody: body, signatureHeader: header, secrets: ['whsec_new'] }), { ok: false, reason: 'no-matching-signature' })
})

test('the constructor refuses a missing key with a clear message', () => {
  assert.throws(() => new SvcClient({ baseUrl: 'https://x', apiKey: '' }), /apiKey: a workspace API key is required/)
})
