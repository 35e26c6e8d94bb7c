// Tenant isolation, the render threads (issue 30, finding 4): renders cannot be interrupted, so
// while workspace A is active, workspace B's long renders hold at most N−1 of the N threads and
// A's next render finds one free, for sync renders and for jobs alike. Asserted on the order in
// which renders end (A's invoice, milliseconds, against B's reports of several seconds), never
// on time. Real MariaDB, real HTTPS, the server's own render pool and job loop (2 threads).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { renderFixture, renderWorkspace } from '../helpers/render-data.js'
import { bearer } from '../helpers/fixtures.js'

// A report of this many rows renders for seconds: B's "long render".
const SALES_ROWS = 24_000
const REPORT = { template: 'sales-report', parameters: { from: '2026-01-01', to: '2026-12-31' } }
const INVOICE = { template: 'invoice', parameters: { invoiceId: 1 } }
let fx: Awaited<ReturnType<typeof renderFixture>>

before(async () => {
  fx = await renderFixture('sec_threads', { SVC_RATE_LIMIT: '1000000', SVC_JOB_POLL: '50ms', SVC_RENDER_TIMEOUT: '120s' },
    { salesRows: SALES_ROWS })
})
// eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
after(async () => { await fx?.close() })

const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

/** Waits until the pool holds `total` renders (running + waiting) with at least one running. */
async function poolHolds (total: number, lane: 'interactive' | 'batch'): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    const s = fx.server.server.renderStats()
    if (s.running >= 1 && s.running + s.waiting[lane] >= total) return
    await sleep(25)
  }
  assert.fail(`the pool never held ${total} ${lane} renders: ${JSON.stringify(fx.server.server.renderStats())}`)
}

test('sync: B keeps three long reports going on two threads; A, active, gets its invoice before any of B\'s ends', async () => {
  const b = await renderWorkspace(fx.server.context, fx.dataUrl)
  const render = async (key: string, body: Record<string, unknown>): Promise<number> => {
    const res = await fx.server.fetch('POST', '/api/v1/render', { headers: bearer(key), body })
    assert.equal(res.status, 200, res.text())
    return res.body.length
  }
  const ended: string[] = []
  // A is active: it rendered just now (within SVC_RENDER_FAIR_WINDOW).
  await render(fx.ws.key.key, INVOICE)
  const reports = [0, 1, 2].map(async (i) => { await render(b.key.key, REPORT); ended.push(`b${i}`) })
  await poolHolds(3, 'interactive')
  assert.equal(fx.server.server.renderStats().running, 1, 'B holds one thread of two while A is active')
  await render(fx.ws.key.key, INVOICE)
  ended.push('a')
  await Promise.all(reports)
  assert.equal(ended[0], 'a', `A's invoice ended before B's first report: ${ended.join(', ')}`)
})

test('jobs: B keeps three long report jobs going on two threads; A\'s job runs before any of B\'s ends', async () => {
  const b = await renderWorkspace(fx.server.context, fx.dataUrl)
  const submit = async (key: string, body: Record<string, unknown>): Promise<string> => {
    const res = await fx.server.fetch('POST', '/api/v1/render', { headers: bearer(key), body: { ...body, async: true } })
    assert.equal(res.status, 202, res.text())
    return res.json().jobId ?? res.json().id
  }
  // A is active (a sync render just now), then B's three jobs start.
  const warm = await fx.server.fetch('POST', '/api/v1/render', { headers: bearer(fx.ws.key.key), body: INVOICE })
  assert.equal(warm.status, 200)
  const bs = await Promise.all([0, 1, 2].map(async () => await submit(b.key.key, REPORT)))
  await poolHolds(3, 'batch')
  const mine = await submit(fx.ws.key.key, INVOICE)
  const db = fx.server.context.db
  const all = [...bs, mine]
  type Row = { id: string, status: string, completed_at: Date | null }
  let rows: Row[] = []
  for (let i = 0; i < 2400; i++) {
    const [r] = await db.query('SELECT id, status, completed_at FROM render_jobs WHERE id IN (?)', [all]) as unknown as [Row[]]
    rows = r
    if (rows.length === 4 && rows.every((x) => x.completed_at !== null)) break
    await sleep(50)
  }
  assert.ok(rows.every((x) => x.status === 'succeeded'), JSON.stringify(rows))
  const a = rows.find((x) => x.id === mine) as Row
  const firstB = Math.min(...rows.filter((x) => x.id !== mine).map((x) => (x.completed_at as Date).getTime()))
  assert.ok((a.completed_at as Date).getTime() < firstB, `A's job completed before B's first: A ${String(a.completed_at?.toISOString())}, B's first ${new Date(firstB).toISOString()}`)
})
