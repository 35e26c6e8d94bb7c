// Issue 30, finding 1: one dataset could take gigabytes of the shared process. A published
// dataset `SELECT REPEAT('x', :n) AS big FROM seq_1_to_100000 LIMIT :rows` (MariaDB's SEQUENCE
// engine) is read through renders, jobs and dataset executions of a real `svc serve` process
// with the default limits (SVC_DATASET_MAX_BYTES, SVC_DATASET_EXECUTE_MAX_BYTES,
// SVC_DATASET_MAX_CELL_BYTES), and a hostile data source (test/helpers/fake-mysql.ts) announces
// one 256 MiB value. Real MariaDB, real HTTPS, the server's peak RSS read from /proc.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { readFile, rm } from 'node:fs/promises'
import { Agent, request } from 'undici'
import { createTestDatabase } from '../helpers/db.js'
import type { TestDatabase } from '../helpers/db.js'
import { startServer, makeHome } from '../helpers/server.js'
import type { TestServer, TestResponse } from '../helpers/server.js'
import { startChildServer } from '../helpers/child-server.js'
import type { ChildServer } from '../helpers/child-server.js'
import { bearer, workspaceWithKey } from '../helpers/fixtures.js'
import { problemOf } from '../helpers/problems.js'
import { fakeMysql } from '../helpers/fake-mysql.js'
import type { FakeMysql } from '../helpers/fake-mysql.js'
import { createDataDatabase } from '../server/datasources/helpers.js'
import type { DataDatabase } from '../server/datasources/helpers.js'

const MiB = 1024 * 1024
const masterKey = randomBytes(32).toString('hex')
let database: TestDatabase
let home: string
let front: TestServer
let child: ChildServer
let agent: Agent
let data: DataDatabase
let fake: FakeMysql
let greeter: FakeMysql
let key: string

const REPEAT = "SELECT REPEAT('x', :n) AS big FROM seq_1_to_100000 LIMIT :rows"

/** A label per row that prints the row's value (so a render that succeeds carries the data). */
function labelDef (code: string, query: string): never {
  return {
    code,
    format: 'label',
    parameters: [{ name: 'n', type: 'integer' }, { name: 'rows', type: 'integer' }],
    datasets: [{ code: 'big', cardinality: 'multiple', query, fields: [{ name: 'big', type: 'string' }] }],
    label: { widthIn: 4, heightIn: 6, dpi: 203, rows: 'big', zpl: '^XA^FO10,10^A0N,20,20^FD{{ row.big }}^FS^XZ' }
  } as never
}

before(async () => {
  database = await createTestDatabase('bytes')
  home = await makeHome()
  // The in-process server only sets up (and claims no jobs): the real process below does the work.
  front = await startServer(database.url, { SVC_MASTER_KEY: masterKey, SVC_JOBS: 'false' }, home)
  data = await createDataDatabase([])
  fake = await fakeMysql(256 * MiB)
  greeter = await fakeMysql(256 * MiB, 'greeting')
  const ctx = front.context
  const ws = await workspaceWithKey(ctx, { scopes: ['render', 'datasets.execute'] })
  key = ws.key.key
  await ctx.services.environments.create({ workspaceId: ws.workspace.id, key: 'production', dataSourceUrl: data.url })
  await ctx.services.environments.create({ workspaceId: ws.workspace.id, key: 'hostile', dataSourceUrl: `mysql://u:p@127.0.0.1:${fake.port}/fake` })
  await ctx.services.environments.create({ workspaceId: ws.workspace.id, key: 'greeter', dataSourceUrl: `mysql://u:p@127.0.0.1:${greeter.port}/fake` })
  await ctx.services.templates.publish(ws.workspace.id, labelDef('big', REPEAT))
  await ctx.services.templates.publish(ws.workspace.id, labelDef('hostile', 'SELECT big FROM huge'))
  // Every limit at its default; two render threads, as on this machine's two cores. The child
  // runs `node bin/svc`, which skips bin/svc's #! line: its memory settings are given here (all
  // but --heap-growing-percent and --no-parallel-scavenge, which NODE_OPTIONS refuses).
  child = await startChildServer({
    SVC_HOME: home,
    SVC_DATABASE_URL: database.url,
    SVC_MASTER_KEY: masterKey,
    SVC_RENDER_THREADS: '2',
    SVC_WEBHOOKS: 'false',
    SVC_JOB_POLL: '50ms',
    MALLOC_ARENA_MAX: '2',
    NODE_OPTIONS: '--max-semi-space-size=4'
  })
  agent = new Agent({ connect: { ca: front.ca }, bodyTimeout: 120_000, headersTimeout: 120_000 })
})

after(async () => {
  /* eslint-disable @typescript-eslint/no-unnecessary-condition -- unset if before() failed */
  await child?.kill('SIGKILL')
  await agent?.close()
  await fake?.close()
  await greeter?.close()
  await data?.drop()
  await front?.close()
  await database?.drop()
  if (home !== undefined) await rm(home, { recursive: true, force: true })
  /* eslint-enable @typescript-eslint/no-unnecessary-condition */
})

async function call (method: string, path: string, body?: unknown): Promise<TestResponse> {
  const res = await request(child.url + path, {
    method: method as 'POST',
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    dispatcher: agent
  })
  const buf = Buffer.from(await res.body.arrayBuffer())
  return { status: res.statusCode, headers: res.headers, body: buf, json: () => JSON.parse(buf.toString('utf8')), text: () => buf.toString('utf8') }
}

const render = (n: number, rows: number, extra: Record<string, unknown> = {}): Promise<TestResponse> =>
  call('POST', '/api/v1/render', { template: 'big', parameters: { n, rows }, ...extra })
const execute = (n: number, rows: number, maxRows?: number): Promise<TestResponse> =>
  call('POST', '/api/v1/datasets/big/big/execute', { parameters: { n, rows }, ...(maxRows === undefined ? {} : { maxRows }) })

/** The child's resident set now and at its peak (VmRSS, VmHWM), in bytes. */
async function memory (): Promise<{ rss: number, peak: number }> {
  const status = await readFile(`/proc/${child.process.pid}/status`, 'utf8')
  const kb = (name: string): number => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1]) * 1024
  return { rss: kb('VmRSS'), peak: kb('VmHWM') }
}

test('worst-case datasets on every render thread and in dataset executions at once: the server\'s peak RSS stays far below the data asked for', async (t) => {
  const base = await memory()
  // Rounds of two renders (one per render thread) and two executions at once: values just
  // under the cell limit, as many as the budgets hold (each answer carries all of them:
  // 12 MB of labels, 4 MB of JSON), then 20 of them (cut at the budget), then the issue's
  // 16 MB values (cut at the first row's header).
  const rounds: Array<{ n: number, render: number, execute: number, status: number }> = [
    { n: 4_100_000, render: 3, execute: 1, status: 200 },
    { n: 4_100_000, render: 3, execute: 1, status: 200 },
    { n: 4_100_000, render: 20, execute: 20, status: 422 },
    { n: 4_100_000, render: 20, execute: 20, status: 422 },
    { n: 16_000_000, render: 50, execute: 50, status: 422 }
  ]
  let asked = 0
  for (const r of rounds) {
    const answers = await Promise.all([
      render(r.n, r.render), render(r.n, r.render), execute(r.n, r.execute), execute(r.n, r.execute)
    ])
    asked += 2 * r.n * (r.render + r.execute)
    for (const [i, res] of answers.entries()) assert.equal(res.status, r.status, `request ${i}: ${res.text().slice(0, 300)}`)
    t.diagnostic(`${r.n} × ${r.render}/${r.execute}: peak RSS ${Math.round((await memory()).peak / MiB)} MiB`)
  }
  const { peak } = await memory()
  t.diagnostic(`peak RSS ${Math.round(peak / MiB)} MiB (${Math.round(base.rss / MiB)} MiB before), ${Math.round(asked / MiB)} MiB asked for`)
  assert.ok(peak < 500 * MiB, `peak RSS ${Math.round(peak / MiB)} MiB for ${Math.round(asked / MiB)} MiB asked for`)
  assert.equal((await render(10, 2)).status, 200, 'the server still renders')
})

test('a render whose datasets pass the byte budget or the cell limit answers 422 RENDER_LIMIT_EXCEEDED naming the limit, sync and as a job', async () => {
  // 100 rows of 1 MB: 100 MB against a 12 MiB budget.
  const total = problemOf(await render(1_000_000, 100), 422, 'RENDER_LIMIT_EXCEEDED')
  assert.match(total.detail, /more than 12582912 bytes in all \(byte limit 12582912 bytes\)/)
  // One value of 4.5 MB against the 4 MiB cell limit.
  const cell = problemOf(await render(4_500_000, 1), 422, 'RENDER_LIMIT_EXCEEDED')
  assert.match(cell.detail, /Dataset "big" returns a value of more than 4194304 bytes \(cell limit 4194304 bytes\)/)

  const queued = await render(16_000_000, 50, { async: true })
  assert.equal(queued.status, 202, queued.text())
  const jobPath = new URL(queued.json().statusUrl as string).pathname
  let job: { status: string, error: { code: string, message: string } | null } | undefined
  for (let i = 0; i < 600 && (job === undefined || job.status === 'queued' || job.status === 'running'); i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 100))
    job = (await call('GET', jobPath)).json()
  }
  assert.ok(job !== undefined)
  assert.equal(job.status, 'failed', JSON.stringify(job))
  assert.equal(job.error?.code, 'RENDER_LIMIT_EXCEEDED')
  assert.match(job.error.message, /cell limit 4194304 bytes/)

  // Under the limits the same template renders, its values in the labels.
  const small = await render(1_000_000, 3)
  assert.equal(small.status, 200, small.text())
  assert.equal(small.body.toString('latin1').split('x'.repeat(1_000_000)).length, 4, 'three labels of 1 MB values')
})

test('a dataset execution past its byte budget or the cell limit answers 422 DATASET_FAILED naming the limit; truncated still means maxRows; no pool slot is lost', async () => {
  // The request: values of 16 MB (500 INTERNAL_ERROR "Invalid string length" before).
  const cell = problemOf(await execute(16_000_000, 10), 422, 'DATASET_FAILED')
  assert.match(cell.detail, /Dataset "big" returns a value of more than 4194304 bytes \(cell limit 4194304 bytes\)/)
  const total = problemOf(await execute(1_000_000, 50, 1000), 422, 'DATASET_FAILED')
  assert.match(total.detail, /Dataset "big" returns more than 4194304 bytes \(byte limit 4194304 bytes of a dataset execution\)/)
  // Every cut discards its connection; more cuts than the pool's 4 slots, then reads still work.
  for (let i = 0; i < 6; i++) problemOf(await execute(2_000_000, 10), 422, 'DATASET_FAILED')
  const truncated = await execute(1000, 5, 3)
  assert.equal(truncated.status, 200, truncated.text())
  assert.equal(truncated.json().rowCount, 3)
  assert.equal(truncated.json().truncated, true, 'rows left out by maxRows')
  const whole = await execute(1000, 3, 3)
  assert.equal(whole.json().truncated, false)
  assert.equal(whole.json().rows[0].big, 'x'.repeat(1000))
})

/** What a fake server had sent when the client hung up (it may learn of it after the answer). */
async function hungUp (server = fake): Promise<{ bytes: number }> {
  for (let i = 0; i < 100 && !server.written().hungUp; i++) await new Promise((resolve) => setTimeout(resolve, 50))
  assert.ok(server.written().hungUp, 'the client closed the connection')
  return server.written()
}

test('a hostile data source announcing one 256 MiB value is cut after far less than it announced, render and execution alike', async () => {
  const executed = problemOf(await call('POST', '/api/v1/datasets/hostile/big/execute', { environment: 'hostile' }), 422, 'DATASET_FAILED')
  assert.match(executed.detail, /cell limit 4194304 bytes/)
  const onExecute = await hungUp()
  assert.ok(onExecute.bytes < 32 * MiB, `${onExecute.bytes} bytes of the 256 MiB value were taken before the cut`)

  const rendered = problemOf(await call('POST', '/api/v1/render', { template: 'hostile', environment: 'hostile' }), 422, 'RENDER_LIMIT_EXCEEDED')
  assert.match(rendered.detail, /cell limit 4194304 bytes/)
  const onRender = await hungUp()
  assert.ok(onRender.bytes < 32 * MiB, `${onRender.bytes} bytes of the 256 MiB value were taken before the cut`)
})

test('a hostile data source whose greeting announces 256 MiB is cut before any login: 503 DATA_SOURCE_UNAVAILABLE', async () => {
  const res = await call('POST', '/api/v1/datasets/hostile/big/execute', { environment: 'greeter' })
  problemOf(res, 503, 'DATA_SOURCE_UNAVAILABLE')
  const sent = await hungUp(greeter)
  assert.ok(sent.bytes < 32 * MiB, `${sent.bytes} bytes of the 256 MiB greeting were taken before the cut`)
})
