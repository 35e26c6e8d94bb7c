// Limits that agree end to end (issue 12, item 9): a ~40 MB async label document is stored
// (in chunks, past the database's 16 MiB max_allowed_packet) and downloads byte-identical to
// the same sync render; over SVC_RENDER_MAX_BYTES a job fails once, not by retrying. Its 70,000
// rows are ~15 MB of dataset bytes, so the dataset byte budget is raised for this fixture.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createDb } from '../../../server/store/db.js'
import type { TestServer } from '../../helpers/server.js'
import { bearer } from '../../helpers/fixtures.js'
import { renderFixture } from '../../helpers/render-data.js'
import { serverUrl } from '../../helpers/db.js'

// A fixture's dataUrl is the data source's SELECT-only user: test rows go in as the suite's administrator.
const asAdministrator = (dataUrl: string) =>
  createDb(`${serverUrl()}/${new URL(dataUrl).pathname.slice(1)}`, { connectionLimit: 1 })

let fx: Awaited<ReturnType<typeof renderFixture>>
let server: TestServer
const PARCELS = 70_000

before(async () => {
  fx = await renderFixture('bigdoc', { SVC_RENDER_MAX_LABELS: '100000', SVC_RENDER_TIMEOUT: '2m', SVC_DATASET_MAX_BYTES: String(64 * 1024 * 1024) })
  server = fx.server
  const data = asAdministrator(fx.dataUrl)
  for (let start = 0; start < PARCELS; start += 5000) {
    const rows = Array.from({ length: 5000 }, (_, i) => [9, `TRK${String(start + i).padStart(8, '0')}`, `Recipient ${start + i}`, `${i} Long Street Name`, 'Springfield', '12345', 'US', 1.5, 1])
    await data.query('INSERT INTO parcels (batch_id, tracking_no, recipient_name, street, city, postcode, country, weight_kg, qty) VALUES ?', [rows])
  }
  await data.end()
})
after(async () => { await fx.close() })

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON under test: the assertions check its shape
async function poll (statusUrl: string): Promise<any> {
  for (let i = 0; i < 1200; i++) {
    const job = (await server.fetch('GET', new URL(statusUrl).pathname, { headers: bearer(fx.ws.key.key) })).json()
    if (job.status === 'succeeded' || job.status === 'failed') return job
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('job did not finish')
}

test('a 40 MB async document is stored and downloads byte-identical to the sync render', async () => {
  const body = { template: 'shipping-label', parameters: { batchId: 9 }, format: 'zpl' }
  const sync = await server.fetch('POST', '/api/v1/render', { headers: bearer(fx.ws.key.key), body })
  assert.equal(sync.status, 200)
  assert.equal(sync.headers['x-label-count'], String(PARCELS))
  assert.ok(sync.body.length > 40_000_000, `${sync.body.length} bytes`)

  const accepted = await server.fetch('POST', '/api/v1/render', { headers: bearer(fx.ws.key.key), body: { ...body, async: true } })
  assert.equal(accepted.status, 202)
  const done = await poll(accepted.json().statusUrl)
  assert.equal(done.status, 'succeeded', JSON.stringify(done.error))
  assert.equal(done.attempts, 1)
  assert.equal(done.outputBytes, sync.body.length)
  const download = await server.fetch('GET', new URL(done.documentUrl).pathname)
  assert.equal(download.status, 200)
  assert.equal(Number(download.headers['content-length']), sync.body.length)
  assert.ok(download.body.equals(sync.body), 'byte-identical to the sync render')
})

test('over SVC_RENDER_MAX_BYTES an async render fails once with RENDER_LIMIT_EXCEEDED', async () => {
  const small = await renderFixture('bigdoc_limit', { SVC_RENDER_MAX_BYTES: '100000' })
  try {
    const data = asAdministrator(small.dataUrl)
    const rows = Array.from({ length: 400 }, (_, i) => [9, `TRK${i}`, `Recipient ${i}`, 'Street', 'City', '1', 'US', 1, 1])
    await data.query('INSERT INTO parcels (batch_id, tracking_no, recipient_name, street, city, postcode, country, weight_kg, qty) VALUES ?', [rows])
    await data.end()
    const res = await small.server.fetch('POST', '/api/v1/render', { headers: bearer(small.ws.key.key), body: { template: 'shipping-label', parameters: { batchId: 9 }, async: true } })
    assert.equal(res.status, 202)
    // Parsed JSON under test: the assertions check its shape.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let job: any
    for (let i = 0; i < 600; i++) {
      job = (await small.server.fetch('GET', new URL(res.json().statusUrl).pathname, { headers: bearer(small.ws.key.key) })).json()
      if (job.status === 'succeeded' || job.status === 'failed') break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.equal(job.status, 'failed')
    assert.equal(job.error.code, 'RENDER_LIMIT_EXCEEDED')
    assert.equal(job.attempts, 1, 'not retried')
  } finally {
    await small.close()
  }
})
