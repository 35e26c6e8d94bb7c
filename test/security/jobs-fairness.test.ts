// Tenant isolation, the durable queue (docs/security.md): workspace B floods 2,000 async jobs,
// then workspace A submits one; A's job is claimed before B's backlog is done, within one claim
// of arriving. Asserted on the database's record of claims (order and counts), not on time.
// Real MariaDB, real HTTPS, the server's own job loop.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { renderFixture, renderWorkspace } from '../helpers/render-data.js'
import { bearer } from '../helpers/fixtures.js'

const CONCURRENCY = 2
let fx: Awaited<ReturnType<typeof renderFixture>>

before(async () => {
  fx = await renderFixture('sec_jobs', { SVC_RATE_LIMIT: '1000000', SVC_JOB_CONCURRENCY: String(CONCURRENCY), SVC_JOB_POLL: '50ms' })
})
// eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
after(async () => { await fx?.close() })

test('B floods 2,000 async jobs, then A submits one: A\'s job is claimed before B\'s 2,000 are done', async () => {
  const b = await renderWorkspace(fx.server.context, fx.dataUrl)
  const submit = async (key: string, body: Record<string, unknown>): Promise<string> => {
    const res = await fx.server.fetch('POST', '/api/v1/render', { headers: bearer(key), body: { ...body, async: true } })
    assert.equal(res.status, 202, res.text())
    return res.json().jobId ?? res.json().id
  }
  let sent = 0
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (sent < 2000) { sent++; await submit(b.key.key, { template: 'shipping-label', parameters: { batchId: 7 } }) }
  }))
  const mine = await submit(fx.ws.key.key, { template: 'invoice', parameters: { invoiceId: 1 } })
  const db = fx.server.context.db
  let a: { created_at: Date, started_at: Date | null, status: string } | undefined
  for (let i = 0; i < 600 && (a === undefined || a.started_at === null); i++) {
    const [rows] = await db.query('SELECT created_at, started_at, status FROM render_jobs WHERE id = ?', [mine]) as unknown as [typeof a[]]
    a = rows[0]
    if (a?.started_at === null) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.ok(a?.started_at instanceof Date, 'A\'s job was claimed')
  const [counts] = await db.query(`SELECT
      SUM(started_at IS NULL OR started_at > ?) AS after_a,
      SUM(started_at >= ? AND started_at < ?) AS between_submit_and_claim,
      COUNT(*) AS total
    FROM render_jobs WHERE workspace_id = ?`, [a.started_at, a.created_at, a.started_at, b.workspace.id]) as unknown as [Array<Record<string, string>>]
  assert.equal(Number(counts[0]?.total), 2000)
  assert.ok(Number(counts[0]?.after_a) > 0, `B's jobs still waiting when A's was claimed: ${counts[0]?.after_a}`)
  // Claims after A's job arrived served B at most one claim's worth before A.
  assert.ok(Number(counts[0]?.between_submit_and_claim) <= CONCURRENCY, `B's claims between A's submit and A's claim: ${counts[0]?.between_submit_and_claim}`)
})
