// Rows fed into the worker while they are read (issue 15), end to end over HTTPS and a real
// MariaDB data source: the fed render is byte-identical to the buffered one, the row limit
// still stops a fed read with the same problem, and the thread is given back.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { TestServer } from '../../helpers/server.js'
import { startServer } from '../../helpers/server.js'
import { bearer } from '../../helpers/fixtures.js'
import { renderFixture } from '../../helpers/render-data.js'
import { pdfFacts } from '../../helpers/poppler.js'

let fx: Awaited<ReturnType<typeof renderFixture>>
let fed: TestServer
let buffered: TestServer
let limited: TestServer
const SALES = { template: 'sales-report', parameters: { from: '2026-01-01', to: '2026-12-31' } }

before(async () => {
  // Three servers on one service database and one data source: only their settings differ
  // (jobs run on the first alone).
  // One master key, so each can open the environment's data-source password.
  const SVC_MASTER_KEY = randomBytes(32).toString('hex')
  fx = await renderFixture('rowfeed', { SVC_DATASET_FEED_ABOVE: '100', SVC_MASTER_KEY }, { salesRows: 3000 })
  fed = fx.server
  buffered = await startServer(fx.database.url, { SVC_DATASET_FEED_ABOVE: '1000000', SVC_MASTER_KEY, SVC_JOBS: 'false' })
  limited = await startServer(fx.database.url, { SVC_DATASET_FEED_ABOVE: '100', SVC_RENDER_MAX_ROWS: '1000', SVC_MASTER_KEY, SVC_JOBS: 'false' })
})
after(async () => {
  await buffered.close()
  await limited.close()
  await fx.close()
})

const render = (server: TestServer, body: unknown) =>
  server.fetch('POST', '/api/v1/render', { headers: bearer(fx.ws.key.key), body })

test('rows fed while read render the same PDF as rows read whole', async () => {
  const fedBefore = fed.server.renderStats().fed
  const a = await render(fed, SALES)
  const b = await render(buffered, SALES)
  assert.equal(a.status, 200, a.text())
  assert.equal(b.status, 200)
  assert.equal(fed.server.renderStats().fed, fedBefore + 1, 'the 3000 rows went through the feed')
  assert.equal(buffered.server.renderStats().fed, 0, 'read whole below its threshold')
  assert.ok(a.body.equals(b.body), 'byte-identical documents')
  const pdf = await pdfFacts(a.body)
  assert.equal(String(pdf.pages), a.headers['x-page-count'])
  assert.match(pdf.text, /West/)
})

test('a small dataset is not fed', async () => {
  const before = fed.server.renderStats().fed
  const res = await render(fed, { template: 'invoice', parameters: { invoiceId: 1 } })
  assert.equal(res.status, 200)
  assert.equal(fed.server.renderStats().fed, before)
})

test('maxRows stops a fed read with the problem of any read, and the thread is given back', async () => {
  const res = await render(limited, SALES)
  assert.equal(res.status, 422, res.text())
  assert.equal(res.json().errorCode, 'RENDER_LIMIT_EXCEEDED')
  assert.equal(res.json().detail, 'The datasets return more than 1000 rows in all (row limit 1000)')
  const stats = limited.server.renderStats()
  assert.equal(stats.fed, 1, 'the render had started on the feed')
  assert.equal(stats.running, 0)
  // The pool is healthy afterwards: the next render of the same server succeeds.
  const small = await render(limited, { template: 'invoice', parameters: { invoiceId: 1 } })
  assert.equal(small.status, 200)
})

test('an async job with fed rows stores the same document', async () => {
  const before = fed.server.renderStats().fed
  const sync = await render(fed, SALES)
  const accepted = await render(fed, { ...SALES, async: true })
  assert.equal(accepted.status, 202)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON under test
  let job: any
  for (let i = 0; i < 600; i++) {
    job = (await fed.fetch('GET', new URL(accepted.json().statusUrl as string).pathname, { headers: bearer(fx.ws.key.key) })).json()
    if (job.status === 'succeeded' || job.status === 'failed') break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.equal(job.status, 'succeeded', JSON.stringify(job.error))
  assert.equal(fed.server.renderStats().fed, before + 2, 'both renders were fed')
  const download = await fed.fetch('GET', new URL(job.documentUrl as string).pathname)
  assert.ok(download.body.equals(sync.body))
})
