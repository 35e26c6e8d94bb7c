import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { runBench } from '../../../cli/bench/runner.js'
import { DOCUMENT_BYTES, startFake } from './fake-server.js'
import type { FakeServer } from './fake-server.js'
import { assertOrdered, benchAgainst, sum } from './options.js'

const servers: FakeServer[] = []
after(async () => { for (const s of servers) await s.close() })
const fake = async (...args: Parameters<typeof startFake>): Promise<FakeServer> => {
  const s = await startFake(...args)
  servers.push(s)
  return s
}

test('closed loop: counts add up, RENDER_BUSY is counted by errorCode, latencies are ordered and include the delay', async () => {
  const server = await fake({ delayMs: 5, busyEvery: 5 })
  const progress: number[] = []
  const r = await runBench(benchAgainst(server, { connections: 4, durationMs: 1500 }), {
    onProgress: (p) => {
      progress.push(p.requests)
    }
  })
  assert.equal(r.mode, 'closed')
  assert.equal(r.connections, 4)
  assert.ok(r.total > 50, `only ${r.total} requests`)
  // No warm-up: every request the server saw was counted, and each has exactly one status.
  assert.equal(r.total, server.renders)
  assert.equal(sum(r.statuses), r.total)
  assert.equal(r.statuses['503'], Math.floor(server.renders / 5))
  assert.equal(r.statuses['200'], r.total - r.statuses['503'])
  assert.deepEqual(r.errorCodes, { RENDER_BUSY: r.statuses['503'] })
  assert.equal(r.errors, r.statuses['503'])
  assert.equal(r.errorRate, Math.round(r.errors / r.total * 1e6) / 1e6)
  assert.equal(r.passed, false, '20% errors is above the default 1% limit')
  assert.equal(r.latency.count, r.total)
  assert.ok(assertOrdered(r.latency), JSON.stringify(r.latency))
  // libuv timers have 1 ms resolution and count from the loop's cached clock, so a 5 ms delay
  // can end up to ~1 ms early (4.46 ms seen in CI); without the delay answers take ~0.3 ms.
  assert.ok(r.latency.min >= 4, `min ${r.latency.min} ms is below the server's 5 ms delay`)
  assert.ok(r.latency.p50 >= 4.5, `p50 ${r.latency.p50} ms`)
  assert.equal(r.bytes, r.statuses['200'] * DOCUMENT_BYTES, 'document bytes (problem bodies count 0)')
  assert.ok(r.durationMs >= 1500 && r.durationMs < 2500, `window ${r.durationMs}`)
  assert.ok(Math.abs(r.requestsPerSec - r.total / (r.durationMs / 1000)) < 1)
  assert.ok(r.bytesPerSec > 0)
  assert.equal(r.sendLagMaxMs, null)
  assert.equal(r.asyncResult, null)
  assert.ok(progress.length >= 1, 'a progress report about once a second')
  // The request body is the render request of the spec.
  assert.deepEqual(server.bodies[0], { template: 'INVOICE' })
})

test('a run under the error limit passes; warm-up requests are sent but not counted', async () => {
  const server = await fake({ delayMs: 2 })
  const r = await runBench(benchAgainst(server, { connections: 2, durationMs: 600, warmupMs: 600, maxErrorRate: 0 }))
  assert.equal(r.passed, true)
  assert.equal(r.errors, 0)
  assert.deepEqual(Object.keys(r.statuses), ['200'])
  assert.ok(r.total > 20)
  assert.ok(server.renders > r.total + 20, `server saw ${server.renders}, counted ${r.total}: warm-up not excluded`)
  assert.ok(r.durationMs >= 600 && r.durationMs < 1200, `window ${r.durationMs} should exclude the warm-up`)
})

test('parameter sets are cycled through, with environment and format in every request', async () => {
  const server = await fake({ delayMs: 1 })
  const parameters = [{ invoiceId: 1 }, { invoiceId: 2 }, { invoiceId: 3 }]
  const r = await runBench(benchAgainst(server, { connections: 1, durationMs: 300, parameters, environment: 'staging', format: 'pdf' }))
  assert.ok(r.total >= 6)
  server.bodies.forEach((body, i) => {
    assert.deepEqual(body, { template: 'INVOICE', environment: 'staging', format: 'pdf', parameters: parameters[i % 3] })
  })
})

test('the certificate is verified: without the CA every request is a network error; --insecure skips it', async () => {
  const server = await fake({ delayMs: 1 })
  const refused = await runBench(benchAgainst(server, { ca: undefined, connections: 1, durationMs: 200 }))
  assert.equal(server.renders, 0)
  assert.ok(refused.total > 0)
  assert.deepEqual(refused.statuses, { network: refused.total })
  const codes = Object.keys(refused.errorCodes)
  assert.equal(codes.length, 1)
  assert.match(codes[0]!, /SELF_SIGNED|CERT/)
  assert.equal(refused.errorRate, 1)
  assert.equal(refused.passed, false)
  const insecure = await runBench(
    benchAgainst(server, { ca: undefined, insecure: true, connections: 1, durationMs: 200 })
  )
  assert.equal(insecure.errors, 0)
  assert.equal(insecure.statuses['200'], insecure.total)
})

test('a wrong key is counted as 401 API_KEY_INVALID', async () => {
  const server = await fake({ delayMs: 1 })
  const r = await runBench(benchAgainst(server, { key: 'svc_test_nope_nope', connections: 1, durationMs: 200 }))
  assert.deepEqual(r.statuses, { 401: r.total })
  assert.deepEqual(r.errorCodes, { API_KEY_INVALID: r.total })
})

test('a per-request timeout is counted as TIMEOUT; aborting stops the run early', async () => {
  // undici checks its timeouts on a ~0.5 s tick: a 100 ms timeout fires within about a second.
  const server = await fake({ delayMs: 2500 })
  const r = await runBench(benchAgainst(server, { timeoutMs: 100, connections: 2, durationMs: 350 }))
  assert.ok(r.total >= 2)
  assert.deepEqual(r.statuses, { network: r.total })
  assert.deepEqual(r.errorCodes, { TIMEOUT: r.total })
  // Aborted after its 20th answer in a run planned for an hour: it ends with the requests then
  // in flight (at most one per connection) and sends nothing more.
  const quick = await fake({ delayMs: 5 })
  const controller = new AbortController()
  let answers = 0
  const stopped = await runBench(benchAgainst(quick, { durationMs: 3_600_000, connections: 4 }), {
    signal: controller.signal,
    onSample: () => { if (++answers === 20) controller.abort() }
  })
  assert.ok(stopped.total >= 20 && stopped.total <= 20 + 4, `${stopped.total} requests counted`)
  assert.equal(stopped.total, answers)
})
