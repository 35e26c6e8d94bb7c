// The auth module's first check of POST /v1/render (beforeBody): a large or chunked body gets the
// whole key check before it is read, and such a request is not checked (nor rate-limited) again
// by authenticateForRender; small bodies keep the one-query path. Failed authentications count
// against the client's address, and a refused key is answered from memory after its first read.
// The key store is an in-memory table (the HTTP tests run the same paths against MariaDB:
// test/server/http/hostile-bodies.test.ts, protocol-errors.test.ts).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createAuthenticator } from '../../../server/auth/authenticate.js'
import type { AuthRequest } from '../../../server/auth/authenticate.js'
import { createFailureThrottle } from '../../../server/auth/failure-throttle.js'
import { generateApiKey } from '../../../server/util/api-key-format.js'
import type { ApiKeyRow } from '../../../server/store/repos/api-keys.js'
import { Problem } from '../../../server/errors.js'

function setup (failuresPerMinute = 30) {
  const made = generateApiKey('live')
  const row: ApiKeyRow = {
    id: made.keyId,
    workspaceId: '0b6c1f3e-8f1d-4c1e-9a51-5d7f3c2a9e10',
    name: 'k',
    mode: 'live',
    scopes: ['render'],
    secretHash: made.secretHash,
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
    createdAt: new Date(),
    rateLimit: null
  }
  const calls = { get: 0, resolve: 0, admit: 0, used: 0 }
  let stored: ApiKeyRow | undefined = row
  const auth = createAuthenticator({
    keys: { get: async (id: string) => { calls.get++; return id === stored?.id ? stored : undefined } },
    templates: {
      resolveForKey: async (key) => {
        calls.resolve++
        const found = stored !== undefined && key.keyId === stored.id ? stored : undefined
        return { key: found, resolve: async () => { throw new Error('not read here') } }
      }
    },
    admission: {
      admit: async () => { calls.admit++; return { allowed: true, remaining: 10, retryAfterSeconds: 0, limit: 600 } }
    },
    lastUsed: { record: () => { calls.used++ } },
    failures: createFailureThrottle(failuresPerMinute, () => 0)
  })
  const request = (headers: Record<string, string>, key = made.key): AuthRequest =>
    ({ ip: '10.0.0.7', headers: { authorization: `Bearer ${key}`, ...headers } })
  return { auth, calls, request, revoke: () => { stored = undefined } }
}

const route = { scope: 'render' as const }
const target = { template: 'invoice' }

test('a small body: the key\'s form only before the body, the whole check once, with the render\'s read', async () => {
  const { auth, calls, request } = setup()
  const req = request({ 'content-length': '16384' })
  const first = await auth.beforeBody(req, route)
  assert.equal(first.auth, undefined)
  assert.deepEqual(calls, { get: 0, resolve: 0, admit: 0, used: 0 })
  const done = await auth.authenticateForRender(req, route, target, first.key, {}, first.auth)
  assert.equal(done.auth.keyId, first.key.keyId)
  assert.deepEqual(calls, { get: 0, resolve: 1, admit: 1, used: 1 })
})

test('a large or chunked body: the whole check before the body, and not again with the render\'s read', async () => {
  const framings: Array<Record<string, string>> = [{ 'content-length': '16385' }, { 'transfer-encoding': 'chunked' }]
  for (const headers of framings) {
    const { auth, calls, request } = setup()
    const req = request(headers)
    const first = await auth.beforeBody(req, route)
    assert.ok(first.auth !== undefined, JSON.stringify(headers))
    assert.deepEqual(calls, { get: 1, resolve: 0, admit: 1, used: 1 })
    const done = await auth.authenticateForRender(req, route, target, first.key, {}, first.auth)
    assert.equal(done.auth, first.auth)
    assert.deepEqual(calls, { get: 1, resolve: 1, admit: 1, used: 1 }, 'rate limit and last use taken once')
  }
})

test('a key revoked between the early check and the render\'s read is refused then', async () => {
  const { auth, request, revoke } = setup()
  const req = request({ 'content-length': '500000' })
  const first = await auth.beforeBody(req, route)
  revoke()
  await assert.rejects(auth.authenticateForRender(req, route, target, first.key, {}, first.auth),
    (err: unknown) => err instanceof Problem && err.code === 'API_KEY_INVALID')
})

test('unknown key, large body: 401 before the body, read once; 429 past the budget; the valid key of the address goes on', async () => {
  const { auth, calls, request } = setup(2)
  const unknown = request({ 'content-length': '500000' }, 'svc_live_' + 'x'.repeat(12) + '_' + 'y'.repeat(40))
  for (let i = 0; i < 2; i++) {
    await assert.rejects(auth.beforeBody(unknown, route),
      (err: unknown) => err instanceof Problem && err.status === 401)
  }
  assert.equal(calls.get, 1, 'the unknown id is read once, then refused from memory')
  const throttled = (err: unknown): boolean =>
    err instanceof Problem && err.code === 'RATE_LIMITED' && err.headers?.['Retry-After'] !== undefined
  await assert.rejects(auth.beforeBody(unknown, route), throttled)
  await assert.rejects(auth.authenticate(request({}, 'not a key'), route), throttled)
  assert.equal(calls.get, 1)
  // Only failures are throttled: the address's valid key is checked and served as ever.
  assert.ok((await auth.beforeBody(request({ 'content-length': '500000' }), route)).auth !== undefined)
  assert.equal((await auth.authenticate(request({}), route)).keyId.length, 12)
})
