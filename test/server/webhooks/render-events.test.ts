// document.generated / document.failed from real renders over HTTPS, delivered to a real
// HTTPS receiver, with a documentUrl that downloads (sync and async).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { TestServer } from '../../helpers/server.js'
import { bearer } from '../../helpers/fixtures.js'
import { renderFixture, renderWorkspace, readExample } from '../../helpers/render-data.js'
import { pdfFacts } from '../../helpers/poppler.js'
import { makeCert, startReceiver, expectedSignature, parseSignature, waitFor } from './helpers.js'
import type { Cert, Receiver } from './helpers.js'
import type { RowDataPacket } from 'mysql2'

let fx: Awaited<ReturnType<typeof renderFixture>>
let server: TestServer
let cert: Cert
let receiver: Receiver
let secret: string
let ws: Awaited<ReturnType<typeof renderFixture>>['ws']

before(async () => {
  cert = await makeCert()
  receiver = await startReceiver(cert)
  fx = await renderFixture('whrender', { SVC_WEBHOOKS_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_CA_FILE: cert.certFile, SVC_WEBHOOK_POLL: '100ms', SVC_JOB_POLL: '50ms' })
  server = fx.server
  ws = fx.ws
  const endpoint = await server.context.services.webhooks.create({ workspaceId: ws.workspace.id, url: receiver.url, events: ['document.generated', 'document.failed'] })
  secret = endpoint.secret
})
after(async () => {
  await fx.close()
  await receiver.close()
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- items of a parsed JSON body under test
function eventFor (type: string, predicate: (data: any) => boolean) {
  return waitFor(`${type} event`, () => receiver.received.find((r) => r.json?.type === type && predicate(r.json.data)))
}

function assertSigned (r: { headers: Record<string, unknown>, raw: Buffer }): void {
  const { t, v1 } = parseSignature(r.headers['svc-signature'] as string)
  assert.equal(v1, expectedSignature(secret, t, r.raw))
}

test('a sync render emits document.generated with a jobId and a documentUrl that downloads', async () => {
  const res = await server.fetch('POST', '/api/v1/render', { headers: { ...bearer(ws.key.key), 'x-correlation-id': 'sync-event' }, body: { template: 'invoice', parameters: { invoiceId: 1 } } })
  assert.equal(res.status, 200)
  const r = await eventFor('document.generated', (d) => d.correlationId === 'sync-event')
  assertSigned(r)
  assert.equal(r.headers['svc-event'], 'document.generated')
  assert.equal(r.headers['svc-event-id'], r.json.id)
  const data = r.json.data
  assert.equal(r.json.workspaceId, ws.workspace.id)
  assert.equal(data.template, 'invoice')
  assert.equal(data.version, 1)
  assert.equal(data.environment, 'production')
  assert.equal(data.format, 'pdf')
  assert.equal(data.runId, res.headers['x-run-id'])
  assert.equal(data.pageCount, Number(res.headers['x-page-count']))
  assert.equal(data.outputBytes, res.body.length)
  assert.equal(data.fileName, 'invoice-v1.pdf')
  assert.deepEqual(data.apiKey, { id: ws.key.id, prefix: ws.key.prefix, name: 'render key' })
  assert.match(data.jobId, /^[0-9a-f-]{36}$/)
  const download = await server.fetch('GET', new URL(data.documentUrl).pathname)
  assert.equal(download.status, 200)
  assert.deepEqual(download.body, res.body)
  const job = (await server.fetch('GET', `/api/v1/jobs/${data.jobId}`, { headers: bearer(ws.key.key) })).json()
  assert.equal(job.status, 'succeeded')
  assert.equal(job.correlationId, 'sync-event')
})

test('an async render emits document.generated whose link serves the PDF', async () => {
  const res = await server.fetch('POST', '/api/v1/render', { headers: bearer(ws.key.key), body: { template: 'invoice', parameters: { invoiceId: 2 }, async: true } })
  const jobId = res.json().jobId
  const r = await eventFor('document.generated', (d) => d.jobId === jobId)
  assertSigned(r)
  const pdf = await pdfFacts((await server.fetch('GET', new URL(r.json.data.documentUrl).pathname)).body)
  assert.match(pdf.text, /INV-2026-0002/)
  assert.ok(Date.parse(r.json.data.documentExpiresAt) > Date.now())
})

test('a failed render emits document.failed with the error code', async () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test edits the example's nested JSON in place
  const invoice = await readExample('invoice') as any
  invoice.code = 'broken-invoice'
  invoice.datasets[1].query = 'SELECT * FROM missing_table WHERE id = :invoiceId'
  await server.context.services.templates.publish(ws.workspace.id, invoice, {})
  const res = await server.fetch('POST', '/api/v1/render', { headers: { ...bearer(ws.key.key), 'x-correlation-id': 'fail-event' }, body: { template: 'broken-invoice', parameters: { invoiceId: 1 } } })
  assert.equal(res.status, 422)
  const r = await eventFor('document.failed', (d) => d.correlationId === 'fail-event')
  assertSigned(r)
  assert.equal(r.json.data.errorCode, 'DATASET_FAILED')
  assert.equal(r.json.data.template, 'broken-invoice')
  assert.equal(typeof r.json.data.message, 'string')
  assert.match(r.json.data.runId, /^[0-9a-f-]{36}$/)
  assert.ok(!/missing_table/.test(r.raw.toString()), 'no SQL in the event')
})

test('without a subscriber, a sync render stores no document', async () => {
  const other = await renderWorkspace(server.context, fx.dataUrl)
  const [before] = await server.context.db.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM documents')
  const res = await server.fetch('POST', '/api/v1/render', { headers: bearer(other.key.key), body: { template: 'invoice', parameters: { invoiceId: 1 } } })
  assert.equal(res.status, 200)
  const [afterRows] = await server.context.db.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM documents')
  assert.equal(Number(afterRows[0]?.n), Number(before[0]?.n))
})
