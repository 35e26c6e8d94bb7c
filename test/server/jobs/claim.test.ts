// The job claim: its plans walk ix_jobs_fair without a filesort (a filesort plan makes SKIP
// LOCKED claimers skip every row, see shared/notes), and concurrent claimers never share a job.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { createJobsRepo } from '../../../server/store/repos/jobs.js'
import { retryDelayMs } from '../../../server/jobs/retry.js'
import { fairPartSql, FAIR_WORKSPACES_SQL, fairShares } from '../../../server/store/repos/jobs-fair.js'
import { createDb } from '../../../server/store/db.js'
import type { RowDataPacket } from 'mysql2'
import { newJob } from '../../helpers/jobs.js'

let database: TestDatabase

before(async () => { database = await createTestDatabase('claim') })
after(async () => { await database.drop() })

async function enqueue (n: number, workspaceId?: string): Promise<string[]> {
  const jobs = createJobsRepo(database.db)
  const ids: string[] = []
  for (let i = 0; i < n; i++) {
    ids.push(randomUUID())
    await jobs.insert(database.db, newJob({ id: ids[i], workspaceId: workspaceId ?? randomUUID(), parameters: { i } }))
  }
  return ids
}

test('the claim queries use ix_jobs_fair and no filesort: the workspaces with queued jobs, then each one\'s oldest', async () => {
  await enqueue(50)
  const [wsPlan] = await database.db.query<RowDataPacket[]>(`EXPLAIN ${FAIR_WORKSPACES_SQL}`, ['', 10])
  assert.equal(wsPlan[0]?.key, 'ix_jobs_fair')
  assert.doesNotMatch(String(wsPlan[0].Extra), /filesort|temporary/i)
  const [first, second] = (await database.db.query<RowDataPacket[]>('SELECT DISTINCT workspace_id FROM render_jobs LIMIT 2'))[0].map((r) => r.workspace_id)
  const part = fairPartSql('j.seq, j.id, j.workspace_id')
  const union = [part, part].join(' UNION ALL ').replaceAll('FOR UPDATE SKIP LOCKED', '')
  const [plan] = await database.db.query<RowDataPacket[]>(`EXPLAIN ${union}`, [first, 0, 3, second, 0, 3])
  for (const row of plan.filter((r) => r.table === 'j')) {
    assert.equal(row.key, 'ix_jobs_fair')
    assert.doesNotMatch(String(row.Extra), /filesort|temporary/i)
  }
})

test('fair shares: one job at a time to each workspace in turn, none past its room', () => {
  assert.deepEqual(fairShares([10, 10, 10], 7), [3, 2, 2])
  assert.deepEqual(fairShares([1, 10, 0], 7), [1, 6, 0])
  assert.deepEqual(fairShares([0, 0], 5), [0, 0])
  assert.deepEqual(fairShares([5], 2), [2])
})

test('two claimers on separate connections get disjoint jobs; claimed rows are running with attempts 1', async () => {
  await enqueue(200)
  const other = createDb(database.url, { connectionLimit: 4 })
  try {
    const a = createJobsRepo(database.db)
    const b = createJobsRepo(other)
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
    const [rows] = await database.db.query<RowDataPacket[]>("SELECT COUNT(*) AS n FROM render_jobs WHERE status = 'running' AND attempts = 1 AND lease_owner IS NOT NULL")
    assert.equal(Number(rows[0]?.n), 250)
  } finally {
    await other.end()
  }
})

test('a released job waits out its backoff: the claim skips it until not_before, then takes it first', async () => {
  await database.db.query("UPDATE render_jobs SET status = 'succeeded' WHERE status <> 'succeeded'")
  await enqueue(2)
  const jobs = createJobsRepo(database.db)
  const [first] = await jobs.claim('owner-a', 1, 30_000)
  assert.ok(first !== undefined)
  assert.ok(await jobs.release(first.id, 'owner-a', first.attempts, retryDelayMs(first.attempts)))
  const [row] = await database.db.query<RowDataPacket[]>('SELECT status, TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(3), not_before) AS wait FROM render_jobs WHERE id = ?', [first.id])
  assert.equal(row[0]?.status, 'queued')
  assert.ok(Number(row[0].wait) > 900_000 && Number(row[0].wait) <= 1_000_000, `not_before ~1 s ahead: ${row[0].wait} µs`)
  const others = await jobs.claim('owner-b', 5, 30_000)
  assert.equal(others.length, 1)
  assert.notEqual(others[0]?.id, first.id, 'the backed-off job is skipped')
  assert.deepEqual(await jobs.claim('owner-b', 5, 30_000), [])
  await database.db.query('UPDATE render_jobs SET not_before = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND WHERE id = ?', [first.id])
  const [again] = await jobs.claim('owner-b', 5, 30_000)
  assert.equal(again?.id, first.id)
  assert.equal(again.attempts, 2)
})

test('retry backoff doubles from the base and is capped at 60 s', () => {
  assert.deepEqual([1, 2, 3, 4, 7, 8, 50].map((n) => retryDelayMs(n)), [1000, 2000, 4000, 8000, 60_000, 60_000, 60_000])
  assert.equal(retryDelayMs(2, 10), 20)
})

test('B floods 2,000 jobs, then A submits one: the next claim takes A\'s job; claims alternate between workspaces', async () => {
  await database.db.query("UPDATE render_jobs SET status = 'succeeded' WHERE status <> 'succeeded'")
  const b = randomUUID()
  const a = randomUUID()
  const flood = new Set(await enqueue(2000, b))
  const [mine] = await enqueue(1, a)
  const jobs = createJobsRepo(database.db)
  const claimed = await jobs.claim('owner-fair', 4, 30_000)
  assert.equal(claimed.length, 4)
  assert.ok(claimed.some((j) => j.id === mine), 'A\'s job is in the first claim, ahead of B\'s backlog')
  assert.equal(claimed.filter((j) => flood.has(j.id)).length, 3)
  // Two workspaces with work: one job each per claim of two, whichever came first.
  const c = randomUUID()
  await enqueue(5, c)
  const next = await jobs.claim('owner-fair', 2, 30_000)
  assert.deepEqual(new Set(next.map((j) => j.workspaceId)), new Set([b, c]))
})

test('a workspace at its running cap gets nothing more; another workspace\'s job is claimed', async () => {
  await database.db.query("UPDATE render_jobs SET status = 'succeeded' WHERE status <> 'succeeded'")
  const b = randomUUID()
  const a = randomUUID()
  await enqueue(20, b)
  const jobs = createJobsRepo(database.db)
  assert.equal((await jobs.claim('owner-cap', 10, 30_000, 3)).length, 3)
  assert.deepEqual(await jobs.claim('owner-cap', 10, 30_000, 3), [], 'B has 3 running: no more for B')
  const [mine] = await enqueue(1, a)
  const claimed = await jobs.claim('owner-cap', 10, 30_000, 3)
  assert.deepEqual(claimed.map((j) => j.id), [mine])
})

test('a claim reads the list of workspaces with queued jobs once when it saw them all (one workspace at its cap)', async () => {
  await database.db.query("UPDATE render_jobs SET status = 'succeeded' WHERE status <> 'succeeded'")
  const ws = randomUUID()
  await enqueue(40, ws)
  // One connection, so its session counter sees every statement of the claim's transaction.
  const one = createDb(database.url, { connectionLimit: 1 })
  try {
    const jobs = createJobsRepo(one)
    const questions = async (): Promise<number> =>
      Number((await one.query<RowDataPacket[]>("SHOW SESSION STATUS LIKE 'Questions'"))[0][0]!.Value)
    assert.equal((await jobs.claim('owner-once', 16, 30_000, 8)).length, 8)
    await one.query("UPDATE render_jobs SET status = 'succeeded' WHERE status = 'running'")
    const before = await questions()
    // The cursor now stands at this workspace: the list is read after it (nothing) and from the
    // start (this one), then its running count, its jobs, the claim's UPDATE. Another round over
    // the list would find nobody new, so none is read.
    assert.equal((await jobs.claim('owner-once', 16, 30_000, 8)).length, 8)
    const statements = await questions() - before - 1
    assert.equal(statements, 7, 'START, 2 × workspaces, running count, jobs, UPDATE, COMMIT')
  } finally {
    await one.end()
  }
})
