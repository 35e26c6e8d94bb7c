// svc bench against the real service: HTTPS app, MariaDB data source, published example
// templates, the render pool. Short runs; the point is that the bench speaks the real API.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { runBench } from '../../../cli/bench/runner.js'
import { probe } from '../../../cli/bench/probe.js'
import { Problem } from '../../../server/errors.js'
import type { BenchOptions } from '../../../cli/bench/types.js'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { startServer } from '../../helpers/server.js'
import type { TestServer } from '../../helpers/server.js'
import { createDataDatabase, dropDataDatabase, renderWorkspace } from '../../helpers/render-data.js'
import { sum } from './options.js'

let database: TestDatabase
let server: TestServer
let dataName: string
let ws: Awaited<ReturnType<typeof renderWorkspace>>

before(async () => {
  database = await createTestDatabase('bench')
  dataName = `${database.name}_data`
  const dataUrl = await createDataDatabase(dataName)
  server = await startServer(database.url, { SVC_RATE_LIMIT: '100000' })
  ws = await renderWorkspace(server.context, dataUrl)
  // The first render starts the worker threads and can outlast a short window on a busy machine.
  const first = await server.fetch('POST', '/api/v1/render', { headers: { authorization: `Bearer ${ws.key.key}` }, body: { template: 'invoice', parameters: { invoiceId: 1 } } })
  assert.equal(first.status, 200)
})
after(async () => {
  await server.close()
  await database.drop()
  await dropDataDatabase(dataName)
})

const options = (o: Partial<BenchOptions>): BenchOptions => ({
  url: server.url,
  key: ws.key.key,
  template: 'invoice',
  parameters: [{ invoiceId: 1 }, { invoiceId: 2 }],
  async: false,
  connections: 4,
  durationMs: 1000,
  warmupMs: 200,
  timeoutMs: 30_000,
  jobTimeoutMs: 30_000,
  ca: server.ca,
  insecure: false,
  maxErrorRate: 0,
  ...o
})

test('sync renders of the invoice example: all 200, PDF bytes counted', async () => {
  const r = await runBench(options({}))
  assert.equal(r.passed, true, JSON.stringify(r))
  assert.ok(r.total > 5, JSON.stringify(r))
  assert.deepEqual(r.statuses, { 200: r.total })
  assert.ok(r.bytes > r.total * 1000, 'a PDF is more than 1 KB')
  assert.ok(r.latency.p50 > 0 && r.latency.p50 <= r.latency.max)
})

test('async renders: every job is polled to succeeded; unknown templates count as TEMPLATE_NOT_FOUND', async () => {
  const r = await runBench(options({ async: true, connections: 2 }))
  assert.equal(r.passed, true, JSON.stringify(r))
  assert.deepEqual(r.statuses, { 202: r.total })
  assert.equal(r.asyncResult?.outcomes.succeeded, r.total)
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks at runtime what the type claims
  assert.equal(r.asyncResult?.completion.count, r.total)
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks at runtime what the type claims
  assert.ok((r.asyncResult?.polls ?? 0) >= r.total)
  const missing = await runBench(options({ template: 'no-such-template', connections: 1, durationMs: 300, warmupMs: 0 }))
  assert.equal(missing.passed, false)
  assert.deepEqual(missing.statuses, { 404: missing.total })
  assert.deepEqual(missing.errorCodes, { TEMPLATE_NOT_FOUND: missing.total })
  assert.equal(sum(missing.statuses), missing.total)
})

test('the probe (svc/client) names the problem of a bench that can only fail: codes are case-sensitive', async () => {
  await probe(options({}))
  const err = await probe(options({ template: 'INVOICE' })).catch((e: unknown) => e)
  assert.ok(err instanceof Problem)
  assert.equal(err.code, 'TEMPLATE_NOT_FOUND')
  assert.match(err.message, /^"INVOICE": no such template .*case-sensitive/)
  const scope = await probe(options({ key: 'svc_live_nothing_here' })).catch((e: unknown) => e)
  assert.ok(scope instanceof Problem)
  assert.equal(scope.code, 'API_KEY_INVALID')
})
