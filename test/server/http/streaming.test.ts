// Streamed output end to end (issue 15): past SVC_RENDER_STREAM_ABOVE a sync answer is chunked
// with X-Page-Count ahead of the bytes, a job writes its document into the store chunk by chunk
// (nothing visible until it commits), and a client that stops reading holds nothing for good.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { request } from 'undici'
import type { RowDataPacket } from 'mysql2'
import { createDb } from '../../../server/store/db.js'
import type { TestServer } from '../../helpers/server.js'
import { bearer } from '../../helpers/fixtures.js'
import { renderFixture, renderWorkspace } from '../../helpers/render-data.js'
import { pdfFacts } from '../../helpers/poppler.js'
import { serverUrl } from '../../helpers/db.js'
import { rawConnect } from '../../helpers/raw-http.js'

let fx: Awaited<ReturnType<typeof renderFixture>>
let server: TestServer
const STREAM_ABOVE = 64 * 1024
const SALES = { template: 'sales-report', parameters: { from: '2026-01-01', to: '2026-12-31' } }
// ~7 MB of ZPL: more than one 4 MiB document chunk.
const LABELS = { template: 'shipping-label', parameters: { batchId: 9 } }
// ~18 MB: more than the loopback socket buffers hold, for the client that stops reading.
const MANY_LABELS = { template: 'shipping-label', parameters: { batchId: 10 } }

async function addParcels (dataUrl: string, batchId: number, count: number): Promise<void> {
  const data = createDb(`${serverUrl()}/${new URL(dataUrl).pathname.slice(1)}`, { connectionLimit: 1 })
  for (let start = 0; start < count; start += 5000) {
    const rows = Array.from({ length: Math.min(5000, count - start) }, (_, i) =>
      [batchId, `TRK${String(start + i).padStart(8, '0')}`, `Recipient ${start + i}`, `${i} Long Street Name`, 'Springfield', '12345', 'US', 1.5, 1])
    await data.query('INSERT INTO parcels (batch_id, tracking_no, recipient_name, street, city, postcode, country, weight_kg, qty) VALUES ?', [rows])
  }
  await data.end()
}

before(async () => {
  fx = await renderFixture('stream', {
    SVC_RENDER_STREAM_ABOVE: String(STREAM_ABOVE),
    SVC_RENDER_MAX_LABELS: '100000',
    SVC_RENDER_TIMEOUT: '10s',
    SVC_JOB_MAX_ATTEMPTS: '6',
    SVC_WEBHOOKS_ALLOW_PRIVATE: 'true'
  }, { salesRows: 3000 })
  server = fx.server
  await addParcels(fx.dataUrl, 9, 12_000)
  await addParcels(fx.dataUrl, 10, 32_000)
})
after(async () => { await fx.close() })

const render = (body: unknown, key = fx.ws.key.key) => server.fetch('POST', '/api/v1/render', { headers: bearer(key), body })

/** Waits for a condition checked against the database or the pool (bounded in attempts, not asserted on time). */
async function until<T> (probe: () => Promise<T | undefined> | T | undefined, what: string,
  detail: () => unknown = () => server.server.renderStats()): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = await probe()
    if (v !== undefined) return v
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`never happened: ${what} (${JSON.stringify(detail())})`)
}

const runRow = (id: string) => until(async () => {
  const [rows] = await server.context.db.query<RowDataPacket[]>('SELECT * FROM runs WHERE id = ?', [id])
  return rows[0]
}, `run ${id} recorded`)

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON under test: the assertions check its shape
const finished = (statusUrl: string, key = fx.ws.key.key): Promise<any> => until(async () => {
  const job = (await server.fetch('GET', new URL(statusUrl).pathname, { headers: bearer(key) })).json()
  return job.status === 'succeeded' || job.status === 'failed' ? job : undefined
}, 'job finished')

test('a big sync render arrives chunked, X-Page-Count ahead of the bytes = the pages poppler counts', async () => {
  const res = await render(SALES)
  assert.equal(res.status, 200)
  assert.equal(res.headers['transfer-encoding'], 'chunked')
  assert.equal(res.headers['content-length'], undefined)
  assert.ok(res.body.length > STREAM_ABOVE, `${res.body.length} bytes`)
  const pdf = await pdfFacts(res.body)
  assert.ok(pdf.pages > 1)
  assert.equal(res.headers['x-page-count'], String(pdf.pages))
  assert.match(pdf.text, /North/)
  const run = await runRow(String(res.headers['x-run-id']))
  assert.equal(run.status, 'succeeded')
  assert.equal(run.output_bytes, res.body.length)
  assert.equal(run.page_count, pdf.pages)
})

test('a small sync render still answers with Content-Length', async () => {
  const res = await render({ template: 'invoice', parameters: { invoiceId: 1 } })
  assert.equal(res.status, 200)
  assert.equal(Number(res.headers['content-length']), res.body.length)
  assert.equal(res.headers['transfer-encoding'], undefined)
  assert.ok(res.body.length <= STREAM_ABOVE)
  assert.equal(String((await pdfFacts(res.body)).pages), res.headers['x-page-count'])
})

test('a big async document is written in chunks and downloads byte-identical to the sync render', async () => {
  const sync = await render(LABELS)
  assert.equal(sync.status, 200)
  assert.equal(sync.headers['transfer-encoding'], 'chunked')
  assert.equal(sync.headers['x-label-count'], '12000')
  const accepted = await render({ ...LABELS, async: true })
  assert.equal(accepted.status, 202)
  const done = await finished(accepted.json().statusUrl)
  assert.equal(done.status, 'succeeded', JSON.stringify(done.error))
  assert.equal(done.outputBytes, sync.body.length)
  const [docs] = await server.context.db.query<RowDataPacket[]>(
    'SELECT d.pending, d.bytes, (SELECT COUNT(*) FROM document_chunks c WHERE c.document_id = d.id) AS chunks FROM documents d WHERE job_id = ?',
    [done.jobId])
  assert.equal(docs.length, 1)
  assert.equal(docs[0]?.pending, 0)
  assert.equal(docs[0].bytes, sync.body.length)
  assert.ok(Number(docs[0].chunks) >= 1, 'stored past its first chunk')
  const download = await server.fetch('GET', new URL(done.documentUrl).pathname)
  assert.equal(download.status, 200)
  assert.ok(download.body.equals(sync.body), 'byte-identical to the sync render')
})

test('a document write that fails leaves no document; the retry writes it whole', async () => {
  const sync = await render(LABELS)
  const db = server.context.db
  // The database refuses the job's second chunk (a real write failure, mid-document).
  await db.query(`CREATE TRIGGER refuse_chunks BEFORE INSERT ON document_chunks FOR EACH ROW
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by the test'`)
  let dropped = false
  try {
    const accepted = await render({ ...LABELS, async: true })
    const jobId = accepted.json().jobId as string
    // The failed attempt is handed back to the queue (a write failure is transient) ...
    await until(async () => {
      const [rows] = await db.query<RowDataPacket[]>('SELECT status, attempts FROM render_jobs WHERE id = ?', [jobId])
      return rows[0]?.attempts >= 1 && rows[0]?.status === 'queued' ? true : undefined
    }, 'first attempt released')
    // ... and left no document behind, visible or pending.
    const [left] = await db.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM documents WHERE job_id = ?', [jobId])
    assert.equal(Number(left[0]?.n), 0)
    await db.query('DROP TRIGGER refuse_chunks')
    dropped = true
    const done = await finished(accepted.json().statusUrl)
    assert.equal(done.status, 'succeeded', JSON.stringify(done.error))
    assert.ok(done.attempts >= 2)
    const download = await server.fetch('GET', new URL(done.documentUrl).pathname)
    assert.ok(download.body.equals(sync.body), 'the retry wrote the whole document')
  } finally {
    if (!dropped) await db.query('DROP TRIGGER IF EXISTS refuse_chunks')
  }
})

test('a client that stops reading holds the render only until its time limit; one that leaves frees it', async (t) => {
  const stats = (): ReturnType<typeof server.server.renderStats> => server.server.renderStats()
  const before = stats()
  // Reads the headers, then nothing: the socket is paused, so the kernel's buffers (a few MB)
  // fill and the render waits on them. Not an HTTP client library: undici may go on reading
  // into its own memory, and then the whole answer arrives (seen under load).
  const conn = await rawConnect(server.url, server.ca)
  t.after(() => { conn.close() })
  const body = JSON.stringify(MANY_LABELS)
  conn.write(`POST /api/v1/render HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\n` +
    `Authorization: Bearer ${fx.ws.key.key}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
  const stalled = await conn.head()
  conn.socket.pause()
  assert.equal(stalled.status, 200)
  assert.equal(stalled.headers['x-label-count'], '32000')
  await until(() => stats().timeouts > before.timeouts ? true : undefined, 'the stalled render timed out')
  await until(() => stats().running === 0 ? true : undefined, 'its thread released')
  // The answer was cut: the connection ends without the chunked body's last chunk, and the run is failed.
  conn.socket.resume()
  await conn.ended
  assert.ok(conn.received().length < 18_000_000, `${conn.received().length} bytes arrived`)
  assert.ok(!conn.received().toString('latin1').endsWith('\r\n0\r\n\r\n'), 'a complete chunked transfer')
  const run = await runRow(String(stalled.headers['x-run-id']))
  assert.equal(run.status, 'failed')
  assert.equal(run.error_code, 'RENDER_LIMIT_EXCEEDED')

  // A client that goes away after the headers: the render runs out without it, nothing waits.
  const mid = stats()
  const gone = await request(`${server.url}/api/v1/render`, {
    method: 'POST', dispatcher: server.agent, headers: { ...bearer(fx.ws.key.key), 'content-type': 'application/json' }, body: JSON.stringify(MANY_LABELS)
  })
  assert.equal(gone.statusCode, 200)
  gone.body.destroy()
  await until(() => stats().completed > mid.completed && stats().running === 0 ? true : undefined, 'render ended')
  assert.equal(stats().timeouts, mid.timeouts, 'ended by itself, not by the time limit')
})

test('a sync render with a subscriber streams its document into the store for the event link', async () => {
  const sub = await renderWorkspace(server.context, fx.dataUrl)
  await server.context.services.webhooks.create({ workspaceId: sub.workspace.id, url: 'https://127.0.0.1:9/hook', events: ['document.generated'] })
  const res = await render(SALES, sub.key.key)
  assert.equal(res.status, 200)
  assert.equal(res.headers['transfer-encoding'], 'chunked')
  const run = await runRow(String(res.headers['x-run-id']))
  const job = await finished(`${server.url}/api/v1/jobs/${String(run.job_id)}`, sub.key.key)
  assert.equal(job.status, 'succeeded')
  assert.equal(job.outputBytes, res.body.length)
  const [events] = await server.context.db.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM events WHERE payload LIKE ?', [`%${String(run.job_id)}%`])
  assert.equal(Number(events[0]?.n), 1)
  const download = await server.fetch('GET', new URL(job.documentUrl).pathname)
  assert.ok(download.body.equals(res.body), 'the stored document is the answer')
})
