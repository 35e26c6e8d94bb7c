// The per-key token bucket: the bucket itself with an injected clock (refill timing without
// sleeping a minute), and one HTTP round trip for the 429 problem's shape.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { tokenBuckets } from '../../../server/http/plugins/rate-limit.js'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { startServer } from '../../helpers/server.js'
import type { TestServer } from '../../helpers/server.js'
import { workspaceWithKey, bearer } from '../../helpers/fixtures.js'

function clock (start = 1_000_000): { now: () => number, advance: (ms: number) => void } {
  let t = start
  return { now: () => t, advance: (ms) => { t += ms } }
}

test('a full minute is allowed as a burst, the next request is refused with Retry-After ≥ 1 s', () => {
  const c = clock()
  const buckets = tokenBuckets(5, c.now)
  const remaining = [1, 2, 3, 4, 5].map(() => buckets.take('k'))
  assert.deepEqual(remaining.map((d) => d.allowed), [true, true, true, true, true])
  assert.deepEqual(remaining.map((d) => d.remaining), [4, 3, 2, 1, 0])
  const sixth = buckets.take('k')
  assert.equal(sixth.allowed, false)
  assert.equal(sixth.remaining, 0)
  assert.ok(Number.isInteger(sixth.retryAfterSeconds))
  // 5 per minute = one token every 12 s
  assert.equal(sixth.retryAfterSeconds, 12)
})

test('Retry-After is whole seconds, rounded up, and never 0', () => {
  const c = clock()
  const buckets = tokenBuckets(5, c.now)
  for (let i = 0; i < 5; i++) buckets.take('k')
  c.advance(11_500) // 0.5 s short of the next token
  const d = buckets.take('k')
  assert.equal(d.allowed, false)
  assert.equal(d.retryAfterSeconds, 1)
  const fast = tokenBuckets(6000, c.now) // one token every 10 ms
  for (let i = 0; i < 6000; i++) fast.take('f')
  const refused = fast.take('f')
  assert.equal(refused.allowed, false)
  assert.equal(refused.retryAfterSeconds, 1, 'a wait shorter than a second still says 1')
})

test('keys are limited independently', () => {
  const c = clock()
  const buckets = tokenBuckets(5, c.now)
  for (let i = 0; i < 5; i++) assert.equal(buckets.take('a').allowed, true)
  assert.equal(buckets.take('a').allowed, false)
  for (let i = 0; i < 5; i++) assert.equal(buckets.take('b').allowed, true, `b request ${i + 1}`)
  assert.equal(buckets.take('b').allowed, false)
})

test('the bucket refills continuously: one token per 60/limit seconds, never above the limit', () => {
  const c = clock()
  const buckets = tokenBuckets(5, c.now)
  for (let i = 0; i < 5; i++) buckets.take('k')
  assert.equal(buckets.take('k').allowed, false)
  c.advance(11_999)
  assert.equal(buckets.take('k').allowed, false, 'not before 12 s')
  c.advance(1)
  assert.equal(buckets.take('k').allowed, true, 'one token after 12 s')
  assert.equal(buckets.take('k').allowed, false, 'and only one')
  c.advance(10 * 60_000) // ten idle minutes refill to the limit, not to 50
  const after = [1, 2, 3, 4, 5, 6].map(() => buckets.take('k').allowed)
  assert.deepEqual(after, [true, true, true, true, true, false])
})

test('a bucket idle for a minute is full again (and may be swept from memory)', () => {
  const c = clock()
  const buckets = tokenBuckets(2, c.now)
  buckets.take('old')
  buckets.take('old')
  assert.equal(buckets.take('old').allowed, false)
  c.advance(61_000)
  buckets.take('other') // triggers the sweep
  assert.deepEqual([buckets.take('old'), buckets.take('old'), buckets.take('old')].map((d) => d.allowed), [true, true, false])
})

let database: TestDatabase
let server: TestServer

before(async () => {
  database = await createTestDatabase('ratelimit')
  server = await startServer(database.url, { SVC_RATE_LIMIT: '5' })
})
after(async () => {
  await server?.close()
  await database?.drop()
})

test('HTTP: with SVC_RATE_LIMIT=5 the 6th request gets 429 RATE_LIMITED with Retry-After; another key is unaffected', async () => {
  const first = (await workspaceWithKey(server.context)).key.key
  const second = (await workspaceWithKey(server.context)).key.key
  for (let i = 1; i <= 5; i++) {
    const ok = await server.fetch('GET', '/api/v1/whoami', { headers: bearer(first) })
    assert.equal(ok.status, 200, `request ${i}`)
    assert.equal(ok.headers['ratelimit-remaining'], String(5 - i))
  }
  const res = await server.fetch('GET', '/api/v1/whoami', { headers: bearer(first) })
  assert.equal(res.status, 429)
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
  const retryAfter = String(res.headers['retry-after'])
  assert.match(retryAfter, /^\d+$/, 'Retry-After is whole seconds')
  assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 12, retryAfter)
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
