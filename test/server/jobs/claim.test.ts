// The job claim: its plan walks ix_jobs_claim without a filesort (a filesort plan makes SKIP
// LOCKED claimers skip every row, see shared/notes), and concurrent claimers never share a job.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { jobsRepo, CLAIM_SQL } from '../../../server/store/repos/jobs.js'
import { retryDelayMs } from '../../../server/jobs/retry.js'
import { createDb } from '../../../server/store/db.js'

let database: TestDatabase

before(async () => { database = await createTestDatabase('claim') })
after(async () => { await database.drop() })

async function enqueue (n: number): Promise<void> {
  const jobs = jobsRepo(database.db)
  for (let i = 0; i < n; i++) {
    await jobs.insert(database.db, {
      id: randomUUID(), workspaceId: randomUUID(), apiKeyId: 'k', apiKeyPrefix: 'svc_live_k', apiKeyName: 'k', templateId: randomUUID(),
      templateCode: 'invoice', version: 1, environment: 'production', format: 'pdf', parameters: { i }, context: {}, fileName: 'f.pdf', correlationId: 'c'
    })
  }
}

test('the claim query uses ix_jobs_claim and no filesort', async () => {
  await enqueue(50)
  const [plan] = await database.db.query<any[]>(`EXPLAIN ${CLAIM_SQL.replace('FOR UPDATE SKIP LOCKED', '')}`, [10])
  assert.equal(plan[0].key, 'ix_jobs_claim')
  assert.doesNotMatch(String(plan[0].Extra), /filesort/i)
})

test('two claimers on separate connections get disjoint jobs; claimed rows are running with attempts 1', async () => {
  await enqueue(200)
  const other = createDb(database.url, { connectionLimit: 4 })
  try {
    const a = jobsRepo(database.db)
    const b = jobsRepo(other)
    const claimed: string[] = []
    await Promise.all([a, b].map(async (repo, n) => {
      for (;;) {
        const jobs = await repo.claim(`owner-${n}`, 7, 30_000)
        if (jobs.length === 0) return
        for (const j of jobs) {
          assert.equal(j.status, 'running')
          assert.equal(j.attempts, 1)
          assert.ok(j.startedAt instanceof Date)
        }
        claimed.push(...jobs.map((j) => j.id))
      }
    }))
    assert.equal(claimed.length, 250)
    assert.equal(new Set(claimed).size, 250, 'no job claimed twice')
    const [rows] = await database.db.query<any[]>("SELECT COUNT(*) AS n FROM render_jobs WHERE status = 'running' AND attempts = 1 AND lease_owner IS NOT NULL")
    assert.equal(Number(rows[0].n), 250)
  } finally {
    await other.end()
  }
})

test('a released job waits out its backoff: the claim skips it until not_before, then takes it first', async () => {
  await database.db.query("UPDATE render_jobs SET status = 'succeeded' WHERE status <> 'succeeded'")
  await enqueue(2)
  const jobs = jobsRepo(database.db)
  const [first] = await jobs.claim('owner-a', 1, 30_000)
  assert.ok(await jobs.release(first.id, 'owner-a', first.attempts, retryDelayMs(first.attempts)))
  const [row] = await database.db.query<any[]>('SELECT status, TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(3), not_before) AS wait FROM render_jobs WHERE id = ?', [first.id])
  assert.equal(row[0].status, 'queued')
  assert.ok(Number(row[0].wait) > 900_000 && Number(row[0].wait) <= 1_000_000, `not_before ~1 s ahead: ${row[0].wait} µs`)
  const others = await jobs.claim('owner-b', 5, 30_000)
  assert.equal(others.length, 1)
  assert.notEqual(others[0].id, first.id, 'the backed-off job is skipped')
  assert.deepEqual(await jobs.claim('owner-b', 5, 30_000), [])
  await database.db.query('UPDATE render_jobs SET not_before = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND WHERE id = ?', [first.id])
  const [again] = await jobs.claim('owner-b', 5, 30_000)
  assert.equal(again.id, first.id)
  assert.equal(again.attempts, 2)
})

test('retry backoff doubles from the base and is capped at 60 s', () => {
  assert.deepEqual([1, 2, 3, 4, 7, 8, 50].map((n) => retryDelayMs(n)), [1000, 2000, 4000, 8000, 60_000, 60_000, 60_000])
  assert.equal(retryDelayMs(2, 10), 20)
})
