// The shared limiter over HTTP: the 429 problem's shape, the RateLimit headers, per-key limits.
// The limiter's own behaviour (several nodes, statements, fail closed) is in test/server/auth.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { startServer } from '../../helpers/server.js'
import type { TestServer } from '../../helpers/server.js'
import { workspaceWithKey, bearer } from '../../helpers/fixtures.js'

let database: TestDatabase
let server: TestServer

before(async () => {
  database = await createTestDatabase('ratelimit')
  server = await startServer(database.url, { SVC_RATE_LIMIT: '5' })
})
after(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await server?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await database?.drop()
})

test('HTTP: with SVC_RATE_LIMIT=5 the 6th request gets 429 RATE_LIMITED with Retry-After; another key is unaffected', async () => {
  const first = (await workspaceWithKey(server.context)).key.key
  const second = (await workspaceWithKey(server.context)).key.key
  for (let i = 1; i <= 5; i++) {
    const ok = await server.fetch('GET', '/api/v1/whoami', { headers: bearer(first) })
    assert.equal(ok.status, 200, `request ${i}`)
    assert.equal(ok.headers['ratelimit-remaining'], String(5 - i))
    assert.equal(ok.headers['ratelimit-policy'], '"default";q=5;w=60')
    assert.equal(ok.headers.ratelimit, `"default";r=${5 - i}`)
  }
  const res = await server.fetch('GET', '/api/v1/whoami', { headers: bearer(first) })
  assert.equal(res.status, 429)
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
  const retryAfter = String(res.headers['retry-after'])
  assert.match(retryAfter, /^\d+$/, 'Retry-After is whole seconds')
  // The window is 60 s of 3 s slots: the 5 tokens leave it at most 63 s after they were leased.
  assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 63, retryAfter)
  const body = res.json()
  assert.equal(body.errorCode, 'RATE_LIMITED')
  assert.equal(body.status, 429)
  assert.equal(body.type, 'about:blank')
  assert.equal(body.correlationId, res.headers['x-correlation-id'])
  assert.equal((await server.fetch('GET', '/api/v1/whoami', { headers: bearer(second) })).status, 200, 'the other key is not limited')
  // An invalid key is answered 401 before the limiter: it cannot drain a real key's bucket.
  assert.equal((await server.fetch('GET', '/api/v1/whoami', { headers: bearer(first.slice(0, -1) + (first.endsWith('a') ? 'b' : 'a')) })).status, 401)
})

test('HTTP: POST /v1/render is limited like every route, before its body is looked at', async () => {
  const key = (await workspaceWithKey(server.context)).key.key
  // Template errors and body errors alike take exactly one token each.
  for (let i = 1; i <= 5; i++) {
    const body = i % 2 === 0 ? { template: 'x', unknownMember: 1 } : { template: 'no-such-template' }
    const res = await server.fetch('POST', '/api/v1/render', { headers: bearer(key), body })
    assert.equal(res.status, i % 2 === 0 ? 400 : 404, `request ${i}`)
    assert.equal(res.headers['ratelimit-remaining'], String(5 - i))
  }
  const limited = await server.fetch('POST', '/api/v1/render', { headers: bearer(key), body: { template: 'x', unknownMember: 1 } })
  assert.equal(limited.status, 429)
  assert.equal(limited.json().errorCode, 'RATE_LIMITED')
})

test('HTTP: a key\'s own limit (svc keys set-rate-limit) replaces SVC_RATE_LIMIT for that key only', async () => {
  const { key } = await workspaceWithKey(server.context)
  const view = await server.context.services.apiKeys.setRateLimit(key.prefix, 3)
  assert.equal(view.rateLimit, 3)
  const statuses: number[] = []
  for (let i = 0; i < 5; i++) statuses.push((await server.fetch('GET', '/api/v1/whoami', { headers: bearer(key.key) })).status)
  assert.deepEqual(statuses, [200, 200, 200, 429, 429])
  const raised = (await workspaceWithKey(server.context)).key
  await server.context.services.apiKeys.setRateLimit(raised.id, 8)
  let ok = 0
  for (let i = 0; i < 10; i++) if ((await server.fetch('GET', '/api/v1/whoami', { headers: bearer(raised.key) })).status === 200) ok++
  assert.equal(ok, 8, 'a raised limit above SVC_RATE_LIMIT=5')
})
