// POST /api/v1/datasets/:template/:dataset/execute end to end over HTTPS: real server, real
// published templates, real data databases (the demo's sample data), every error code it answers.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createTestDatabase, serverUrl } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { startServer } from '../../helpers/server.js'
import type { TestServer } from '../../helpers/server.js'
import { workspaceWithKey, bearer } from '../../helpers/fixtures.js'
import { createDb } from '../../../server/store/db.js'
import { seedDemoDatabase } from '../../../server/demo/data.js'
import { examplesDir } from '../../../server/util/paths.js'
import { createDataDatabase, refusedPort } from '../datasources/helpers.js'
import type { DataDatabase } from '../datasources/helpers.js'

let tdb: TestDatabase
let server: TestServer
let data: DataDatabase
let workspaceId: string
let live: string
let testKey: string
let renderOnly: string

const SKU_LABEL = {
  code: 'sku-lines',
  format: 'label',
  parameters: [{ name: 'invoiceId', type: 'integer', required: true }, { name: 'skus', type: 'string[]', required: true }],
  datasets: [
    { code: 'lines', cardinality: 'multiple', query: 'SELECT line_no, sku, qty FROM invoice_lines WHERE invoice_id = :invoiceId AND sku IN (:skus) ORDER BY line_no', fields: [] },
    { code: 'broken', cardinality: 'multiple', query: 'SELECT secret_column FROM missing_table_xyz WHERE id = :invoiceId', fields: [] }
  ],
  label: { widthIn: 4, heightIn: 2, dpi: 203, rows: 'lines', zpl: '^XA^FO20,20^A0N,30,30^FD{{ row.sku }}^FS^XZ' }
}

const exec = (key: string, template: string, dataset: string, body?: unknown, headers: Record<string, string> = {}) =>
  server.fetch('POST', `/api/v1/datasets/${template}/${dataset}/execute`, { headers: { ...bearer(key), ...headers }, body })

function assertProblem (
  // Parsed JSON under test: the assertions check its shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  res: { status: number, headers: Record<string, unknown>, json(): any },
  status: number,
  code: string
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON under test: the assertions check its shape
): any {
  const body = res.json()
  assert.equal(res.status, status, JSON.stringify(body))
  assert.equal(body.errorCode, code)
  assert.match(String(res.headers['content-type']), /application\/problem\+json/)
  assert.equal(body.correlationId, res.headers['x-correlation-id'])
  assert.doesNotMatch(JSON.stringify(body), /SELECT|missing_table|secret_column|invoice_lines|127\.0\.0\.1/i)
  return body
}

/** What the data database says, read directly, to compare answers with. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows of an ad-hoc query under test
async function direct (sql: string, values: unknown[] = []): Promise<any[]> {
  const db = createDb(`${serverUrl()}/${data.name}`, { connectionLimit: 1 })
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows of an ad-hoc query under test
  try { return (await db.query(sql, values))[0] as any[] } finally { await db.end() }
}

before(async () => {
  tdb = await createTestDatabase('dsx')
  server = await startServer(tdb.url)
  const ctx = server.context
  const made = await workspaceWithKey(ctx, { scopes: ['datasets.execute'] })
  workspaceId = made.workspace.id
  live = made.key.key
  testKey = (await ctx.services.apiKeys.create({ workspaceId, name: 'test', mode: 'test', scopes: ['datasets.execute'], expiresAt: null })).key
  renderOnly = (await ctx.services.apiKeys.create({ workspaceId, name: 'render only', mode: 'live', scopes: ['render'], expiresAt: null })).key
  data = await createDataDatabase([])
  const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  const conn = await admin.getConnection()
  try { await seedDemoDatabase(conn, data.name, 42, 'tst') } finally { conn.release(); await admin.end() }
  await ctx.services.environments.create({ workspaceId, key: 'production', dataSourceUrl: data.url })
  await ctx.services.environments.create({ workspaceId, key: 'development', dataSourceUrl: data.url })
  await ctx.services.environments.create({ workspaceId, key: 'staging' })
  await ctx.services.environments.create({ workspaceId, key: 'refused', dataSourceUrl: `mysql://u:p@127.0.0.1:${await refusedPort()}/x` })
  const invoice = JSON.parse(await readFile(join(examplesDir, 'templates', 'invoice.json'), 'utf8'))
  await ctx.services.templates.publish(workspaceId, invoice)
  await ctx.services.templates.publish(workspaceId, SKU_LABEL)
  await ctx.services.templates.publish(workspaceId, JSON.parse(await readFile(join(examplesDir, 'templates', 'sales-report.json'), 'utf8')))
  await ctx.services.templates.publish(workspaceId, { ...SKU_LABEL, code: 'switched-off' })
  await ctx.services.templates.setDisabled(workspaceId, 'switched-off', true)
  await ctx.db.execute("INSERT INTO templates (id, workspace_id, code, format) VALUES (?, ?, 'draft', 'document')", [randomUUID(), workspaceId])
})

after(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await server?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await data?.drop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await tdb?.drop()
})

test('executes a dataset of the published version in the key\'s default environment', async () => {
  const res = await exec(live, 'invoice', 'lines', { parameters: { invoiceId: 2 } })
  const body = res.json()
  assert.equal(res.status, 200, res.text())
  const expected = await direct('SELECT line_no, sku, description, qty, unit, unit_price, vat_category, vat_rate, amount ' +
    'FROM invoice_lines WHERE invoice_id = 2 ORDER BY line_no')
  assert.equal(expected.length, 40)
  assert.equal(body.template, 'invoice')
  assert.equal(body.version, 1)
  assert.equal(body.dataset, 'lines')
  assert.equal(body.environment, 'production')
  assert.deepEqual(body.columns, [
    { name: 'line_no', type: 'integer' }, { name: 'sku', type: 'string' }, { name: 'description', type: 'string' },
    { name: 'qty', type: 'decimal' }, { name: 'unit', type: 'string' }, { name: 'unit_price', type: 'decimal' },
    { name: 'vat_category', type: 'string' }, { name: 'vat_rate', type: 'decimal' }, { name: 'amount', type: 'decimal' }
  ])
  assert.deepEqual(body.rows, expected)
  assert.equal(body.rowCount, 40)
  assert.equal(body.truncated, false)
  assert.ok(Number.isInteger(body.elapsedMs) && body.elapsedMs >= 0)
  assert.ok(typeof body.rows[0].qty === 'string', 'DECIMAL stays an exact string')
  assert.doesNotMatch(res.text(), /SELECT|FROM invoice_lines/)
})

test('single dataset: one row, dates as YYYY-MM-DD; the test key reads development', async () => {
  const res = await exec(testKey, 'invoice', 'header', { parameters: { invoiceId: 3 } })
  const body = res.json()
  assert.equal(res.status, 200, res.text())
  assert.equal(body.environment, 'development')
  const [row] = await direct('SELECT number, DATE_FORMAT(issued_on, \'%Y-%m-%d\') AS issued_on, total FROM invoices WHERE id = 3')
  assert.equal(body.rowCount, 1)
  assert.equal(body.rows[0].number, row.number)
  assert.equal(body.rows[0].issued_on, row.issued_on)
  assert.equal(body.rows[0].total, row.total)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- items of a parsed JSON body under test
  assert.deepEqual(body.columns.find((c: any) => c.name === 'issued_on'), { name: 'issued_on', type: 'date' })
})

test('maxRows: default 1000, truncated when more rows exist, 1..10000 enforced', async () => {
  const cut = (await exec(live, 'invoice', 'lines', { parameters: { invoiceId: 2 }, maxRows: 10 })).json()
  assert.equal(cut.rowCount, 10)
  assert.equal(cut.rows.length, 10)
  assert.equal(cut.truncated, true)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- items of a parsed JSON body under test
  assert.deepEqual(cut.rows.map((r: any) => r.line_no), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
  const exact = (await exec(live, 'invoice', 'lines', { parameters: { invoiceId: 2 }, maxRows: 40 })).json()
  assert.equal(exact.truncated, false)
  assert.equal(exact.rowCount, 40)
  const [{ n }] = await direct('SELECT COUNT(*) AS n FROM sales')
  assert.ok(n > 1000)
  const range = { from: '2000-01-01', to: '2099-12-31' }
  const byDefault = (await exec(live, 'sales-report', 'sales', { parameters: range })).json()
  assert.equal(byDefault.rowCount, 1000)
  assert.equal(byDefault.truncated, true)
  const all = (await exec(live, 'sales-report', 'sales', { parameters: range, maxRows: 10000 })).json()
  assert.equal(all.rowCount, n)
  assert.equal(all.truncated, false)
  for (const maxRows of [10001, 0, -1, 1.5, '10']) {
    const body = assertProblem(await exec(live, 'invoice', 'lines', { parameters: { invoiceId: 2 }, maxRows }), 400, 'VALIDATION_FAILED')
    assert.ok(Array.isArray(body.errors.maxRows), JSON.stringify(body.errors))
  }
  const unknown = assertProblem(await exec(live, 'invoice', 'lines', { parameters: { invoiceId: 2 }, sql: 'SELECT 1' }), 400, 'VALIDATION_FAILED')
  assert.ok(Array.isArray(unknown.errors.sql))
})

test('a list parameter binds into IN (…); hostile strings are values, not SQL', async () => {
  const skus = (await direct('SELECT DISTINCT sku FROM invoice_lines WHERE invoice_id = 2 ORDER BY sku LIMIT 2')).map((r) => r.sku)
  const expected = await direct('SELECT line_no, sku, qty FROM invoice_lines WHERE invoice_id = 2 AND sku IN (?) ORDER BY line_no', [skus])
  assert.ok(expected.length >= 2)
  const res = await exec(live, 'sku-lines', 'lines', { parameters: { invoiceId: 2, skus } })
  assert.equal(res.status, 200, res.text())
  assert.deepEqual(res.json().rows, expected)
  assert.deepEqual(res.json().columns, [{ name: 'line_no', type: 'integer' }, { name: 'sku', type: 'string' }, { name: 'qty', type: 'decimal' }])
  const hostile = await exec(live, 'sku-lines', 'lines', { parameters: { invoiceId: 2, skus: ["x') OR 1=1 -- ", "' OR '1'='1"] } })
  assert.equal(hostile.status, 200)
  assert.deepEqual(hostile.json().rows, [])
})

test('400 PARAMETER_INVALID lists the parameters; a missing body counts as no parameters', async () => {
  const wrong = assertProblem(await exec(live, 'invoice', 'lines', { parameters: { invoiceId: 'abc', extra: 1 } }), 400, 'PARAMETER_INVALID')
  assert.deepEqual(Object.keys(wrong.errors).sort(), ['extra', 'invoiceId'])
  const missing = assertProblem(await exec(live, 'invoice', 'lines', {}), 400, 'PARAMETER_INVALID')
  assert.deepEqual(missing.errors, { invoiceId: ['is required'] })
  const nobody = assertProblem(await exec(live, 'invoice', 'lines'), 400, 'PARAMETER_INVALID')
  assert.deepEqual(nobody.errors, { invoiceId: ['is required'] })
  // All declared parameters are checked, also those the chosen dataset does not use.
  const other = assertProblem(await exec(live, 'sku-lines', 'broken', { parameters: { invoiceId: 1 } }), 400, 'PARAMETER_INVALID')
  assert.deepEqual(Object.keys(other.errors), ['skus'])
})

test('404/409 template and dataset problems, in resolution order', async () => {
  assertProblem(await exec(live, 'no-such-template', 'lines', { environment: 'nowhere' }), 404, 'TEMPLATE_NOT_FOUND')
  assertProblem(await exec(live, 'draft', 'lines', {}), 404, 'TEMPLATE_NOT_PUBLISHED')
  assertProblem(await exec(live, 'switched-off', 'lines', {}), 409, 'TEMPLATE_DISABLED')
  assertProblem(await exec(live, 'invoice', 'no-such-dataset', { environment: 'nowhere' }), 404, 'DATASET_NOT_FOUND')
  assertProblem(await exec(live, 'invoice', 'lines', { environment: 'nowhere', parameters: { invoiceId: 'x' } }), 404, 'ENVIRONMENT_NOT_FOUND')
})

test('403 ENVIRONMENT_NOT_ALLOWED for a test key on production; other auth errors', async () => {
  assertProblem(await exec(testKey, 'invoice', 'lines', { environment: 'production', parameters: { invoiceId: 1 } }), 403, 'ENVIRONMENT_NOT_ALLOWED')
  const ok = await exec(testKey, 'invoice', 'lines', { environment: 'development', parameters: { invoiceId: 1 } })
  assert.equal(ok.status, 200)
  assert.equal(ok.json().environment, 'development')
  const anon = await server.fetch('POST', '/api/v1/datasets/invoice/lines/execute', { body: {} })
  assertProblem(anon, 401, 'API_KEY_INVALID')
  assert.equal(anon.headers['www-authenticate'], 'Bearer')
  assertProblem(await exec(renderOnly, 'invoice', 'lines', { parameters: { invoiceId: 1 } }), 403, 'SCOPE_MISSING')
  assertProblem(await exec(live, 'invoice', 'lines', { parameters: { invoiceId: 1 } }, { 'svc-workspace': randomUUID() }), 403, 'WORKSPACE_MISMATCH')
})

test('422 DATASET_FAILED names the dataset only', async () => {
  const body = assertProblem(await exec(live, 'sku-lines', 'broken', { parameters: { invoiceId: 1, skus: ['a'] } }), 422, 'DATASET_FAILED')
  assert.match(body.detail, /"broken"/)
})

test('503 DATA_SOURCE_UNAVAILABLE with Retry-After: no data source, refused connection', async () => {
  for (const environment of ['staging', 'refused']) {
    const res = await exec(live, 'invoice', 'lines', { environment, parameters: { invoiceId: 1 } })
    assertProblem(res, 503, 'DATA_SOURCE_UNAVAILABLE')
    assert.equal(res.headers['retry-after'], '5')
  }
})
