import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { runBench } from '../../../cli/bench/runner.js'
import { startFake } from './fake-server.js'
import type { FakeServer } from './fake-server.js'
import { assertOrdered, benchAgainst, sum } from './options.js'

const servers: FakeServer[] = []
after(async () => { for (const s of servers) await s.close() })
const fake = async (...args: Parameters<typeof startFake>): Promise<FakeServer> => {
  const s = await startFake(...args)
  servers.push(s)
  return s
}

test('open loop at --rate 200 for 2 s sends ~400 requests, whatever the latency', async () => {
  const server = await fake({ delayMs: 5 })
  const r = await runBench(benchAgainst(server, { rate: 200, durationMs: 2000, connections: 8 }))
  assert.equal(r.mode, 'open')
  assert.equal(r.rate, 200)
  assert.ok(r.total >= 340 && r.total <= 460, `${r.total} requests, expected 400 ±15%`)
  assert.equal(r.total, server.renders)
  assert.equal(sum(r.statuses), r.total)
  assert.ok(assertOrdered(r.latency))
  assert.ok(r.latency.p50 >= 4.5, `p50 ${r.latency.p50} ms`)
  // The window runs to the last completion, so a slow tail (a loaded machine) lowers the rate.
  assert.ok(r.durationMs >= 2000)
  assert.ok(Math.abs(r.requestsPerSec - r.total / (r.durationMs / 1000)) < 1)
  assert.equal(typeof r.sendLagMaxMs, 'number')
})

// The server holds every answer for 600 ms once, one second in. A closed loop with 2 clients
// just waits: 2 slow samples, then it carries on. The open loop keeps its schedule; requests
// that should have gone out during the stall count from their intended time, so ~20 samples
// are ≥ 500 ms (those due in the first 100 ms of the stall) and p99 shows it. (600/500 ms
// rather than 300/250: a loaded test machine has 250 ms hiccups of its own.)
const STALL_MS = 600
const SLOW_US = 500_000

async function stalled (
  overrides: Parameters<typeof benchAgainst>[1]
): Promise<{ slow: number, p99: number, total: number }> {
  const server = await fake({ delayMs: 5 })
  let slow = 0
  const timer = setTimeout(() => {
    server.stall(STALL_MS)
  }, 1000)
  const r = await runBench(benchAgainst(server, { durationMs: 2000, ...overrides }), {
    onSample: (us) => {
      if (us >= SLOW_US) slow++
    }
  })
  clearTimeout(timer)
  assert.equal(r.errors, 0)
  assert.ok(r.latency.max >= STALL_MS - 10, `the stall is visible in max (${r.latency.max} ms)`)
  return { slow, p99: r.latency.p99, total: r.total }
}

test('coordinated omission: the open loop sees the stall in many samples and in p99, the closed loop in only c', async () => {
  const closed = await stalled({ connections: 2 })
  assert.ok(closed.slow >= 1 && closed.slow <= 2, `closed loop: ${closed.slow} slow samples, expected at most c=2`)
  const open = await stalled({ rate: 200, connections: 8 })
  assert.ok(open.slow >= 10, `open loop: only ${open.slow} samples ≥ 500 ms`)
  assert.ok(open.p99 >= 500, `open-loop p99 ${open.p99} ms should reflect the stall`)
  assert.ok(open.slow / open.total > 3 * closed.slow / closed.total, 'the stall weighs far more in the open loop')
})

test('coordinated-omission correction: requests our own stalled loop sent late count from their intended time', async () => {
  const server = await fake({ delayMs: 2 })
  let slow = 0
  // Block this process (the bench and the fake server alike) for 400 ms: nothing due in that
  // time can be sent; once it is, its latency must include the wait since it was due.
  const timer = setTimeout(() => { const until = Date.now() + 400; while (Date.now() < until); }, 800)
  const r = await runBench(benchAgainst(server, { rate: 200, durationMs: 1600, connections: 8 }), {
    onSample: (us) => {
      if (us >= 300_000) slow++
    }
  })
  clearTimeout(timer)
  assert.ok(r.total >= 272 && r.total <= 368, `${r.total} requests, expected 320 ±15%: late requests are sent, not skipped`)
  assert.ok(r.sendLagMaxMs !== null && r.sendLagMaxMs >= 350, `send lag ${r.sendLagMaxMs} ms`)
  // ~20 requests were due in the first 100 ms of the block.
  assert.ok(slow >= 10, `only ${slow} samples ≥ 300 ms`)
  assert.ok(r.latency.max >= 390)
})
