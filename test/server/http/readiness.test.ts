// /readyz is what the balancer checks: 503 while the render pool cannot take a sync render
// (its one thread busy, no waiting room), 200 again once the render is done; /healthz stays 200.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { bearer } from '../../helpers/fixtures.js'
import { renderFixture } from '../../helpers/render-data.js'

let f: Awaited<ReturnType<typeof renderFixture>>
before(async () => {
  f = await renderFixture('ready', { SVC_RENDER_THREADS: '1', SVC_RENDER_QUEUE: '0' }, { salesRows: 40_000 })
})
// eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
after(async () => { await f?.close() })

test('/readyz is 503 while the only render thread is busy and nothing may wait, 200 before and after', async () => {
  assert.equal((await f.server.fetch('GET', '/readyz')).status, 200)
  const big = f.server.fetch('POST', '/api/v1/render', { headers: bearer(f.ws.key.key), body: { template: 'sales-report', parameters: { from: '2026-01-01', to: '2026-12-31' } } })
  const deadline = Date.now() + 60_000
  while (f.server.server.saturated() === undefined && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  const during = await f.server.fetch('GET', '/readyz')
  const live = await f.server.fetch('GET', '/healthz')
  const rendered = await big
  assert.equal(rendered.status, 200)
  assert.equal(during.status, 503)
  assert.equal(during.json().errorCode, 'SERVICE_UNAVAILABLE')
  assert.match(during.json().detail, /render thread/)
  assert.equal(live.status, 200, 'liveness is not readiness')
  assert.equal((await f.server.fetch('GET', '/readyz')).status, 200)
})
