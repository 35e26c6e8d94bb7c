// Request logs: every line of a request carries its correlation id and, once authenticated, the
// key's visible prefix; the Authorization header and the key's secret never reach the output.
// The logger is the real createLogger writing to SVC_LOG_FILE, read back after a flush.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Logger } from 'pino'
import { createLogger } from '../../server/logger.js'
import { createTestDatabase } from '../helpers/db.js'
import type { TestDatabase } from '../helpers/db.js'
import { startServer } from '../helpers/server.js'
import type { TestServer } from '../helpers/server.js'
import { workspaceWithKey, bearer } from '../helpers/fixtures.js'

let database: TestDatabase
let server: TestServer
let logger: Logger
let dir: string
let logFile: string

before(async () => {
  database = await createTestDatabase('logging')
  dir = await mkdtemp(join(tmpdir(), 'svc-log-'))
  logFile = join(dir, 'logs', 'svc.log')
  logger = createLogger({ logLevel: 'info', logFile })
  server = await startServer(database.url, {}, undefined, (api) => {
    // A careless handler that logs the whole header set and a body holding secrets.
    api.post('/log-test', { config: { scope: 'render' } }, async (request) => {
      request.log.info({ headers: request.headers, body: request.body }, 'handler saw the request')
      request.log.info({ password: 'pw-in-log', secret: 'whsec_in_log', key: 'svc_live_in_log' }, 'top-level secrets')
      return { ok: true }
    })
  }, { logger })
})
after(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await server?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await database?.drop()
  await rm(dir, { recursive: true, force: true })
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON under test: the assertions check its shape
async function lines (): Promise<Array<Record<string, any>>> {
  await new Promise<void>((resolve, reject) => {
    logger.flush((err) => {
      // The callback passes null or undefined for no error.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (err !== undefined && err !== null) reject(err)
      else resolve()
    })
  })
  // Parsed JSON under test: the assertions check its shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return (await readFile(logFile, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>)
}

test('request log lines carry correlationId and keyPrefix; no secret appears anywhere in the log', async () => {
  const { key } = await workspaceWithKey(server.context)
  const secret = key.key.split('_').pop() as string
  const correlationId = 'log-test-' + Date.now()
  const res = await server.fetch('POST', '/api/v1/log-test', {
    headers: { ...bearer(key.key), 'x-correlation-id': correlationId },
    body: { password: 'body-password', nested: { secret: 'body-secret', authorization: `Bearer ${key.key}` } }
  })
  assert.equal(res.status, 200)
  // and a request with a wrong secret for the same key id
  const wrong = key.key.slice(0, -1) + (key.key.endsWith('a') ? 'b' : 'a')
  assert.equal((await server.fetch('GET', '/api/v1/whoami', { headers: { ...bearer(wrong), 'x-correlation-id': correlationId + '-bad' } })).status, 401)

  const all = await lines()
  const mine = all.filter((l) => l.correlationId === correlationId)
  const completed = mine.find((l) => l.msg === 'request completed')
  assert.ok(completed !== undefined, 'the request completed line has the correlation id')
  assert.equal(completed.keyPrefix, key.prefix)
  assert.equal(completed.res?.statusCode, 200)
  const handler = mine.find((l) => l.msg === 'handler saw the request')
  assert.ok(handler !== undefined)
  assert.equal(handler.keyPrefix, key.prefix)
  assert.equal(handler.headers.authorization, '[redacted]')
  assert.equal(handler.body.password, '[redacted]')
  assert.equal(handler.body.nested.secret, '[redacted]')
  assert.equal(handler.body.nested.authorization, '[redacted]')
  assert.ok(all.some((l) => l.correlationId === correlationId + '-bad' && l.msg === 'request completed'))

  const text = all.map((l) => JSON.stringify(l)).join('\n')
  assert.ok(!text.includes(secret), 'the key secret never appears')
  assert.ok(!/Bearer /i.test(text), 'no Authorization value appears')
  for (const leaked of ['body-password', 'body-secret', 'pw-in-log', 'whsec_in_log', 'svc_live_in_log']) assert.ok(!text.includes(leaked), leaked)
})

test('request loggers are made on first use: requests that log nothing of their own make no pino child', async () => {
  const { key } = await workspaceWithKey(server.context)
  const made: unknown[] = []
  // The children of every request logger come from this logger's child() (pino children inherit it).
  const original = logger.child
  logger.child = function (this: Logger, ...args: Parameters<Logger['child']>) {
    made.push(args[0])
    return original.apply(this, args)
  } as Logger['child']
  try {
    for (let i = 0; i < 5; i++) {
      assert.equal((await server.fetch('GET', '/api/v1/whoami', { headers: bearer(key.key) })).status, 200)
    }
    assert.deepEqual(made, [], 'no child for requests that only get their request line')
    const res = await server.fetch('POST', '/api/v1/log-test', { headers: { ...bearer(key.key), 'x-correlation-id': 'lazy-made' }, body: {} })
    assert.equal(res.status, 200)
    // The handler logged: Fastify's child (correlation id), then auth's (key prefix), in that order.
    assert.deepEqual(made, [{ correlationId: 'lazy-made' }, { keyPrefix: key.prefix }])
  } finally {
    logger.child = original
  }
  const handler = (await lines()).find((l) => l.correlationId === 'lazy-made' && l.msg === 'top-level secrets')
  assert.ok(handler !== undefined)
  assert.equal(handler.keyPrefix, key.prefix)
  assert.equal(handler.password, '[redacted]')
})

test('document link tokens never reach the log', async () => {
  const token = 'f02d4b6ae95f42caa899be9ede0d7ba6.tovqcp.Y63QIIFu7BpD8GmzkY2sdBE4TqrK9aOMxjYul6sTcMs'
  const res = await server.fetch('GET', `/api/v1/documents/${token}`, { headers: { 'x-correlation-id': 'doc-token-log' } })
  assert.equal(res.status, 404)
  const mine = (await lines()).filter((l) => l.correlationId === 'doc-token-log')
  const line = mine.find((l) => l.msg === 'request completed')
  assert.equal(line?.req?.url, '/api/v1/documents/[redacted]')
  assert.ok(!JSON.stringify(mine).includes(token.slice(0, 20)))
})

test('one log line per request at info: the completed line carries the request, status, time and key prefix', async () => {
  const { key } = await workspaceWithKey(server.context)
  const ok = await server.fetch('GET', '/api/v1/whoami', { headers: { ...bearer(key.key), 'x-correlation-id': 'one-line-ok' } })
  assert.equal(ok.status, 200)
  const bad = await server.fetch('GET', '/api/v1/whoami', { headers: { authorization: 'Bearer nope', 'x-correlation-id': 'one-line-401' } })
  assert.equal(bad.status, 401)
  const all = await lines()
  const mine = all.filter((l) => l.correlationId === 'one-line-ok')
  assert.equal(mine.length, 1, JSON.stringify(mine))
  assert.equal(mine[0]?.msg, 'request completed')
  assert.equal(mine[0].level, 30)
  assert.equal(mine[0].keyPrefix, key.prefix)
  assert.deepEqual(mine[0].req, { method: 'GET', url: '/api/v1/whoami', remoteAddress: '127.0.0.1' })
  assert.equal(mine[0].res.statusCode, 200)
  assert.equal(typeof mine[0].responseTime, 'number')
  const refused = all.filter((l) => l.correlationId === 'one-line-401')
  assert.equal(refused.length, 1, JSON.stringify(refused))
  assert.equal(refused[0]?.res.statusCode, 401)
  assert.equal(refused[0].keyPrefix, undefined)
})

test('buffered log file: a quiet server\'s last line still reaches it without an explicit flush', async () => {
  const res = await server.fetch('GET', '/api/v1/whoami', { headers: { 'x-correlation-id': 'periodic-flush' } })
  assert.equal(res.status, 401)
  // No logger.flush() here: the periodic flush writes the line (polled, not timed).
  let found = false
  for (let i = 0; i < 100 && !found; i++) {
    found = (await readFile(logFile, 'utf8')).includes('"correlationId":"periodic-flush"')
    if (!found) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assert.ok(found, 'the line reached the file')
})
