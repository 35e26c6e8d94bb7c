// Render limits and capacity over HTTPS: pages, rows, the time limit (sync and async) and a
// saturated pool (503 RENDER_BUSY with Retry-After).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import pino from 'pino'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { startServer } from '../../helpers/server.js'
import type { TestServer } from '../../helpers/server.js'
import { bearer } from '../../helpers/fixtures.js'
import { createDataDatabase, dropDataDatabase, renderWorkspace } from '../../helpers/render-data.js'

let database: TestDatabase
let dataName: string
let dataUrl: string
const servers: TestServer[] = []

before(async () => {
  database = await createTestDatabase('limits')
  dataName = `${database.name}_data`
  dataUrl = await createDataDatabase(dataName, { salesRows: 3000 })
})
after(async () => {
  for (const s of servers) await s.close()
  await database.drop()
  await dropDataDatabase(dataName)
})

/** `warnings`: the server's warn-level log lines go there (else it logs nothing). */
async function serverWith (
  env: Record<string, string>, warnings?: string[]
): Promise<{ server: TestServer, key: string }> {
  const logger = warnings === undefined
    ? undefined
    : pino({ level: 'warn' }, { write: (line: string) => { warnings.push(line) } })
  const server = await startServer(database.url, { SVC_JOB_POLL: '50ms', ...env }, undefined, undefined,
    logger === undefined ? {} : { logger })
  servers.push(server)
  const ws = await renderWorkspace(server.context, dataUrl)
  return { server, key: ws.key.key }
}

const report = { template: 'sales-report', parameters: { from: '2026-01-01', to: '2026-12-31' } }

test('too many pages and too many rows answer 422 RENDER_LIMIT_EXCEEDED naming the limit', async () => {
  const pages = await serverWith({ SVC_RENDER_MAX_PAGES: '2' })
  const res = await pages.server.fetch('POST', '/api/v1/render', { headers: bearer(pages.key), body: report })
  assert.equal(res.status, 422)
  assert.equal(res.json().errorCode, 'RENDER_LIMIT_EXCEEDED')
  assert.match(res.json().detail, /maxPages/)
  const rows = await serverWith({ SVC_RENDER_MAX_ROWS: '100' })
  const res2 = await rows.server.fetch('POST', '/api/v1/render', { headers: bearer(rows.key), body: report })
  assert.equal(res2.status, 422)
  assert.equal(res2.json().errorCode, 'RENDER_LIMIT_EXCEEDED')
  assert.match(res2.json().detail, /rows/i)
})

test('past the time limit: sync answers 422 RENDER_LIMIT_EXCEEDED, an async job fails with RENDER_TIMEOUT', async () => {
  // The server's warnings name a failed read's driver code ("dataset failed", reason): this test
  // once saw the job end DATA_SOURCE_UNAVAILABLE instead, under a loaded machine, and did not say why.
  const warnings: string[] = []
  const { server, key } = await serverWith({ SVC_RENDER_TIMEOUT: '5ms', SVC_JOB_MAX_ATTEMPTS: '1' }, warnings)
  const sync = await server.fetch('POST', '/api/v1/render', { headers: bearer(key), body: report })
  assert.equal(sync.status, 422)
  assert.equal(sync.json().errorCode, 'RENDER_LIMIT_EXCEEDED')
  assert.match(sync.json().detail, /time limit/)
  const submitted = await server.fetch('POST', '/api/v1/render', { headers: bearer(key), body: { ...report, async: true } })
  const path = new URL(submitted.json().statusUrl).pathname
  let job
  for (let i = 0; i < 200; i++) {
    job = (await server.fetch('GET', path, { headers: bearer(key) })).json()
    if (job.status === 'failed' || job.status === 'succeeded') break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.equal(job.status, 'failed')
  assert.equal(job.error.code, 'RENDER_TIMEOUT', `${String(job.error.message)}\nserver warnings:\n${warnings.join('')}`)
})

test('a saturated pool answers 503 RENDER_BUSY with Retry-After; the others still render', async () => {
  const { server, key } = await serverWith({ SVC_RENDER_THREADS: '1', SVC_RENDER_QUEUE: '0', SVC_RATE_LIMIT: '10000' })
  const answers = await Promise.all(Array.from({ length: 8 }, () => server.fetch('POST', '/api/v1/render', { headers: bearer(key), body: report })))
  const busy = answers.filter((r) => r.status === 503)
  const ok = answers.filter((r) => r.status === 200)
  assert.ok(busy.length > 0, 'some requests found the pool full')
  assert.ok(ok.length > 0, 'the ones that got a thread rendered')
  assert.equal(busy.length + ok.length, 8)
  for (const r of busy) {
    assert.equal(r.json().errorCode, 'RENDER_BUSY')
    assert.equal(r.headers['retry-after'], '1')
  }
})
