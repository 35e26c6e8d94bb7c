// Authentication over real HTTPS. Revocation (issue #2) is checked against a second, real
// `svc serve` child process on the same database, revoked by a third process (`svc keys revoke`).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Agent, request } from 'undici'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { startServer, makeHome } from '../../helpers/server.js'
import type { TestServer, TestResponse } from '../../helpers/server.js'
import { startChildServer } from '../../helpers/child-server.js'
import type { ChildServer } from '../../helpers/child-server.js'
import { workspaceWithKey, bearer } from '../../helpers/fixtures.js'
import { projectRoot } from '../../../server/util/paths.js'
import { readExample } from '../../helpers/render-data.js'
import { createTemplatesRepo } from '../../../server/store/repos/templates.js'
import { parseApiKey } from '../../../server/util/api-key-format.js'
import { sha256 } from '../../../server/util/crypto.js'

const run = promisify(execFile)
const masterKey = randomBytes(32).toString('hex')
let database: TestDatabase
let home: string
let server: TestServer
let child: ChildServer
let childAgent: Agent

// The child and the CLI share the in-process server's database, master key and home (so its TLS certificate).
const sharedEnv = (): Record<string, string> => ({
  SVC_HOME: home,
  SVC_DATABASE_URL: database.url,
  SVC_MASTER_KEY: masterKey
})

before(async () => {
  database = await createTestDatabase('auth')
  home = await makeHome()
  server = await startServer(database.url, { SVC_MASTER_KEY: masterKey }, home)
  child = await startChildServer({ ...sharedEnv(), SVC_JOBS: 'false', SVC_WEBHOOKS: 'false', SVC_RENDER_THREADS: '1', SVC_LOG_LEVEL: 'error' })
  childAgent = new Agent({ connect: { ca: server.ca } })
})
after(async () => {
  await child.kill('SIGKILL')
  await childAgent.close()
  await server.close()
  await database.drop()
  await rm(home, { recursive: true, force: true })
})

async function childFetch (path: string, headers: Record<string, string>): Promise<TestResponse> {
  const res = await request(child.url + path, { method: 'GET', headers, dispatcher: childAgent })
  const body = Buffer.from(await res.body.arrayBuffer())
  return { status: res.statusCode, headers: res.headers, body, json: () => JSON.parse(body.toString('utf8')), text: () => body.toString('utf8') }
}

function assertProblem (
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

test('a revoked key gets 401 API_KEY_REVOKED on the next request of another svc serve process', async () => {
  const { key, workspace } = await workspaceWithKey(server.context)
  // Several successful requests first: whatever the child keeps about the key, it has it now.
  for (let i = 0; i < 3; i++) {
    const ok = await childFetch('/api/v1/whoami', bearer(key.key))
    assert.equal(ok.status, 200, ok.text())
    assert.equal(ok.json().workspaceId, workspace.id)
  }
  const { stdout } = await run(process.execPath, [join(projectRoot, 'bin', 'svc'), '--json', 'keys', 'revoke', key.prefix, '--workspace', key.workspaceId], {
    env: { PATH: process.env.PATH ?? '', ...sharedEnv(), SVC_LOG_LEVEL: 'silent' }
  })
  assert.equal(JSON.parse(stdout).state, 'revoked')
  const res = await childFetch('/api/v1/whoami', bearer(key.key))
  assertProblem(res, 401, 'API_KEY_REVOKED')
  assert.equal(res.headers['www-authenticate'], undefined)
  // And on the in-process server, which did not revoke it either.
  assertProblem(await server.fetch('GET', '/api/v1/whoami', { headers: bearer(key.key) }), 401, 'API_KEY_REVOKED')
  // Another key of the same workspace still works on the child.
  const other = await server.context.services.apiKeys.create({ workspaceId: workspace.id, name: 'other', mode: 'live', scopes: ['render'], expiresAt: null })
  assert.equal((await childFetch('/api/v1/whoami', bearer(other.key))).status, 200)
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

test('Svc-Workspace is compared as a UUID: the key\'s own workspace id in upper case passes, another one in upper case does not', async () => {
  const { key, workspace } = await workspaceWithKey(server.context)
  const { workspace: another } = await workspaceWithKey(server.context)
  assert.equal((await server.fetch('GET', '/api/v1/whoami', { headers: { ...bearer(key.key), 'svc-workspace': workspace.id.toUpperCase() } })).status, 200)
  assertProblem(await server.fetch('GET', '/api/v1/whoami', { headers: { ...bearer(key.key), 'svc-workspace': another.id.toUpperCase() } }), 403, 'WORKSPACE_MISMATCH')
  assertProblem(await server.fetch('GET', '/api/v1/whoami', { headers: { ...bearer(key.key), 'svc-workspace': `${workspace.id}0` } }), 403, 'WORKSPACE_MISMATCH')
})

test('only requests a key was allowed to make count as its last use', async () => {
  const revoked = await workspaceWithKey(server.context)
  const mismatched = await workspaceWithKey(server.context)
  const unscoped = await workspaceWithKey(server.context, { scopes: ['templates.read'] })
  const used = await workspaceWithKey(server.context)
  await server.context.services.apiKeys.revoke(revoked.workspace.id, revoked.key.prefix)
  assertProblem(await server.fetch('GET', '/api/v1/whoami', { headers: bearer(revoked.key.key) }), 401, 'API_KEY_REVOKED')
  assertProblem(await server.fetch('POST', '/api/v1/render', { headers: bearer(revoked.key.key), body: { template: 'x' } }), 401, 'API_KEY_REVOKED')
  assertProblem(await server.fetch('GET', '/api/v1/whoami', { headers: { ...bearer(mismatched.key.key), 'svc-workspace': used.workspace.id } }), 403, 'WORKSPACE_MISMATCH')
  assertProblem(await server.fetch('GET', '/api/v1/whoami', { headers: bearer(unscoped.key.key) }), 403, 'SCOPE_MISSING')
  assert.equal((await server.fetch('GET', '/api/v1/whoami', { headers: bearer(used.key.key) })).status, 200)
  await server.close() // closing flushes the recorder
  server = await startServer(database.url, { SVC_MASTER_KEY: masterKey }, home)
  const lastUsed = async (k: { workspace: { id: string }, key: { id: string } }): Promise<string | null | undefined> =>
    (await server.context.services.apiKeys.list(k.workspace.id)).find((v) => v.id === k.key.id)?.lastUsedAt
  assert.equal(await lastUsed(revoked), null)
  assert.equal(await lastUsed(mismatched), null)
  assert.equal(await lastUsed(unscoped), null)
  assert.equal(typeof await lastUsed(used), 'string')
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
  server = await startServer(database.url, { SVC_MASTER_KEY: masterKey }, home)
  const afterClose = (await server.context.services.apiKeys.list(workspace.id)).find((k) => k.id === key.id)
  assert.ok(afterClose?.lastUsedAt !== null && afterClose?.lastUsedAt !== undefined)
})

// POST /v1/render reads the key's row in the same query as the template (deferred auth): the
// order of answers must stay the spec's whatever the body: key (401) → rate limit → workspace →
// scope → validation → template.
test('POST /v1/render: a bad key is a 401 whatever the body (unknown template, invalid, unparsable, not JSON)', async () => {
  const { key } = await workspaceWithKey(server.context)
  const wrongSecret = key.key.slice(0, -1) + (key.key.endsWith('a') ? 'b' : 'a')
  const keys: Array<Record<string, string>> = [
    {},
    { authorization: 'Bearer not-a-key' },
    { authorization: 'Bearer svc_live_zzzzzzzzzzzz_' + 'a'.repeat(40) },
    { authorization: `Bearer ${wrongSecret}` },
    { authorization: `Bearer ${key.key.replace('svc_live_', 'svc_test_')}` }
  ]
  const bodies: Array<{ body?: unknown, rawBody?: string, headers?: Record<string, string> }> = [
    { body: { template: 'no-such-template' } },
    { body: { template: 'x', unknownMember: 1 } },
    { rawBody: '{"template": ', headers: { 'content-type': 'application/json' } },
    { rawBody: 'template=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }
  ]
  for (const headers of keys) {
    for (const b of bodies) {
      const res = await server.fetch('POST', '/api/v1/render', { headers: { ...headers, ...b.headers }, body: b.body, rawBody: b.rawBody })
      assertProblem(res, 401, 'API_KEY_INVALID')
      assert.equal(res.headers['www-authenticate'], 'Bearer', JSON.stringify({ headers, b }))
    }
  }
})

test('POST /v1/render: revoked and expired keys, missing scope and another workspace come before body and template errors', async () => {
  const revoked = (await workspaceWithKey(server.context)).key
  await server.context.services.apiKeys.revoke(revoked.workspaceId, revoked.prefix)
  const expired = (await workspaceWithKey(server.context)).key
  await server.context.db.execute('UPDATE api_keys SET expires_at = ? WHERE id = ?', [new Date(Date.now() - 1000), expired.id])
  const readOnly = (await workspaceWithKey(server.context, { scopes: ['templates.read'] })).key
  const { key, workspace } = await workspaceWithKey(server.context)
  const { workspace: another } = await workspaceWithKey(server.context)
  const invalid = { template: 'x', unknownMember: 1 }
  const unknown = { template: 'no-such-template' }
  for (const body of [invalid, unknown]) {
    assertProblem(await server.fetch('POST', '/api/v1/render', { headers: bearer(revoked.key), body }), 401, 'API_KEY_REVOKED')
    assertProblem(await server.fetch('POST', '/api/v1/render', { headers: bearer(expired.key), body }), 401, 'API_KEY_EXPIRED')
    const scoped = assertProblem(await server.fetch('POST', '/api/v1/render', { headers: bearer(readOnly.key), body }), 403, 'SCOPE_MISSING')
    assert.match(scoped.detail, /render/)
    assertProblem(await server.fetch('POST', '/api/v1/render', { headers: { ...bearer(key.key), 'svc-workspace': another.id }, body }), 403, 'WORKSPACE_MISMATCH')
  }
  // A body past the size limit: the key's problem still comes first; with a good key it is a 413.
  const huge = JSON.stringify({ template: 'x', parameters: { pad: 'x'.repeat(2 * 1024 * 1024) } })
  const json = { 'content-type': 'application/json' }
  assertProblem(await server.fetch('POST', '/api/v1/render', { headers: { ...bearer(revoked.key), ...json }, rawBody: huge }), 401, 'API_KEY_REVOKED')
  assert.equal((await server.fetch('POST', '/api/v1/render', { headers: { ...bearer(key.key), ...json }, rawBody: huge })).status, 413)
  // With a good key the body and then the template are checked.
  assertProblem(await server.fetch('POST', '/api/v1/render', { headers: bearer(key.key), body: invalid }), 400, 'VALIDATION_FAILED')
  const res = await server.fetch('POST', '/api/v1/render', { headers: { ...bearer(key.key), 'svc-workspace': workspace.id }, body: unknown })
  assertProblem(res, 404, 'TEMPLATE_NOT_FOUND')
  assert.ok(res.headers['ratelimit-remaining'] !== undefined, 'the rate limit was applied')
})

test('POST /v1/render: a key revoked by another process is refused on the next render of this one', async () => {
  const { key } = await workspaceWithKey(server.context)
  const body = { template: 'no-such-template' }
  assertProblem(await server.fetch('POST', '/api/v1/render', { headers: bearer(key.key), body }), 404, 'TEMPLATE_NOT_FOUND')
  await run(process.execPath, [join(projectRoot, 'bin', 'svc'), '--json', 'keys', 'revoke', key.prefix, '--workspace', key.workspaceId], {
    env: { PATH: process.env.PATH ?? '', ...sharedEnv(), SVC_LOG_LEVEL: 'silent' }
  })
  assertProblem(await server.fetch('POST', '/api/v1/render', { headers: bearer(key.key), body }), 401, 'API_KEY_REVOKED')
})

test('POST /v1/render: templates and environments of another workspace do not exist for a key', async () => {
  const a = await workspaceWithKey(server.context)
  const b = await workspaceWithKey(server.context)
  const invoice = await readExample('invoice')
  await server.context.services.templates.publish(a.workspace.id, { ...invoice, code: 'inv-a' })
  await server.context.services.templates.publish(b.workspace.id, { ...invoice, code: 'inv-b' })
  await server.context.services.environments.create({ workspaceId: a.workspace.id, key: 'production' })
  await server.context.services.environments.create({ workspaceId: b.workspace.id, key: 'production' })
  await server.context.services.environments.create({ workspaceId: b.workspace.id, key: 'only-b' })
  const post = (body: Record<string, unknown>): Promise<TestResponse> => server.fetch('POST', '/api/v1/render', { headers: bearer(a.key.key), body })
  assertProblem(await post({ template: 'inv-b', parameters: { invoiceId: 1 } }), 404, 'TEMPLATE_NOT_FOUND')
  assertProblem(await post({ template: 'inv-a', environment: 'only-b', parameters: { invoiceId: 1 } }), 404, 'ENVIRONMENT_NOT_FOUND')
  // Its own template and environment are found (the environment has no data source: 503 from the data step, not a 404).
  assertProblem(await post({ template: 'inv-a', parameters: { invoiceId: 1 } }), 503, 'DATA_SOURCE_UNAVAILABLE')
})

test('the render lookup reads template and environment only for a valid key (no existence oracle for bad keys)', async () => {
  const { key, workspace } = await workspaceWithKey(server.context)
  await server.context.services.templates.publish(workspace.id, { ...await readExample('invoice'), code: 'inv-o' })
  await server.context.services.environments.create({ workspaceId: workspace.id, key: 'production' })
  const parsed = parseApiKey(key.key)
  assert.ok(parsed !== undefined)
  const repo = createTemplatesRepo(server.context.db)
  const lookup = async (
    over: Partial<{ mode: string, secretHash: Buffer }> = {}
  ): Promise<Awaited<ReturnType<typeof repo.resolveForKey>>> =>
    await repo.resolveForKey(
      { keyId: parsed.keyId, mode: parsed.mode, secretHash: sha256(parsed.secret), ...over },
      'inv-o',
      undefined,
      undefined,
      'production'
    )
  const good = await lookup()
  assert.equal(good?.key.id, key.id)
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks at runtime what the type claims
  assert.ok(good?.template !== undefined && good.template.environment !== undefined, 'a valid key gets template and environment')
  const wrong = await lookup({ secretHash: sha256('x'.repeat(40)) })
  assert.equal(wrong?.key.id, key.id, 'the key row comes back (verifyKey answers 401)')
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks at runtime what the type claims
  assert.equal(wrong?.template, undefined, 'but nothing about the template')
  assert.equal((await lookup({ mode: 'test' }))?.template, undefined, 'nor for the other mode')
  await server.context.db.execute('UPDATE api_keys SET expires_at = ? WHERE id = ?', [new Date(Date.now() - 1000), key.id])
  assert.equal((await lookup())?.template, undefined, 'nor for an expired key')
  await server.context.db.execute('UPDATE api_keys SET expires_at = NULL WHERE id = ?', [key.id])
  assert.ok((await lookup())?.template !== undefined)
  await server.context.services.apiKeys.revoke(key.workspaceId, key.prefix)
  assert.equal((await lookup())?.template, undefined, 'nor for a revoked key')
})
