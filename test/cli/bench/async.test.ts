import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { runBench } from '../../../cli/bench/runner.js'
import { startFake } from './fake-server.js'
import type { FakeServer } from './fake-server.js'
import { assertOrdered, benchAgainst, sum } from './options.js'

const servers: FakeServer[] = []
after(async () => { for (const s of servers) await s.close() })

test('async: submit, poll until succeeded or failed; outcomes, polls and submit-to-done latency', async () => {
  const server = await startFake({ delayMs: 2, pollsToFinish: 3, failEvery: 4 })
  servers.push(server)
  const r = await runBench(benchAgainst(server, { async: true, connections: 4, durationMs: 1200, maxErrorRate: 0.5 }))
  assert.equal(r.async, true)
  assert.ok(r.total >= 8, `${r.total} jobs`)
  assert.equal(r.total, server.submits)
  assert.deepEqual(r.statuses, { 202: r.total })
  assert.deepEqual(server.bodies[0], { template: 'INVOICE', async: true })
  const a = r.asyncResult
  assert.ok(a !== null)
  assert.equal(a.outcomes.failed, Math.floor(server.submits / 4))
  assert.equal(a.outcomes.succeeded, r.total - a.outcomes.failed)
  assert.equal(a.outcomes.submitFailed + a.outcomes.pollFailed + a.outcomes.timedOut, 0)
  assert.equal(a.polls, 3 * r.total)
  assert.equal(a.polls, server.polls)
  assert.deepEqual(a.pollStatuses, { 200: a.polls })
  assert.equal(r.errors, a.outcomes.failed)
  assert.deepEqual(r.errorCodes, { RENDER_FAILED: a.outcomes.failed })
  assert.equal(r.passed, true)
  // Three polls after waits of 50, 75 and 113 ms: at least 238 ms from submit to done.
  assert.equal(a.completion.count, r.total)
  assert.ok(a.completion.min >= 238, `completion min ${a.completion.min} ms`)
  assert.ok(assertOrdered(a.completion))
  assert.ok(a.completion.p50 > r.latency.p50, 'done comes after the 202')
  assert.equal(sum(r.statuses), r.total)
})

test('async: a job that never finishes in time is counted as JOB_WAIT_TIMEOUT', async () => {
  const server = await startFake({ delayMs: 1, pollsToFinish: 1000 })
  servers.push(server)
  const r = await runBench(benchAgainst(server, { async: true, connections: 1, durationMs: 100, jobTimeoutMs: 300 }))
  assert.ok(r.total >= 1)
  assert.equal(r.asyncResult?.outcomes.timedOut, r.total)
  assert.deepEqual(r.errorCodes, { JOB_WAIT_TIMEOUT: r.total })
  assert.equal(r.errorRate, 1)
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks at runtime what the type claims
  assert.equal(r.asyncResult?.completion.count, 0)
})
