import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { startServer } from '../../helpers/server.js'
import type { TestServer } from '../../helpers/server.js'
import { workspaceWithKey, bearer } from '../../helpers/fixtures.js'

let database: TestDatabase
let server: TestServer
let other: TestServer

before(async () => {
  database = await createTestDatabase('auth')
  server = await startServer(database.url)
  // A second server process on the same database: revocation must be seen there too.
  other = await startServer(database.url)
})
after(async () => {
  await server.close()
  await other.close()
  await database.drop()
})

function assertProblem (res: { status: number, headers: Record<string, unknown>, json (): any }, status: number, code: string): any {
  assert.equal(res.status, status)
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
  const body = res.json()
  assert.equal(body.errorCode, code)
  assert.equal(body.status, status)
  assert.equal(body.type, 'about:blank')
  assert.equal(typeof body.title, 'string')
  assert.equal(typeof body.detail, 'string')
  assert.equal(body.correlationId, res.headers['x-correlation-id'])
  return body
}

test('a valid key authenticates and its workspace and scopes are known', async () => {
  const { key, workspace } = await workspaceWithKey(server.context)
  const res = await server.fetch('GET', '/api/v1/whoami', { headers: bearer(key.key) })
  assert.equal(res.status, 200)
  const body = res.json()
  assert.equal(body.workspaceId, workspace.id)
  assert.equal(body.prefix, key.prefix)
  assert.equal(body.defaultEnvironment, 'production')
  assert.ok(!JSON.stringify(body).includes(key.key.split('_').pop() as string), 'the secret is never echoed')
})

test('missing, malformed and unknown keys get 401 API_KEY_INVALID with WWW-Authenticate: Bearer', async () => {
  const { key } = await workspaceWithKey(server.context)
  const wrongSecret = key.key.slice(0, -1) + (key.key.endsWith('a') ? 'b' : 'a')
  const cases: Array<Record<string, string>> = [
    {},
    { authorization: 'Bearer' },
    { authorization: 'Basic dXNlcjpwYXNz' },
    { authorization: 'Bearer not-a-key' },
    { authorization: 'Bearer svc_prod_abcdefghijkl_' + 'a'.repeat(40) },
    { authorization: 'Bearer svc_live_zzzzzzzzzzzz_' + 'a'.repeat(40) },
    { authorization: `Bearer ${wrongSecret}` },
    { authorization: `Bearer ${key.key.replace('svc_live_', 'svc_test_')}` }
  ]
  for (const headers of cases) {
    const res = await server.fetch('GET', '/api/v1/whoami', { headers })
    assertProblem(res, 401, 'API_KEY_INVALID')
    assert.equal(res.headers['www-authenticate'], 'Bearer', JSON.stringify(headers))
  }
})

test('a revoked key gets 401 API_KEY_REVOKED on the next request, also on another server process', async () => {
  const { key } = await workspaceWithKey(server.context)
  assert.equal((await other.fetch('GET', '/api/v1/whoami', { headers: bearer(key.key) })).status, 200)
  await server.context.services.apiKeys.revoke(key.prefix)
  const res = await other.fetch('GET', '/api/v1/whoami', { headers: bearer(key.key) })
  assertProblem(res, 401, 'API_KEY_REVOKED')
  assert.equal(res.headers['www-authenticate'], undefined)
})

test('an expired key gets 401 API_KEY_EXPIRED', async () => {
  const { key } = await workspaceWithKey(server.context)
  await server.context.db.execute('UPDATE api_keys SET expires_at = ? WHERE id = ?', [new Date(Date.now() - 1000), key.id])
  assertProblem(await server.fetch('GET', '/api/v1/whoami', { headers: bearer(key.key) }), 401, 'API_KEY_EXPIRED')
})

test('a key without the route scope gets 403 SCOPE_MISSING', async () => {
  const { key } = await workspaceWithKey(server.context, { scopes: ['templates.read'] })
  const body = assertProblem(await server.fetch('GET', '/api/v1/whoami', { headers: bearer(key.key) }), 403, 'SCOPE_MISSING')
  assert.match(body.detail, /render/)
})

test('Svc-Workspace naming another workspace gets 403 WORKSPACE_MISMATCH; the same one passes', async () => {
  const { key, workspace } = await workspaceWithKey(server.context)
  const { workspace: another } = await workspaceWithKey(server.context)
  assertProblem(await server.fetch('GET', '/api/v1/whoami', { headers: { ...bearer(key.key), 'svc-workspace': another.id } }), 403, 'WORKSPACE_MISMATCH')
  assert.equal((await server.fetch('GET', '/api/v1/whoami', { headers: { ...bearer(key.key), 'svc-workspace': workspace.id } })).status, 200)
})

test('test keys default to development and live keys to production', async () => {
  const { key } = await workspaceWithKey(server.context, { mode: 'test' })
  const res = await server.fetch('GET', '/api/v1/whoami', { headers: bearer(key.key) })
  assert.equal(res.json().defaultEnvironment, 'development')
  assert.equal(res.json().mode, 'test')
})

test('last use of a key is recorded without a write per request', async () => {
  const { key, workspace } = await workspaceWithKey(server.context)
  assert.equal((await server.fetch('GET', '/api/v1/whoami', { headers: bearer(key.key) })).status, 200)
  const before = (await server.context.services.apiKeys.list(workspace.id)).find((k) => k.id === key.id)
  assert.equal(before?.lastUsedAt, null, 'not written synchronously')
  await server.close() // closing flushes the recorder
  const afterClose = (await other.context.services.apiKeys.list(workspace.id)).find((k) => k.id === key.id)
  assert.ok(afterClose?.lastUsedAt !== null && afterClose?.lastUsedAt !== undefined)
  server = await startServer(database.url)
})
