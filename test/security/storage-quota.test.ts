// Tenant isolation, the disk (issue 30, finding 5): stored document bytes per workspace are
// bounded. A workspace filling its quota gets its next render failed with RENDER_LIMIT_EXCEEDED
// (its document is refused piece by piece while written, never stored past the quota), then
// 429 RATE_LIMITED with Retry-After at submission; another workspace is unaffected; the sweep
// gives the space back when the documents expire. The counter row always equals the bytes the
// documents really take. Real MariaDB, real HTTPS, the server's own job loop and sweep.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import type { RowDataPacket } from 'mysql2/promise'
import { renderFixture, renderWorkspace } from '../helpers/render-data.js'
import { bearer } from '../helpers/fixtures.js'
import { problemOf } from '../helpers/problems.js'

const QUOTA = 1024 * 1024
const REPORT = { template: 'sales-report', parameters: { from: '2026-01-01', to: '2026-12-31' } }
const INVOICE = { template: 'invoice', parameters: { invoiceId: 1 } }
let fx: Awaited<ReturnType<typeof renderFixture>>

before(async () => {
  fx = await renderFixture('sec_quota', {
    SVC_RATE_LIMIT: '1000000',
    SVC_JOB_POLL: '50ms',
    SVC_DOCUMENT_SWEEP: '200ms',
    // Workspace C's webhook subscriber (a loopback URL; nothing is delivered) wants its sync documents stored.
    SVC_WEBHOOKS_ALLOW_PRIVATE: 'true',
    SVC_WEBHOOKS: 'false',
    SVC_DOCUMENT_WORKSPACE_QUOTA: String(QUOTA),
    // Reports (250 rows, tagged: ~170 KB) are streamed into the store piece by piece; invoices are held whole.
    SVC_RENDER_STREAM_ABOVE: String(64 * 1024)
  }, { salesRows: 250 })
})
// eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
after(async () => { await fx?.close() })

const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

async function submit (key: string, body: Record<string, unknown>) {
  return await fx.server.fetch('POST', '/api/v1/render', { headers: bearer(key), body: { ...body, async: true } })
}

/** Waits for the job to finish; answers its view. */
interface JobSeen { status: string, error: { code: string } | null, documentUrl: string | null }
async function finished (key: string, id: string): Promise<JobSeen> {
  for (let i = 0; i < 1200; i++) {
    const res = await fx.server.fetch('GET', `/api/v1/jobs/${id}`, { headers: bearer(key) })
    const job = res.json()
    if (job.status === 'succeeded' || job.status === 'failed') return job
    await sleep(25)
  }
  assert.fail(`job ${id} did not finish`)
}

/** The counter row and what the workspace's documents (rows and chunks, pending or not) really hold. */
async function usage (workspaceId: string): Promise<{ counted: number, stored: number }> {
  const [rows] = await fx.server.context.db.query<RowDataPacket[]>(`SELECT
      (SELECT COALESCE(SUM(bytes), 0) FROM document_usage WHERE workspace_id = ?) AS counted,
      (SELECT COALESCE(SUM(LENGTH(d.content)), 0) + COALESCE((SELECT SUM(LENGTH(c.content)) FROM document_chunks c
        JOIN documents d2 ON d2.id = c.document_id WHERE d2.workspace_id = ?), 0) FROM documents d WHERE d.workspace_id = ?) AS stored`,
  [workspaceId, workspaceId, workspaceId])
  return { counted: Number(rows[0]?.counted), stored: Number(rows[0]?.stored) }
}

test('a workspace at its storage quota: its render fails with RENDER_LIMIT_EXCEEDED, then 429; others go on; expiry gives the space back', async () => {
  const a = { key: fx.ws.key.key, id: fx.ws.workspace.id }
  const bw = await renderWorkspace(fx.server.context, fx.dataUrl)
  const b = { key: bw.key.key, id: bw.workspace.id }

  // 1. Reports until one no longer fits: it fails while its document is written.
  let refused: JobSeen | undefined
  let stored = 0
  for (let i = 0; i < 40 && refused === undefined; i++) {
    const res = await submit(a.key, REPORT)
    assert.equal(res.status, 202, res.text())
    const job = await finished(a.key, res.json().jobId)
    if (job.status === 'failed') refused = job
    else stored++
    const u = await usage(a.id)
    assert.equal(u.counted, u.stored, 'the counter equals the bytes stored')
    assert.ok(u.stored <= QUOTA, `stored ${u.stored} within the quota ${QUOTA}`)
  }
  assert.ok(stored >= 2, `several reports fitted before the quota (${stored})`)
  assert.equal(refused?.error?.code, 'RENDER_LIMIT_EXCEEDED', JSON.stringify(refused))

  // 2. Small documents (held whole) fill the rest; then submissions are refused with 429.
  let limited: Awaited<ReturnType<typeof submit>> | undefined
  for (let i = 0; i < 400 && limited === undefined; i++) {
    const res = await submit(a.key, INVOICE)
    if (res.status === 429) { limited = res; break }
    assert.equal(res.status, 202, res.text())
    await finished(a.key, res.json().jobId)
  }
  assert.ok(limited !== undefined, 'a workspace over its quota is refused at submission')
  const p = problemOf(limited, 429, 'RATE_LIMITED')
  assert.match(p.detail, /storage quota/)
  // The documents expire in SVC_DOCUMENT_TTL (24 h): Retry-After says so, not a second.
  assert.ok(Number(limited.headers['retry-after']) > 3600, `Retry-After ${String(limited.headers['retry-after'])}`)
  const full = await usage(a.id)
  assert.equal(full.counted, full.stored)
  assert.ok(full.counted >= QUOTA)

  // 3. Another workspace is not affected.
  const other = await submit(b.key, REPORT)
  assert.equal(other.status, 202, other.text())
  const otherJob = await finished(b.key, other.json().jobId)
  assert.equal(otherJob.status, 'succeeded', JSON.stringify(otherJob))
  assert.notEqual(otherJob.documentUrl, null)

  // 4. A's documents expire: the server's own sweep deletes them and the counter follows.
  await fx.server.context.db.execute('UPDATE documents SET expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND WHERE workspace_id = ?', [a.id])
  let after = full
  for (let i = 0; i < 400 && after.stored > 0; i++) { await sleep(50); after = await usage(a.id) }
  assert.deepEqual(after, { counted: 0, stored: 0 }, 'space came back, and the counter with it')
  // The submission check reads the usage at most once a second per workspace.
  let again = await submit(a.key, REPORT)
  for (let i = 0; i < 100 && again.status === 429; i++) {
    await sleep(100)
    again = await submit(a.key, REPORT)
  }
  assert.equal(again.status, 202, again.text())
  assert.equal((await finished(a.key, again.json().jobId)).status, 'succeeded')
  const b2 = await usage(b.id)
  assert.equal(b2.counted, b2.stored, 'the other workspace\'s counter is right too')
  assert.ok(b2.stored > 0)
})

test('sync renders whose documents are stored for a webhook subscriber: the one that would pass the quota is a 422, nothing stored past it', async () => {
  const c = await renderWorkspace(fx.server.context, fx.dataUrl)
  await fx.server.context.services.webhooks.create({ workspaceId: c.workspace.id, url: 'https://127.0.0.1:9/hook', events: ['document.generated'] })
  // C's earlier documents: 80 KB short of its quota (stored through the repository, so counted),
  // room for a few invoices (a Factur-X invoice, fonts and XML embedded, is ~25 KB).
  await fx.server.context.repos.documents.insert(fx.server.context.db, {
    id: randomUUID(),
    workspaceId: c.workspace.id,
    jobId: null,
    contentType: 'application/pdf',
    fileName: 'old.pdf',
    content: Buffer.alloc(QUOTA - 80_000),
    expiresAt: new Date(Date.now() + 3_600_000)
  })
  let refused: Awaited<ReturnType<typeof submit>> | undefined
  let stored = 0
  for (let i = 0; i < 200 && refused === undefined; i++) {
    const res = await fx.server.fetch('POST', '/api/v1/render', { headers: bearer(c.key.key), body: INVOICE })
    if (res.status === 200) stored++
    else refused = res
  }
  assert.ok(refused !== undefined, 'a sync render is refused once its stored copy would pass the quota')
  problemOf(refused, 422, 'RENDER_LIMIT_EXCEEDED')
  assert.ok(stored >= 1, `renders were stored until the quota: ${stored}`)
  const u = await usage(c.workspace.id)
  assert.equal(u.counted, u.stored)
  assert.ok(u.stored <= QUOTA, `stored ${u.stored} within the quota ${QUOTA}`)
  // Run history is written in batches: wait for it.
  let failedRuns = 0
  for (let i = 0; i < 100 && failedRuns === 0; i++) {
    const [runs] = await fx.server.context.db.query<RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM runs WHERE workspace_id = ? AND error_code = 'RENDER_LIMIT_EXCEEDED'", [c.workspace.id])
    failedRuns = Number(runs[0]?.n)
    if (failedRuns === 0) await sleep(50)
  }
  assert.equal(failedRuns, 1, 'the refused render is in the run history')
})
