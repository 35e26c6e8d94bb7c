import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { startServer } from '../../helpers/server.js'
import type { TestServer } from '../../helpers/server.js'
import { workspaceWithKey, bearer } from '../../helpers/fixtures.js'

let database: TestDatabase
let server: TestServer
let key: string

before(async () => {
  database = await createTestDatabase('problems')
  server = await startServer(database.url, { SVC_BODY_LIMIT: '2048' }, undefined, (api) => {
    api.post('/echo-test', {
      config: { scope: 'render' },
      schema: { body: { type: 'object', required: ['template'], additionalProperties: false, properties: { template: { type: 'string' } } } }
    }, async (request) => request.body)
    api.get('/crash-test', { config: { scope: 'render' } }, async () => { throw new Error('secret internal detail') })
  })
  key = (await workspaceWithKey(server.context)).key.key
})
after(async () => {
  await server.close()
  await database.drop()
})

function problemOf (
  // Parsed JSON under test: the assertions check its shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  res: { status: number, headers: Record<string, unknown>, json(): any },
  status: number,
  code: string
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON under test: the assertions check its shape
): any {
  assert.equal(res.status, status)
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
  const body = res.json()
  assert.deepEqual(
    Object.keys(body)
      .filter((k) => k !== 'errors')
      .sort(),
    ['correlationId', 'detail', 'errorCode', 'status', 'title', 'type']
  )
  assert.equal(body.errorCode, code)
  assert.equal(body.status, status)
  assert.equal(body.correlationId, res.headers['x-correlation-id'])
  assert.ok(!/at .*\.js:\d+/.test(JSON.stringify(body)), 'no stack trace')
  return body
}

test('unknown route → 404 NOT_FOUND problem', async () => {
  problemOf(await server.fetch('GET', '/api/v1/nope'), 404, 'NOT_FOUND')
  problemOf(await server.fetch('GET', '/nothing/here'), 404, 'NOT_FOUND')
})

test('malformed URLs → 400 VALIDATION_FAILED problem with the correlation id', async () => {
  for (const path of ['/api/v1/templates/%zz', '/api/v1/documents/%E0%A4%A', '/api/v1/jobs/%']) {
    const res = await server.fetch('GET', path, { headers: { ...bearer(key), 'x-correlation-id': 'bad-url' } })
    const body = problemOf(res, 400, 'VALIDATION_FAILED')
    assert.equal(body.correlationId, 'bad-url')
    assert.ok(Array.isArray(body.errors.path))
  }
})

test('wrong method → 405 METHOD_NOT_ALLOWED with Allow', async () => {
  const res = await server.fetch('DELETE', '/api/v1/whoami', { headers: bearer(key) })
  problemOf(res, 405, 'METHOD_NOT_ALLOWED')
  assert.match(String(res.headers.allow), /GET/)
})

test('correlation id: echoed when sent and sane, generated otherwise, on success and error', async () => {
  const ok = await server.fetch('GET', '/healthz', { headers: { 'x-correlation-id': 'abc-123' } })
  assert.equal(ok.status, 200)
  assert.equal(ok.headers['x-correlation-id'], 'abc-123')
  const err = await server.fetch('GET', '/api/v1/whoami', { headers: { 'x-correlation-id': 'req.42' } })
  assert.equal(problemOf(err, 401, 'API_KEY_INVALID').correlationId, 'req.42')
  const generated = await server.fetch('GET', '/healthz')
  assert.match(String(generated.headers['x-correlation-id']), /^[0-9a-f-]{36}$/)
  const insane = await server.fetch('GET', '/healthz', { headers: { 'x-correlation-id': 'has spaces and <tags>' } })
  assert.match(String(insane.headers['x-correlation-id']), /^[0-9a-f-]{36}$/)
})

test('healthz and readyz answer without a key', async () => {
  assert.deepEqual((await server.fetch('GET', '/healthz')).json(), { status: 'ok' })
  assert.deepEqual((await server.fetch('GET', '/readyz')).json(), { status: 'ready' })
})

test('the OpenAPI document is generated from the route schemas', async () => {
  const doc = (await server.fetch('GET', '/api/v1/openapi.json')).json()
  assert.equal(doc.openapi, '3.1.0')
  assert.ok(Object.keys(doc.paths).some((p) => p.includes('/api/v1/whoami')))
})

test('body errors: bad JSON, wrong content type, too large, schema violations', async () => {
  // Parsed JSON under test: the assertions check its shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const post = (rawBody: string, type = 'application/json'): Promise<any> =>
    server.fetch('POST', '/api/v1/echo-test', { headers: { ...bearer(key), 'content-type': type }, rawBody })
  const bad = problemOf(await post('{"template": '), 400, 'VALIDATION_FAILED')
  assert.ok(bad.errors.body.length > 0)
  problemOf(await post('template=x', 'application/x-www-form-urlencoded'), 415, 'UNSUPPORTED_MEDIA_TYPE')
  problemOf(await post(JSON.stringify({ template: 'x'.repeat(4000) })), 413, 'PAYLOAD_TOO_LARGE')
  const invalid = problemOf(await post(JSON.stringify({ template: 5, extra: true })), 400, 'VALIDATION_FAILED')
  assert.ok(Array.isArray(invalid.errors.template))
  assert.ok(Array.isArray(invalid.errors.extra))
  const missing = problemOf(await post(JSON.stringify({})), 400, 'VALIDATION_FAILED')
  assert.ok(Array.isArray(missing.errors.template))
})

test('a crash inside a handler → 500 INTERNAL_ERROR without internals', async () => {
  const res = await server.fetch('GET', '/api/v1/crash-test', { headers: bearer(key) })
  const body = problemOf(res, 500, 'INTERNAL_ERROR')
  assert.ok(!body.detail.includes('secret internal'))
})
