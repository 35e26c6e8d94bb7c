// The per-workspace job caps as wired in a server process (docs/security.md): the job loop hands
// SVC_JOB_MAX_RUNNING_PER_WORKSPACE to every claim, and an async render goes through the queued
// cap (SVC_JOB_MAX_QUEUED_PER_WORKSPACE) before its job is inserted. Real MariaDB, real HTTPS.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import pino from 'pino'
import { createTestDatabase } from '../../helpers/db.js'
import { bearer } from '../../helpers/fixtures.js'
import { renderFixture, renderWorkspace } from '../../helpers/render-data.js'
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

test('the job loop claims at most the running cap of one workspace; another workspace still gets its job', async () => {
  const database = await createTestDatabase('loopcap')
  cleanups.push(() => database.drop())
  const real = createJobsRepo(database.db)
  const busy = randomUUID()
  const other = randomUUID()
  for (const workspaceId of [busy, busy, busy, busy, busy, other]) {
    await real.insert(database.db, newJob({ workspaceId }))
  }
  // Each claim's answer is announced, so the test waits for claims, not for time.
  const answers: number[] = []
  let announce: () => void = () => {}
  const jobs: JobsRepo = {
    ...real,
    claim: async (...args) => {
      const r = await real.claim(...args)
      answers.push(r.length)
      announce()
      return r
    }
  }
  const claimed = (n: number): Promise<void> => new Promise((resolve) => {
    announce = () => { if (answers.length >= n) resolve() }
    announce()
  })
  // Started jobs hold their slot until the test lets them go.
  let release!: () => void
  const held = new Promise<void>((resolve) => { release = resolve })
  const started: string[] = []
  const run: Pick<JobsService, 'execute' | 'abandon'> = {
    execute: async (job) => { started.push(job.workspaceId); await held },
    abandon: async () => {}
  }
  const config = loadConfig({}, {
    SVC_HOME: '/tmp/svc-loop-cap-test',
    SVC_DATABASE_URL: database.url,
    SVC_MASTER_KEY: 'a'.repeat(64),
    SVC_JOB_POLL: '1h',
    SVC_JOB_CONCURRENCY: '8',
    SVC_JOB_MAX_RUNNING_PER_WORKSPACE: '2'
  }, 2)
  const loop = createJobLoop(config, { jobs, documents: createDocumentsRepo(database.db), run, log: pino({ level: 'silent' }) })
  loop.start()
  await claimed(1)
  assert.equal(answers[0], 3, 'two of the busy workspace (its cap) and the other workspace\'s one, of 8 free slots')
  loop.wake()
  await claimed(2)
  assert.equal(answers[1], 0, 'the busy workspace at its cap gets nothing more while slots are free')
  assert.deepEqual(started.filter((w) => w === busy).length, 2)
  assert.deepEqual(started.filter((w) => w === other).length, 1)
  const [rows] = await database.db.query<RowDataPacket[]>('SELECT status, COUNT(*) AS n FROM render_jobs WHERE workspace_id = ? GROUP BY status ORDER BY status', [busy])
  assert.deepEqual(rows.map((r) => [r.status, Number(r.n)]), [['queued', 3], ['running', 2]])
  release()
  await loop.close()
})

test('an async render over the workspace\'s queued cap is 429 RATE_LIMITED with Retry-After; another workspace is not held', async () => {
  const fx = await renderFixture('queuecap', { SVC_JOBS: 'false', SVC_JOB_MAX_QUEUED_PER_WORKSPACE: '3' })
  cleanups.push(() => fx.close())
  const submit = (key: string) => fx.server.fetch('POST', '/api/v1/render',
    { headers: bearer(key), body: { template: 'invoice', parameters: { invoiceId: 1 }, async: true } })
  for (let i = 1; i <= 3; i++) assert.equal((await submit(fx.ws.key.key)).status, 202, `job ${i}`)
  const refused = await submit(fx.ws.key.key)
  assert.equal(refused.status, 429, refused.text())
  assert.match(String(refused.headers['content-type']), /^application\/problem\+json/)
  assert.equal(refused.headers['retry-after'], '5')
  assert.equal(refused.json().errorCode, 'RATE_LIMITED')
  assert.equal(refused.json().correlationId, refused.headers['x-correlation-id'])
  const [rows] = await fx.database.db.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM render_jobs WHERE workspace_id = ?', [fx.ws.workspace.id])
  assert.equal(Number(rows[0]?.n), 3, 'the refused job was not inserted')
  const other = await renderWorkspace(fx.server.context, fx.dataUrl)
  assert.equal((await submit(other.key.key)).status, 202, 'another workspace still enqueues')
})
