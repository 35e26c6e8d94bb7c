// Durable jobs across real processes: many jobs over two `svc serve` processes are each
// rendered exactly once; a process killed mid-job leaves a job that is retried, and abandoned
// after the configured attempts.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { startServer, makeHome } from '../../helpers/server.js'
import type { TestServer } from '../../helpers/server.js'
import { bearer } from '../../helpers/fixtures.js'
import { createDataDatabase, dropDataDatabase, renderWorkspace, readExample } from '../../helpers/render-data.js'
import { startChildServer } from '../../helpers/child-server.js'
import type { ChildServer } from '../../helpers/child-server.js'
import type { RowDataPacket } from 'mysql2'

const masterKey = randomBytes(32).toString('hex')
let database: TestDatabase
let front: TestServer
let dataName: string
let ws: Awaited<ReturnType<typeof renderWorkspace>>
let home: string
const children: ChildServer[] = []

before(async () => {
  database = await createTestDatabase('durable')
  dataName = `${database.name}_data`
  const dataUrl = await createDataDatabase(dataName)
  home = await makeHome()
  // The front server only accepts requests: its job loop is off, so children do all rendering.
  front = await startServer(database.url, { SVC_JOBS: 'false', SVC_RATE_LIMIT: '1000000', SVC_MASTER_KEY: masterKey }, home)
  ws = await renderWorkspace(front.context, dataUrl)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test edits the example's nested JSON in place
  const slow = await readExample('invoice') as any
  slow.code = 'slow-invoice'
  slow.datasets[0].query = slow.datasets[0].query.replace('SELECT ', 'SELECT pause_for(4) AS pause, ')
  await front.context.services.templates.publish(ws.workspace.id, slow, {})
})
after(async () => {
  for (const c of children) await c.kill()
  await front.close()
  await database.drop()
  await dropDataDatabase(dataName)
})

const childEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  SVC_HOME: home, SVC_DATABASE_URL: database.url, SVC_MASTER_KEY: masterKey, SVC_JOB_POLL: '50ms', ...extra
})

async function submit (body: Record<string, unknown>): Promise<string> {
  const res = await front.fetch('POST', '/api/v1/render', { headers: bearer(ws.key.key), body: { ...body, async: true } })
  assert.equal(res.status, 202)
  return res.json().jobId
}

async function waitFor<T> (what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let value: T | undefined
  for (;;) {
    value = await fn()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON under test: the assertions check its shape
async function jobRow (id: string): Promise<any> {
  const [rows] = await front.context.db.query<RowDataPacket[]>('SELECT status, attempts, error_code, lease_owner FROM render_jobs WHERE id = ?', [id])
  return rows[0]
}

test('1,000 async jobs over two server processes: each rendered exactly once', async () => {
  const ids: string[] = []
  for (let i = 0; i < 1000; i += 25) {
    ids.push(...await Promise.all(Array.from({ length: 25 }, () => submit({ template: 'shipping-label', parameters: { batchId: 7 } }))))
  }
  const a = await startChildServer(childEnv())
  const b = await startChildServer(childEnv())
  children.push(a, b)
  await waitFor('all jobs to finish', async () => {
    const [rows] = await front.context.db.query<RowDataPacket[]>("SELECT COUNT(*) AS n FROM render_jobs WHERE status IN ('succeeded', 'failed') AND template_code = 'shipping-label'")
    return rows[0]?.n === 1000 ? true : undefined
  }, 240_000)
  const [jobs] = await front.context.db.query<RowDataPacket[]>("SELECT status, attempts, COUNT(*) AS n FROM render_jobs WHERE template_code = 'shipping-label' GROUP BY status, attempts")
  assert.deepEqual(jobs.map((r) => [r.status, r.attempts, Number(r.n)]), [['succeeded', 1, 1000]])
  const [runs] = await front.context.db.query<RowDataPacket[]>("SELECT job_id, COUNT(*) AS n FROM runs WHERE mode = 'async' AND template_code = 'shipping-label' GROUP BY job_id HAVING n <> 1")
  assert.equal(runs.length, 0, 'no job has more or fewer than one run')
  const [count] = await front.context.db.query<RowDataPacket[]>("SELECT COUNT(DISTINCT job_id) AS n FROM runs WHERE mode = 'async' AND template_code = 'shipping-label'")
  assert.equal(Number(count[0]?.n), 1000)
  const [docs] = await front.context.db.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM documents d JOIN render_jobs j ON j.document_id = d.id WHERE j.template_code = ?', ['shipping-label'])
  assert.equal(Number(docs[0]?.n), 1000)
  await a.kill('SIGTERM')
  await b.kill('SIGTERM')
})

test('a process killed mid-job: the job is retried elsewhere; killed again at the last attempt, it is abandoned', async () => {
  const env = childEnv({ SVC_JOB_LEASE: '1s', SVC_JOB_MAX_ATTEMPTS: '2' })
  const retried = await submit({ template: 'slow-invoice', parameters: { invoiceId: 1 } })
  const first = await startChildServer(env)
  children.push(first)
  await waitFor('first claim', async () => { const r = await jobRow(retried); return r.status === 'running' && r.attempts === 1 ? r : undefined })
  await first.kill('SIGKILL')
  const second = await startChildServer(env)
  children.push(second)
  const done = await waitFor('retry to finish', async () => { const r = await jobRow(retried); return r.status === 'succeeded' ? r : undefined })
  assert.equal(done.attempts, 2)

  const doomed = await submit({ template: 'slow-invoice', parameters: { invoiceId: 2 } })
  await waitFor('claim by the second process', async () => { const r = await jobRow(doomed); return r.status === 'running' && r.attempts === 1 ? r : undefined })
  await second.kill('SIGKILL')
  const third = await startChildServer(env)
  children.push(third)
  await waitFor('second claim', async () => { const r = await jobRow(doomed); return r.status === 'running' && r.attempts === 2 ? r : undefined })
  await third.kill('SIGKILL')
  const fourth = await startChildServer(env)
  children.push(fourth)
  const abandoned = await waitFor('abandonment', async () => { const r = await jobRow(doomed); return r.status === 'failed' ? r : undefined })
  assert.equal(abandoned.error_code, 'JOB_ABANDONED')
  assert.equal(abandoned.attempts, 2)
  const job = (await front.fetch('GET', `/api/v1/jobs/${doomed}`, { headers: bearer(ws.key.key) })).json()
  assert.equal(job.status, 'failed')
  assert.equal(job.error.code, 'JOB_ABANDONED')
  await fourth.kill('SIGTERM')
})
