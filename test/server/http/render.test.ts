// POST /v1/render end to end: real HTTPS, real MariaDB data source, real PDFs read by poppler.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { TestServer } from '../../helpers/server.js'
import { bearer } from '../../helpers/fixtures.js'
import { renderFixture, readExample } from '../../helpers/render-data.js'
import { pdfFacts } from '../../helpers/poppler.js'
import type { RowDataPacket } from 'mysql2'
import { problemOf } from '../../helpers/problems.js'

let fx: Awaited<ReturnType<typeof renderFixture>>
let server: TestServer
let ws: Awaited<ReturnType<typeof renderFixture>>['ws']

before(async () => {
  fx = await renderFixture('render')
  server = fx.server
  ws = fx.ws
})
after(async () => { await fx.close() })

const render = (body: unknown, key = ws.key.key, headers: Record<string, string> = {}) =>
  server.fetch('POST', '/api/v1/render', { headers: { ...bearer(key), ...headers }, body })

test('sync invoice: PDF body with every header of Part 4', async () => {
  const res = await render({ template: 'invoice', parameters: { invoiceId: 1 }, fileName: 'acme.pdf' }, ws.key.key, { 'x-correlation-id': 'inv-1' })
  assert.equal(res.status, 200)
  assert.equal(res.headers['content-type'], 'application/pdf')
  assert.equal(Number(res.headers['content-length']), res.body.length)
  assert.equal(res.headers['content-disposition'], 'attachment; filename="acme.pdf"')
  assert.equal(res.headers['x-correlation-id'], 'inv-1')
  assert.equal(res.headers['x-template-version'], '1')
  assert.equal(res.headers['x-document-format'], 'pdf')
  assert.equal(res.headers['x-environment'], 'production')
  assert.match(String(res.headers['x-run-id']), /^[0-9a-f-]{36}$/)
  assert.equal(res.body.subarray(0, 5).toString(), '%PDF-')
  const pdf = await pdfFacts(res.body)
  assert.equal(String(pdf.pages), res.headers['x-page-count'])
  assert.match(pdf.text, /INV-2026-0001/)
  assert.match(pdf.text, /Acme Corp/)
  assert.match(pdf.text, /Widget number 12/)
})

test('sync labels: ZPL with X-Label-Count; format zpl accepted, default file name', async () => {
  const res = await render({ template: 'shipping-label', parameters: { batchId: 7 }, format: 'zpl', environment: 'staging' })
  assert.equal(res.status, 200)
  assert.equal(res.headers['content-type'], 'application/zpl')
  assert.equal(res.headers['x-document-format'], 'zpl')
  assert.equal(res.headers['x-environment'], 'staging')
  assert.equal(res.headers['x-label-count'], '3') // TRK0002 has qty 2
  assert.equal(res.headers['x-page-count'], undefined)
  assert.match(String(res.headers['content-disposition']), /^attachment; filename="shipping-label-v1\.zpl"$/)
  const zpl = res.text()
  assert.match(zpl, /^\^XA/)
  assert.match(zpl, /TRK0001/)
})

test('the run is recorded with the key, correlation id and X-Run-ID', async () => {
  const res = await render({ template: 'invoice', parameters: { invoiceId: 2 } }, ws.key.key, { 'x-correlation-id': 'run-check' })
  assert.equal(res.status, 200)
  const runId = String(res.headers['x-run-id'])
  let run
  for (let i = 0; i < 40 && run === undefined; i++) {
    const [rows] = await server.context.db.query<RowDataPacket[]>('SELECT * FROM runs WHERE id = ?', [runId])
    run = rows[0]

    if (run === undefined) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.ok(run !== undefined, 'run written by the batched recorder')
  assert.equal(run.correlation_id, 'run-check')
  assert.equal(run.api_key_prefix, ws.key.prefix)
  assert.equal(run.api_key_name, 'render key')
  assert.equal(run.status, 'succeeded')
  assert.equal(run.template_code, 'invoice')
  assert.equal(run.output_bytes, res.body.length)
})

test('a refused render is a failed run with its error code', async () => {
  const res = await render({ template: 'nope' }, ws.key.key, { 'x-correlation-id': 'refused-1' })
  assert.equal(res.status, 404)
  let run
  for (let i = 0; i < 40 && run === undefined; i++) {
    const [rows] = await server.context.db.query<RowDataPacket[]>('SELECT * FROM runs WHERE correlation_id = ?', ['refused-1'])
    run = rows[0]

    if (run === undefined) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.equal(run?.status, 'failed')
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks at runtime what the type claims
  assert.equal(run?.error_code, 'TEMPLATE_NOT_FOUND')
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks at runtime what the type claims
  assert.equal(run?.template_code, 'nope')
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks at runtime what the type claims
  assert.equal(run?.version, null)
})

test('validation: body errors are 400 VALIDATION_FAILED with errors by member', async () => {
  const missing = problemOf(await render({}), 400, 'VALIDATION_FAILED')
  assert.ok(Array.isArray(missing.errors.template))
  const bad = problemOf(await render({ template: 'invoice', format: 'docx', async: 'yes' }), 400, 'VALIDATION_FAILED')
  assert.ok(Array.isArray(bad.errors.format))
  assert.ok(Array.isArray(bad.errors.async))
  problemOf(await render({ template: 'invoice', fileName: '../etc/passwd' }), 400, 'VALIDATION_FAILED')
})

test('template errors: not found, version not found, not published, disabled', async () => {
  problemOf(await render({ template: 'nope' }), 404, 'TEMPLATE_NOT_FOUND')
  problemOf(await render({ template: 'invoice', version: 99, parameters: { invoiceId: 1 } }), 404, 'VERSION_NOT_FOUND')
  await server.context.db.execute("INSERT INTO templates (id, workspace_id, code, format) VALUES (UUID(), ?, 'draft', 'document')", [ws.workspace.id])
  problemOf(await render({ template: 'draft' }), 404, 'TEMPLATE_NOT_PUBLISHED')
  const label = await readExample('shipping-label')
  await server.context.services.templates.publish(ws.workspace.id, { ...label, code: 'old-label' }, {})
  await server.context.services.templates.setDisabled(ws.workspace.id, 'old-label', true)
  problemOf(await render({ template: 'old-label', parameters: { batchId: 7 } }), 409, 'TEMPLATE_DISABLED')
})

test('environment errors: unknown environment, test key asking for production', async () => {
  problemOf(await render({ template: 'invoice', environment: 'qa', parameters: { invoiceId: 1 } }), 404, 'ENVIRONMENT_NOT_FOUND')
  const testKey = await server.context.services.apiKeys.create({ workspaceId: ws.workspace.id, name: 'ci', mode: 'test', scopes: ['render'], expiresAt: null })
  problemOf(await render({ template: 'invoice', environment: 'production', parameters: { invoiceId: 1 } }, testKey.key), 403, 'ENVIRONMENT_NOT_ALLOWED')
  const dev = await render({ template: 'invoice', parameters: { invoiceId: 1 } }, testKey.key)
  assert.equal(dev.status, 200)
  assert.equal(dev.headers['x-environment'], 'development')
})

test('format mismatch and parameter errors come before any query', async () => {
  // On an environment whose data source cannot be reached, any query would answer 503: the
  // checks answer first, so no query ran.
  await server.context.services.environments.create({ workspaceId: ws.workspace.id, key: 'unreachable', dataSourceUrl: 'mysql://nobody:pw@127.0.0.1:1/none' })
  problemOf(await render({ template: 'invoice', environment: 'unreachable', format: 'zpl', parameters: { invoiceId: 1 } }), 422, 'FORMAT_MISMATCH')
  problemOf(await render({ template: 'invoice', environment: 'unreachable', parameters: { invoiceId: 'x' } }), 400, 'PARAMETER_INVALID')
  problemOf(await render({ template: 'invoice', environment: 'unreachable', parameters: { invoiceId: 1 } }), 503, 'DATA_SOURCE_UNAVAILABLE')
  problemOf(await render({ template: 'invoice', format: 'zpl', parameters: { invoiceId: 1 } }), 422, 'FORMAT_MISMATCH')
  const missing = problemOf(await render({ template: 'invoice' }), 400, 'PARAMETER_INVALID')
  assert.ok(Array.isArray(missing.errors.invoiceId))
  const wrongType = problemOf(await render({ template: 'invoice', parameters: { invoiceId: 'one' } }), 400, 'PARAMETER_INVALID')
  assert.ok(Array.isArray(wrongType.errors.invoiceId))
})

test('data and engine failures: DATASET_FAILED, RENDER_FAILED, DATA_SOURCE_UNAVAILABLE', async () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test edits the example's nested JSON in place
  const invoice = await readExample('invoice') as any
  const badSql = structuredClone(invoice)
  badSql.code = 'bad-sql'
  badSql.datasets[1].query = 'SELECT * FROM no_such_table WHERE id = :invoiceId'
  await server.context.services.templates.publish(ws.workspace.id, badSql, {})
  const ds = problemOf(await render({ template: 'bad-sql', parameters: { invoiceId: 1 } }), 422, 'DATASET_FAILED')
  assert.ok(!/no_such_table|SELECT/i.test(ds.detail), 'no SQL in the answer')

  const badExpr = structuredClone(invoice)
  badExpr.code = 'bad-expr'
  badExpr.document.body.unshift({ text: '{{ upper(header) }}' })
  await server.context.services.templates.publish(ws.workspace.id, badExpr, {})
  const rf = problemOf(await render({ template: 'bad-expr', parameters: { invoiceId: 1 } }), 422, 'RENDER_FAILED')
  assert.match(rf.detail, /upper\(header\)/)

  await server.context.services.environments.create({ workspaceId: ws.workspace.id, key: 'offline', dataSourceUrl: 'mysql://nobody:pw@127.0.0.1:1/none' })
  const res = await render({ template: 'invoice', environment: 'offline', parameters: { invoiceId: 1 } })
  problemOf(res, 503, 'DATA_SOURCE_UNAVAILABLE')
})

test('a publish is visible to the very next render', async () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test edits the example's nested JSON in place
  const invoice = await readExample('invoice') as any
  const v2 = structuredClone(invoice)
  v2.document.body.unshift({ text: 'Second edition' })
  const published = await server.context.services.templates.publish(ws.workspace.id, v2, { note: 'v2' })
  const res = await render({ template: 'invoice', parameters: { invoiceId: 1 } })
  assert.equal(res.headers['x-template-version'], String(published.version))
  assert.match((await pdfFacts(res.body)).text, /Second edition/)
  const old = await render({ template: 'invoice', version: 1, parameters: { invoiceId: 1 } })
  assert.equal(old.headers['x-template-version'], '1')
  assert.doesNotMatch((await pdfFacts(old.body)).text, /Second edition/)
})
