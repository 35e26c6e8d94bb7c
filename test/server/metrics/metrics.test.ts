// Metrics of a real server: HTTP answers by route template and errorCode (unknown URLs share one
// label), rate-limit refusals, and the pool's and queue's gauges.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { startServer } from '../../helpers/server.js'
import type { TestServer } from '../../helpers/server.js'
import { workspaceWithKey, bearer } from '../../helpers/fixtures.js'
import type { Metrics } from '../../../server/metrics/metrics.js'

let database: TestDatabase
let server: TestServer
let metrics: Metrics

before(async () => {
  database = await createTestDatabase('metrics')
  server = await startServer(database.url, { SVC_RATE_LIMIT: '2', SVC_RENDER_THREADS: '1' })
  metrics = server.server.metrics
})
after(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await server?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await database?.drop()
})

const line = (text: string, name: string, labels: string): number | undefined => {
  const m = new RegExp(`^${name}\\{${labels.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\} (\\S+)$`, 'm').exec(text)
  return m === null ? undefined : Number(m[1])
}

test('HTTP requests are counted by route template, status and errorCode; refusals counted; URLs never become labels', async () => {
  const { key } = await workspaceWithKey(server.context)
  for (let i = 0; i < 3; i++) await server.fetch('GET', '/api/v1/whoami', { headers: bearer(key.key) })
  await server.fetch('GET', '/api/v1/whoami')
  await server.fetch('GET', '/no/such/path/1')
  await server.fetch('GET', '/no/such/path/2')
  const text = await metrics.registry.metrics()
  assert.equal(line(text, 'svc_http_requests_total', 'method="GET",route="/api/v1/whoami",status="200",error_code=""'), 2)
  assert.equal(line(text, 'svc_http_requests_total', 'method="GET",route="/api/v1/whoami",status="429",error_code="RATE_LIMITED"'), 1)
  assert.equal(line(text, 'svc_http_requests_total', 'method="GET",route="/api/v1/whoami",status="401",error_code="API_KEY_INVALID"'), 1)
  assert.equal(line(text, 'svc_http_requests_total', 'method="GET",route="unmatched",status="404",error_code="NOT_FOUND"'), 2)
  assert.match(text, /^svc_rate_limit_refusals_total 1$/m)
  assert.ok(!text.includes('/no/such/path'), 'a URL became a label')
  assert.equal(line(text, 'svc_http_request_duration_seconds_count', 'method="GET",route="/api/v1/whoami"'), 4)
  assert.equal(line(text, 'svc_render_threads', 'state="idle"'), 1)
  assert.equal(line(text, 'svc_render_waiting', 'lane="batch"'), 0)
  assert.equal(line(text, 'svc_jobs', 'status="queued"'), 0)
})
