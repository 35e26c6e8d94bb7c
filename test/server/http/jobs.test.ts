// Async renders end to end: 202 + Location, polling, signed links (expiry, fresh links,
// tampering), job lookup errors.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { TestServer } from '../../helpers/server.js'
import { bearer, workspaceWithKey } from '../../helpers/fixtures.js'
import { renderFixture, renderWorkspace } from '../../helpers/render-data.js'
import { pdfFacts } from '../../helpers/poppler.js'
import { retryDelayMs } from '../../../server/jobs/retry.js'
import type { RowDataPacket } from 'mysql2'

let fx: Awaited<ReturnType<typeof renderFixture>>
let server: TestServer
let ws: Awaited<ReturnType<typeof renderFixture>>['ws']

before(async () => {
  fx = await renderFixture('jobs', { SVC_DOCUMENT_LINK_TTL: '1s', SVC_DOCUMENT_TTL: '1h', SVC_JOB_POLL: '50ms', SVC_WEBHOOKS_ALLOW_PRIVATE: 'true' })
  server = fx.server
  ws = fx.ws
})
after(async () => { await fx.close() })

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON under test: the assertions check its shape
async function poll (statusUrl: string, key = ws.key.key): Promise<any> {
  const path = new URL(statusUrl).pathname
  for (let i = 0; i < 200; i++) {
    const res = await server.fetch('GET', path, { headers: bearer(key) })
    assert.equal(res.status, 200)
    const job = res.json()
    if (job.status === 'succeeded' || job.status === 'failed') return job
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('job did not finish')
}

test('async: 202 with the job and Location, then polling to a downloadable document', async () => {
  const res = await server.fetch('POST', '/api/v1/render', { headers: { ...bearer(ws.key.key), 'x-correlation-id': 'async-1' }, body: { template: 'invoice', parameters: { invoiceId: 1 }, async: true, fileName: 'inv.pdf' } })
  assert.equal(res.status, 202)
  const job = res.json()
  assert.equal(res.headers.location, job.statusUrl)
  assert.equal(job.statusUrl, `${server.url}/api/v1/jobs/${job.jobId}`)
  assert.equal(job.status, 'queued')
  assert.equal(job.template, 'invoice')
  assert.equal(job.version, 1)
  assert.equal(job.environment, 'production')
  assert.equal(job.format, 'pdf')
  assert.equal(job.correlationId, 'async-1')
  assert.equal(job.error, null)
  assert.equal(job.documentUrl, null)

  const done = await poll(job.statusUrl)
  assert.equal(done.status, 'succeeded')
  assert.equal(done.attempts, 1)
  assert.ok(done.startedAt !== null && done.completedAt !== null)
  assert.ok(Date.parse(done.documentUrlExpiresAt) < Date.parse(done.documentExpiresAt), 'the link is shorter-lived than the document')
  const download = await server.fetch('GET', new URL(done.documentUrl).pathname)
  assert.equal(download.status, 200)
  assert.equal(download.headers['content-type'], 'application/pdf')
  assert.equal(download.headers['content-disposition'], 'attachment; filename="inv.pdf"')
  assert.equal(download.body.length, done.outputBytes)
  const pdf = await pdfFacts(download.body)
  assert.equal(pdf.pages, done.pageCount)
  assert.match(pdf.text, /INV-2026-0001/)
  // No endpoint subscribes in this workspace: the outbox gets no event for the job.
  const [events] = await server.context.db.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM events WHERE payload LIKE ?', [`%${done.jobId}%`])
  assert.equal(Number(events[0]?.n), 0)
})

test('links expire; reading the job again gives a fresh one; tampered tokens are refused', async () => {
  const res = await server.fetch('POST', '/api/v1/render', { headers: bearer(ws.key.key), body: { template: 'shipping-label', parameters: { batchId: 7 }, async: true } })
  const done = await poll(res.json().statusUrl)
  assert.equal(done.status, 'succeeded')
  assert.equal(done.labelCount, 3)
  const path = new URL(done.documentUrl).pathname
  const token = path.split('/').pop() as string
  const tampered = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA')
  const bad = await server.fetch('GET', `/api/v1/documents/${tampered}`)
  assert.equal(bad.status, 404)
  assert.equal(bad.json().errorCode, 'DOCUMENT_NOT_FOUND')
  assert.equal((await server.fetch('GET', '/api/v1/documents/garbage')).json().errorCode, 'DOCUMENT_NOT_FOUND')
  await new Promise((resolve) => setTimeout(resolve, 2100))
  const expired = await server.fetch('GET', path)
  assert.equal(expired.status, 404)
  assert.equal(expired.json().errorCode, 'DOCUMENT_NOT_FOUND')
  const again = (await server.fetch('GET', new URL(done.statusUrl).pathname, { headers: bearer(ws.key.key) })).json()
  assert.notEqual(again.documentUrl, done.documentUrl)
  const fresh = await server.fetch('GET', new URL(again.documentUrl).pathname)
  assert.equal(fresh.status, 200)
  assert.match(fresh.text(), /\^XA/)
})

test('a deleted document gives 404 DOCUMENT_NOT_FOUND', async () => {
  const res = await server.fetch('POST', '/api/v1/render', { headers: bearer(ws.key.key), body: { template: 'invoice', parameters: { invoiceId: 2 }, async: true } })
  const done = await poll(res.json().statusUrl)
  await server.context.db.execute('DELETE FROM documents WHERE job_id = ?', [done.jobId])
  const gone = await server.fetch('GET', new URL(done.documentUrl).pathname)
  assert.equal(gone.json().errorCode, 'DOCUMENT_NOT_FOUND')
})

test('an async render whose data source is missing is retried, then fails with the error code', async () => {
  await server.context.services.environments.create({ workspaceId: ws.workspace.id, key: 'nodata' })
  const res = await server.fetch('POST', '/api/v1/render', { headers: bearer(ws.key.key), body: { template: 'invoice', parameters: { invoiceId: 1 }, environment: 'nodata', async: true } })
  assert.equal(res.status, 202)
  const done = await poll(res.json().statusUrl)
  assert.equal(done.status, 'failed')
  assert.equal(done.error.code, 'DATA_SOURCE_UNAVAILABLE')
  assert.equal(done.attempts, server.config.jobs.maxAttempts, 'transient failures are retried up to the attempt limit')
  // Retries back off (1 s, 2 s …): the attempts are spaced, not burnt in milliseconds.
  let backoff = 0
  for (let n = 1; n < done.attempts; n++) backoff += retryDelayMs(n)
  assert.ok(Date.parse(done.completedAt) - Date.parse(done.startedAt) >= backoff, `attempts spaced by at least ${backoff} ms: ${done.startedAt} .. ${done.completedAt}`)
  assert.equal(done.documentUrl, null)
  const [runs] = await server.context.db.query<RowDataPacket[]>('SELECT status, error_code FROM runs WHERE job_id = ?', [done.jobId])
  assert.deepEqual(runs.map((r) => [r.status, r.error_code]), [['failed', 'DATA_SOURCE_UNAVAILABLE']])
})

test('a sync render with a subscribed endpoint writes its job as one attempt started with the render', async () => {
  // Its own workspace, so the subscription does not change the other tests' sync renders.
  const sub = await renderWorkspace(server.context, fx.dataUrl)
  // Nothing listens there: the delivery fails, which this test does not look at.
  await server.context.services.webhooks.create({ workspaceId: sub.workspace.id, url: 'https://127.0.0.1:9/hook', events: ['document.generated'] })
  const res = await server.fetch('POST', '/api/v1/render', { headers: bearer(sub.key.key), body: { template: 'invoice', parameters: { invoiceId: 1 } } })
  assert.equal(res.status, 200)
  const [runs] = await server.context.db.query<RowDataPacket[]>('SELECT job_id, started_at, completed_at FROM runs WHERE id = ?', [res.headers['x-run-id']])
  assert.equal(runs.length, 1)
  assert.match(String(runs[0]?.job_id), /^[0-9a-f-]{36}$/)
  const job = (await server.fetch('GET', `/api/v1/jobs/${runs[0]?.job_id as string}`, { headers: bearer(sub.key.key) })).json()
  assert.equal(job.status, 'succeeded')
  assert.equal(job.attempts, 1)
  assert.equal(job.startedAt, (runs[0]?.started_at as Date).toISOString(), 'started when the render started')
  assert.ok(Date.parse(job.completedAt) >= Date.parse(job.startedAt))
})

test('job lookup: unknown, malformed and other-workspace ids are 404 JOB_NOT_FOUND', async () => {
  const unknown = await server.fetch('GET', '/api/v1/jobs/00000000-0000-4000-8000-000000000000', { headers: bearer(ws.key.key) })
  assert.equal(unknown.status, 404)
  assert.equal(unknown.json().errorCode, 'JOB_NOT_FOUND')
  assert.equal((await server.fetch('GET', '/api/v1/jobs/not-a-uuid', { headers: bearer(ws.key.key) })).json().errorCode, 'JOB_NOT_FOUND')
  const res = await server.fetch('POST', '/api/v1/render', { headers: bearer(ws.key.key), body: { template: 'invoice', parameters: { invoiceId: 1 }, async: true } })
  const other = await workspaceWithKey(server.context)
  const foreign = await server.fetch('GET', new URL(res.json().statusUrl).pathname, { headers: bearer(other.key.key) })
  assert.equal(foreign.status, 404)
  assert.equal(foreign.json().errorCode, 'JOB_NOT_FOUND')
  const noScope = await workspaceWithKey(server.context, { scopes: ['templates.read'] })
  assert.equal((await server.fetch('GET', new URL(res.json().statusUrl).pathname, { headers: bearer(noScope.key.key) })).json().errorCode, 'SCOPE_MISSING')
})
