// Lease fencing: the token is (lease_owner, attempts), not the owner alone. A process that
// stalled past its lease and claimed the same job again holds two claims; the stale one must
// not finish, renew or release the job.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { createJobsRepo } from '../../../server/store/repos/jobs.js'
import type { JobOutcome } from '../../../server/store/repos/jobs.js'
import { transaction } from '../../../server/store/db.js'
import type { RowDataPacket } from 'mysql2'
import { newJob as jobRow } from '../../helpers/jobs.js'

let database: TestDatabase

before(async () => { database = await createTestDatabase('fence') })
after(async () => { await database.drop() })

const outcome = (): JobOutcome => ({ status: 'succeeded', runId: randomUUID(), documentId: null, pageCount: 1, labelCount: null, outputBytes: 10, errorCode: null, errorMessage: null })

async function row (
  id: string
): Promise<{
  status: string
  attempts: number
  run_id: string | null
  lease_owner: string | null
  lease_expires_at: Date | null
}> {
  const [rows] = await database.db.query<RowDataPacket[]>(
    'SELECT status, attempts, run_id, lease_owner, lease_expires_at FROM render_jobs WHERE id = ?',
    [id]
  )
  return rows[0] as Awaited<ReturnType<typeof row>>
}

test('a stale claim of the same process (lease expired, job reclaimed) cannot finish, renew or release it', async () => {
  const jobs = createJobsRepo(database.db)
  const id = randomUUID()
  await jobs.insert(database.db, jobRow({ id }))
  const [first] = await jobs.claim('proc', 1, 30_000)
  assert.equal(first?.id, id)
  // The process stalls past its lease: another process requeues the job, then the same one claims it again.
  await database.db.query('UPDATE render_jobs SET lease_expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND WHERE id = ?', [id])
  assert.equal(await jobs.requeueExpired(3), 1)
  const [second] = await jobs.claim('proc', 1, 30_000)
  assert.equal(second?.id, id)
  assert.equal(second.attempts, first.attempts + 1)

  const before = await row(id)
  assert.equal(await transaction(database.db, async (conn) => await jobs.finish(conn, id, 'proc', first.attempts, outcome())), false, 'the stale claim does not finish')
  assert.deepEqual(await row(id), before, 'and changes nothing')

  await database.db.query('UPDATE render_jobs SET lease_expires_at = UTC_TIMESTAMP(3) + INTERVAL 2 SECOND WHERE id = ?', [id])
  const fixed = (await row(id)).lease_expires_at
  await jobs.renewLeases('proc', [{ id, attempts: first.attempts }], 60_000)
  assert.deepEqual((await row(id)).lease_expires_at, fixed, 'the stale claim does not renew the lease')
  assert.equal(await jobs.release(id, 'proc', first.attempts, 1000), false, 'nor release the job')
  assert.equal(await jobs.unclaim(id, 'proc', first.attempts), false, 'nor hand it back')
  assert.equal((await row(id)).status, 'running')

  await jobs.renewLeases('proc', [{ id, attempts: second.attempts }], 60_000)
  assert.ok(((await row(id)).lease_expires_at as Date).getTime() > (fixed as Date).getTime() + 30_000, 'the current claim renews')
  const done = outcome()
  assert.equal(await transaction(database.db, async (conn) => await jobs.finish(conn, id, 'proc', second.attempts, done)), true)
  const after = await row(id)
  assert.equal(after.status, 'succeeded')
  assert.equal(after.run_id, done.runId)
  assert.equal(after.attempts, 2)
})

test('finishMany fences each claim of a batch on its own: stale and foreign claims change nothing, the others finish', async () => {
  const jobs = createJobsRepo(database.db)
  // One workspace: claims serve workspaces in turn, and a workspace's jobs in queue order.
  const workspaceId = randomUUID()
  const newJob = (): Parameters<typeof jobs.insert>[1] => jobRow({ workspaceId })
  // Claims are taken in queue order: drain whatever earlier tests left queued first.
  while ((await jobs.claim('sweeper', 100, 30_000)).length > 0);
  const [a, b, c] = [newJob(), newJob(), newJob()]
  for (const j of [a, b, c]) await jobs.insert(database.db, j)
  const claimed = await jobs.claim('proc', 3, 30_000)
  assert.deepEqual(claimed.map((j) => j.id), [a.id, b.id, c.id])
  // b: this process stalled past its lease and claimed it again (attempts 2); c: another process took it over.
  await database.db.query('UPDATE render_jobs SET lease_expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND WHERE id IN (?)', [[b.id, c.id]])
  assert.equal(await jobs.requeueExpired(3), 2)
  const again = await jobs.claim('proc', 1, 30_000)
  assert.deepEqual(again.map((j) => j.id), [b.id])
  assert.deepEqual((await jobs.claim('other', 1, 30_000)).map((j) => j.id), [c.id])

  const outcomes = [outcome(), outcome(), outcome(), outcome()]
  const cRow = await row(c.id)
  const won = await transaction(database.db, async (conn) => await jobs.finishMany(conn, [
    { id: a.id, owner: 'proc', attempts: 1, outcome: outcomes[0]! },
    { id: b.id, owner: 'proc', attempts: 1, outcome: outcomes[1]! }, // stale claim of b
    { id: b.id, owner: 'proc', attempts: 2, outcome: outcomes[2]! }, // current claim of b
    { id: c.id, owner: 'proc', attempts: 1, outcome: outcomes[3]! } // c now belongs to "other"
  ]))
  assert.deepEqual(won, [true, false, true, false])
  assert.equal((await row(a.id)).run_id, outcomes[0]?.runId)
  assert.equal((await row(a.id)).status, 'succeeded')
  assert.equal((await row(b.id)).run_id, outcomes[2]?.runId, 'the current claim of b wrote its outcome, the stale one did not')
  assert.equal((await row(b.id)).lease_owner, null)
  assert.deepEqual(await row(c.id), cRow, 'the job another process holds is untouched')
})
