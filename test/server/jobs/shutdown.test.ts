// Shutdown of a server process's job loop: no job starts once claims stop (a claim in flight is
// handed back, its attempt refunded), running jobs finish with their leases renewed, and only
// then does the render pool close, so nothing fails as RENDER_FAILED.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import pino from 'pino'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { bearer } from '../../helpers/fixtures.js'
import { renderFixture, readExample } from '../../helpers/render-data.js'
import { createJobsRepo } from '../../../server/store/repos/jobs.js'
import type { JobsRepo } from '../../../server/store/repos/jobs.js'
import { createDocumentsRepo } from '../../../server/store/repos/documents.js'
import { createJobLoop } from '../../../server/jobs/loop.js'
import type { JobsService } from '../../../server/jobs/service.js'
import { loadConfig } from '../../../server/config.js'
import type { RowDataPacket } from 'mysql2'
import { newJob } from '../../helpers/jobs.js'

const cleanups: Array<() => Promise<void>> = []
after(async () => { for (const c of cleanups.reverse()) await c() })

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON under test: the assertions check its shape
async function jobRows (db: TestDatabase['db'], ids: string[]): Promise<Map<string, any>> {
  const [rows] = await db.query<RowDataPacket[]>('SELECT id, status, attempts, error_code, lease_owner, started_at FROM render_jobs WHERE id IN (?)', [ids])
  return new Map(rows.map((r) => [r.id, r]))
}

test('a claim in flight when the loop closes is handed back unstarted, its attempt refunded', async () => {
  const database = await createTestDatabase('loopclose')
  cleanups.push(() => database.drop())
  const real = createJobsRepo(database.db)
  const id = randomUUID()
  await real.insert(database.db, newJob({ id }))
  let claimed!: () => void
  const inFlight = new Promise<void>((resolve) => { claimed = resolve })
  let open!: () => void
  const gate = new Promise<void>((resolve) => { open = resolve })
  // The claim has taken the job in the database but not yet answered when close() comes.
  const jobs: JobsRepo = {
    ...real,
    claim: async (...args) => {
      const r = await real.claim(...args)
      claimed()
      await gate
      return r
    }
  }
  let executed = 0
  const run: Pick<JobsService, 'execute' | 'abandon'> = { execute: async () => { executed++ }, abandon: async () => { executed++ } }
  const config = loadConfig({}, { SVC_HOME: '/tmp/svc-loop-close-test', SVC_DATABASE_URL: database.url, SVC_JOB_POLL: '1h', SVC_MASTER_KEY: 'a'.repeat(64) }, 2)
  const loop = createJobLoop(config, { jobs, documents: createDocumentsRepo(database.db), run, log: pino({ level: 'silent' }) })
  loop.start()
  await inFlight
  const closing = loop.close()
  open()
  await closing
  assert.equal(executed, 0, 'no job starts after close()')
  const row = (await jobRows(database.db, [id])).get(id)
  assert.equal(row.status, 'queued')
  assert.equal(row.attempts, 0, 'the unstarted claim does not use an attempt')
  assert.equal(row.lease_owner, null)
  assert.equal(row.started_at, null)
})

test('closing a server mid-job: the running job finishes (lease kept), queued jobs stay queued, nothing fails', async () => {
  const fx = await renderFixture('shutdown', { SVC_JOB_CONCURRENCY: '1', SVC_JOB_LEASE: '1s', SVC_JOB_POLL: '50ms' })
  cleanups.push(() => fx.close())
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test edits the example's nested JSON in place
  const slow = await readExample('invoice') as any
  slow.code = 'slow-invoice'
  slow.datasets[0].query = slow.datasets[0].query.replace('SELECT ', 'SELECT pause_for(2.5) AS pause, ')
  await fx.server.context.services.templates.publish(fx.ws.workspace.id, slow, {})
  const ids: string[] = []
  for (let i = 0; i < 3; i++) {
    const res = await fx.server.fetch('POST', '/api/v1/render', { headers: bearer(fx.ws.key.key), body: { template: 'slow-invoice', parameters: { invoiceId: 1 }, async: true } })
    assert.equal(res.status, 202)
    ids.push(res.json().jobId)
  }
  const db = fx.database.db
  let runningId: string | undefined
  for (let i = 0; i < 200 && runningId === undefined; i++) {
    runningId = [...(await jobRows(db, ids)).values()].find((r) => r.status === 'running')?.id
    if (runningId === undefined) await new Promise((resolve) => setTimeout(resolve, 25))
  }
  assert.ok(runningId !== undefined, 'a job started')
  const closing = fx.server.close()
  // Another process's maintenance, past the 1 s lease: a drained job must still hold its lease.
  await new Promise((resolve) => setTimeout(resolve, 1600))
  assert.equal(await createJobsRepo(db).requeueExpired(3), 0, 'the running job keeps its lease while the server drains')
  await closing
  const rows = await jobRows(db, ids)
  const done = rows.get(runningId)
  assert.equal(done.status, 'succeeded', 'the running job completed before close() returned')
  assert.equal(done.attempts, 1)
  for (const id of ids.filter((i) => i !== runningId)) {
    assert.equal(rows.get(id).status, 'queued', 'jobs not started stay queued')
    assert.equal(rows.get(id).attempts, 0)
  }
  const [failed] = await db.query<RowDataPacket[]>("SELECT COUNT(*) AS n FROM render_jobs WHERE status = 'failed'")
  assert.equal(Number(failed[0]?.n), 0, 'no job failed (RENDER_FAILED from a closed pool)')
})

test('closing a server with more jobs claimed than may read data at once: those waiting at the stage are handed back unstarted', async () => {
  // 1 render thread: at most 4 jobs read data and render at once, 3 of one workspace (the last place
  // is left to other workspaces); 8 may be claimed. The workspace's
  // running cap of 5 makes "five claimed" exact: how many a claim takes otherwise depends on how
  // many submissions landed while the previous claim was in flight.
  const fx = await renderFixture('shutstage', {
    SVC_JOB_CONCURRENCY: '8', SVC_JOB_MAX_RUNNING_PER_WORKSPACE: '5', SVC_RENDER_THREADS: '1', SVC_JOB_LEASE: '5s', SVC_JOB_POLL: '50ms'
  })
  cleanups.push(() => fx.close())
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test edits the example's nested JSON in place
  const slow = await readExample('invoice') as any
  slow.code = 'slow-invoice'
  slow.datasets[0].query = slow.datasets[0].query.replace('SELECT ', 'SELECT pause_for(1) AS pause, ')
  await fx.server.context.services.templates.publish(fx.ws.workspace.id, slow, {})
  const ids: string[] = []
  for (let i = 0; i < 8; i++) {
    const res = await fx.server.fetch('POST', '/api/v1/render', { headers: bearer(fx.ws.key.key), body: { template: 'slow-invoice', parameters: { invoiceId: 1 }, async: true } })
    assert.equal(res.status, 202)
    ids.push(res.json().jobId)
  }
  const db = fx.database.db
  let running = 0
  for (let i = 0; i < 200 && running < 5; i++) {
    running = [...(await jobRows(db, ids)).values()].filter((r) => r.status === 'running').length
    if (running < 5) await new Promise((resolve) => setTimeout(resolve, 25))
  }
  // Three of them are inside their 1 s dataset query, two wait at the stage (the loop claims
  // again only when half its places are free).
  assert.equal(running, 5, 'five jobs were claimed')
  await fx.server.close()
  const rows = [...(await jobRows(db, ids)).values()]
  const succeeded = rows.filter((r) => r.status === 'succeeded')
  const queued = rows.filter((r) => r.status === 'queued')
  assert.equal(succeeded.length, 3, 'the three jobs past the stage finished, the two waiting at it did not start')
  assert.equal(queued.length, 5, 'the two handed back and the three never claimed are queued')
  for (const r of queued) {
    assert.equal(r.attempts, 0, 'their attempt refunded')
    assert.equal(r.lease_owner, null)
  }
  assert.equal(rows.filter((r) => r.status === 'failed').length, 0)
})
