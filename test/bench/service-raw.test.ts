import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setImmediate as tick } from 'node:timers/promises'
import { closedLoop } from '../../bench/service-raw.js'

// make bench pairs each run's service figures with a raw figure taken around them: the loop's
// two halves must run before and after `midway`, never during it, and count both halves.
test('closedLoop with midway: calls stop for midway, resume after it, and both halves count', async () => {
  const events: string[] = []
  let inFlight = 0
  let duringMidway = 0
  let midwayRunning = false
  const call = async (i: number): Promise<boolean> => {
    if (midwayRunning) duringMidway++
    inFlight++
    events.push(`call ${i}`)
    await tick()
    inFlight--
    return i % 7 !== 0 // some failures, to see the errors of both halves summed
  }
  let inFlightAtMidway = -1
  const r = await closedLoop(call, 4, 0, 200, async () => {
    inFlightAtMidway = inFlight
    midwayRunning = true
    events.push('midway')
    await new Promise((resolve) => setTimeout(resolve, 50))
    midwayRunning = false
  })
  const at = events.indexOf('midway')
  assert.equal(events.filter((e) => e === 'midway').length, 1)
  assert.ok(at > 0 && at < events.length - 1, 'calls before and after midway')
  assert.equal(inFlightAtMidway, 0, 'the first half\'s calls finished before midway')
  assert.equal(duringMidway, 0, 'no call runs while midway measures')
  // Indices go on after midway: the second half does not restart at 0.
  const after = events.slice(at + 1).map((e) => Number(e.split(' ')[1]))
  assert.equal(after[0], at)
  const calls = events.length - 1
  const failed = events.filter((e) => e !== 'midway' && Number(e.split(' ')[1]) % 7 === 0).length
  assert.equal(r.errors, failed, 'errors of both halves (no warm-up: every call counts)')
  assert.ok(r.rate > 0 && Number.isFinite(r.p50) && Number.isFinite(r.p99) && r.cpuMs > 0)
  assert.ok(calls > 2 * 4)
})

test('closedLoop without midway runs one stretch', async () => {
  let calls = 0
  const r = await closedLoop(async () => { calls++; await tick(); return true }, 2, 0, 30)
  assert.ok(calls > 0)
  assert.equal(r.errors, 0)
})
