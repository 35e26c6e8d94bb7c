// The read API end to end: real HTTPS, real database, keys made like the CLI makes them.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { startServer } from '../../helpers/server.js'
import type { TestServer, TestResponse } from '../../helpers/server.js'
import { workspaceWithKey, bearer } from '../../helpers/fixtures.js'
import { exampleAs, exampleText } from '../templates/helpers.js'

let database: TestDatabase
let server: TestServer

before(async () => {
  database = await createTestDatabase('tplhttp')
  server = await startServer(database.url)
})
after(async () => {
  await server.close()
  await database.drop()
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON under test: the assertions check its shape
function assertProblem (res: TestResponse, status: number, code: string): Record<string, any> {
  assert.equal(res.status, status, res.text())
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
  const body = res.json()
  assert.equal(body.errorCode, code)
  assert.equal(body.correlationId, res.headers['x-correlation-id'])
  return body
}

/** No SQL and no `query` member anywhere in an answer. */
function assertNoQuery (res: TestResponse): void {
  const text = res.text()
  assert.ok(!text.includes('"query"'), 'no query member')
  assert.ok(!/SELECT|invoice_lines/i.test(text), 'no SQL text')
}

test('GET /v1/templates/:code answers the spec 2.3 record; its parameterSchema validates parameters', async () => {
  const { workspace, key } = await workspaceWithKey(server.context, { scopes: ['templates.read'] })
  const pub = await server.context.services.templates.publish(workspace.id, exampleText('invoice'))
  const res = await server.fetch('GET', '/api/v1/templates/invoice', { headers: bearer(key.key) })
  assert.equal(res.status, 200, res.text())
  assert.ok(res.headers['x-correlation-id'])
  assertNoQuery(res)
  const body = res.json()
  assert.deepEqual(Object.keys(body).sort(), ['code', 'datasets', 'description', 'documentType', 'format', 'parameterSchema', 'parameters', 'updatedAt', 'version'])
  assert.equal(body.code, 'invoice')
  assert.equal(body.format, 'document')
  assert.equal(body.documentType, 'invoice')
  assert.equal(body.version, pub.version)
  assert.match(body.description, /Customer invoice/)
  assert.ok(!Number.isNaN(Date.parse(body.updatedAt)) && body.updatedAt.endsWith('Z'))
  assert.deepEqual(body.parameters, [{ name: 'invoiceId', type: 'integer', required: true, defaultValue: null, description: 'Internal id of the invoice' }])
  assert.deepEqual(body.datasets.map((d: { code: string, cardinality: string }) => [d.code, d.cardinality]), [
    ['header', 'single'], ['lines', 'multiple'], ['allowances', 'multiple']
  ])
  assert.deepEqual(body.datasets[1].fields[0], { name: 'line_no', type: 'integer' })
  assert.deepEqual(Object.keys(body.datasets[0]).sort(), ['cardinality', 'code', 'description', 'fields'])

  const validate = new Ajv2020({ strict: false }).compile(body.parameterSchema)
  assert.equal(body.parameterSchema.$schema, 'https://json-schema.org/draft/2020-12/schema')
  assert.equal(validate({ invoiceId: 42 }), true, JSON.stringify(validate.errors))
  assert.equal(validate({ invoiceId: 'forty-two' }), false)
  assert.equal(validate({}), false, 'invoiceId is required')
  assert.equal(validate({ invoiceId: 1, other: 2 }), false, 'no unknown parameters')

  // A newer version is what the next read shows.
  await server.context.services.templates.publish(workspace.id, exampleAs('invoice', 'invoice', (t) => { t.description = 'v2' }))
  const again = (await server.fetch('GET', '/api/v1/templates/invoice', { headers: bearer(key.key) })).json()
  assert.equal(again.version, pub.version + 1)
  assert.equal(again.description, 'v2')
})

test('labels: format label, parameter schema with the declared minimum', async () => {
  const { workspace, key } = await workspaceWithKey(server.context, { scopes: ['templates.read'] })
  await server.context.services.templates.publish(workspace.id, exampleText('shipping-label'))
  const res = await server.fetch('GET', '/api/v1/templates/shipping-label', { headers: bearer(key.key) })
  assert.equal(res.status, 200)
  assertNoQuery(res)
  const body = res.json()
  assert.equal(body.format, 'label')
  const validate = new Ajv2020({ strict: false }).compile(body.parameterSchema)
  assert.equal(validate({ batchId: 1 }), true)
  assert.equal(validate({ batchId: 0 }), false)
})

test('unknown, unpublished and disabled templates; other workspaces are invisible', async () => {
  const { workspace, key } = await workspaceWithKey(server.context, { scopes: ['templates.read'] })
  const h = { headers: bearer(key.key) }
  assertProblem(await server.fetch('GET', '/api/v1/templates/nope', h), 404, 'TEMPLATE_NOT_FOUND')
  await server.context.db.execute('INSERT INTO templates (id, workspace_id, code, format) VALUES (?, ?, ?, ?)', [randomUUID(), workspace.id, 'draft', 'document'])
  assertProblem(await server.fetch('GET', '/api/v1/templates/draft', h), 404, 'TEMPLATE_NOT_PUBLISHED')
  await server.context.services.templates.publish(workspace.id, exampleText('invoice'))
  await server.context.services.templates.setDisabled(workspace.id, 'invoice', true)
  assertProblem(await server.fetch('GET', '/api/v1/templates/invoice', h), 409, 'TEMPLATE_DISABLED')
  const list = await server.fetch('GET', '/api/v1/templates', h)
  assert.deepEqual(list.json(), { data: [], nextCursor: null }, 'neither the unpublished nor the disabled one is listed')
  await server.context.services.templates.setDisabled(workspace.id, 'invoice', false)
  assert.deepEqual((await server.fetch('GET', '/api/v1/templates', h)).json().data.map((t: { code: string }) => t.code), ['invoice'])

  const other = await workspaceWithKey(server.context, { scopes: ['templates.read'] })
  assertProblem(await server.fetch('GET', '/api/v1/templates/invoice', { headers: bearer(other.key.key) }), 404, 'TEMPLATE_NOT_FOUND')
  assert.deepEqual((await server.fetch('GET', '/api/v1/templates', { headers: bearer(other.key.key) })).json(), { data: [], nextCursor: null })
})

test('scope templates.read is needed: a render-only key gets 403 SCOPE_MISSING; no key gets 401', async () => {
  const { workspace, key } = await workspaceWithKey(server.context, { scopes: ['render'] })
  await server.context.services.templates.publish(workspace.id, exampleText('invoice'))
  assertProblem(await server.fetch('GET', '/api/v1/templates', { headers: bearer(key.key) }), 403, 'SCOPE_MISSING')
  assertProblem(await server.fetch('GET', '/api/v1/templates/invoice', { headers: bearer(key.key) }), 403, 'SCOPE_MISSING')
  assertProblem(await server.fetch('GET', '/api/v1/templates'), 401, 'API_KEY_INVALID')
})

test('the list pages by code with an opaque cursor: 7 templates, limit 3, three pages', async () => {
  const { workspace, key } = await workspaceWithKey(server.context, { scopes: ['templates.read'] })
  const codes = ['a-1', 'b-2', 'c-3', 'd-4', 'e-5', 'f-6', 'g-7']
  // Published out of order; one extra disabled template must not shift the pages.
  for (const code of [...codes].reverse()) await server.context.services.templates.publish(workspace.id, exampleAs(code.startsWith('c') ? 'shipping-label' : 'invoice', code))
  await server.context.services.templates.publish(workspace.id, exampleAs('invoice', 'c-35'))
  await server.context.services.templates.setDisabled(workspace.id, 'c-35', true)

  const seen: string[] = []
  const cursors: Array<string | null> = []
  let cursor: string | null = null
  for (let page = 0; page < 5; page++) {
    const res = await server.fetch('GET', `/api/v1/templates?limit=3${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, { headers: bearer(key.key) })
    assert.equal(res.status, 200, res.text())
    assertNoQuery(res)
    const body = res.json()
    assert.ok(body.data.length <= 3)
    seen.push(...body.data.map((t: { code: string }) => t.code))
    cursors.push(body.nextCursor)
    cursor = body.nextCursor
    if (cursor === null) break
  }
  assert.deepEqual(seen, codes)
  assert.equal(cursors.length, 3, 'three pages')
  assert.equal(cursors[2], null)
  assert.equal(typeof cursors[0], 'string')
  assert.match(cursors[0] as string, /^[A-Za-z0-9_-]+$/, 'base64url')

  // Default limit 50 returns them all at once.
  const all = (await server.fetch('GET', '/api/v1/templates', { headers: bearer(key.key) })).json()
  assert.equal(all.data.length, 7)
  assert.equal(all.nextCursor, null)
  assert.equal(all.data.find((t: { code: string }) => t.code === 'c-3').format, 'label')
})

test('bad paging input is 400 VALIDATION_FAILED naming the member', async () => {
  const { key } = await workspaceWithKey(server.context, { scopes: ['templates.read'] })
  for (const q of ['limit=0', 'limit=101', 'limit=abc', 'limit=2.5']) {
    const body = assertProblem(await server.fetch('GET', `/api/v1/templates?${q}`, { headers: bearer(key.key) }), 400, 'VALIDATION_FAILED')
    assert.ok(body.errors.limit !== undefined, JSON.stringify(body.errors))
  }
  const body = assertProblem(await server.fetch('GET', '/api/v1/templates?cursor=%25%25%25', { headers: bearer(key.key) }), 400, 'VALIDATION_FAILED')
  assert.ok(body.errors.cursor !== undefined)
  assert.equal((await server.fetch('GET', '/api/v1/templates?limit=100', { headers: bearer(key.key) })).status, 200)
})
