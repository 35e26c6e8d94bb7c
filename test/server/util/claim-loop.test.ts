// The claim loop's poll probe: a timer pass asks the probe first (one cheap read on an idle
// node instead of a claim's transaction); a wake() never does, and a wake during the probe
// still gets its pass.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { createClaimLoop } from '../../../server/util/claim-loop.js'

async function until (cond: () => boolean): Promise<void> {
  while (!cond()) await sleep(2) // hang guard: the test's own timeout
}

/** A loop polling every 5 ms whose passes find nothing and whose probe answers `found`; counts both. */
function countingLoop (found: boolean) {
  const counts = { passes: 0, probes: 0 }
  const loop = createClaimLoop(async () => { counts.passes++; return false }, {
    pollMs: 5,
    probe: async () => { counts.probes++; return found },
    onError: (err) => { throw err }
  })
  return { loop, counts }
}

test('poll passes ask the probe; with nothing to claim no pass runs, a wake() runs one without asking', { timeout: 10_000 }, async () => {
  const { loop, counts } = countingLoop(false)
  loop.start() // start() is a wake: one pass, no probe
  await until(() => counts.probes >= 5)
  assert.equal(counts.passes, 1, 'only the start pass ran: every poll was answered by the probe')
  const before = counts.probes
  loop.wake()
  await until(() => counts.passes === 2)
  assert.equal(counts.probes - before <= 1, true, 'the wake itself did not ask the probe (a poll may have)')
  await loop.close()
})

test('a probe that finds work lets the poll pass run', { timeout: 10_000 }, async () => {
  const { loop, counts } = countingLoop(true)
  loop.start()
  await until(() => counts.passes >= 4)
  assert.ok(counts.probes >= counts.passes - 1, 'each poll pass was preceded by a probe')
  await loop.close()
})

test('a wake during the probe is not lost when the probe finds nothing', { timeout: 10_000 }, async () => {
  let passes = 0
  let release: (() => void) | undefined
  let probing = false
  const loop = createClaimLoop(async () => { passes++; return false }, {
    pollMs: 5,
    probe: async () => {
      probing = true
      await new Promise<void>((resolve) => { release = resolve })
      probing = false
      return false
    },
    onError: (err) => { throw err }
  })
  loop.start()
  await until(() => passes === 1 && probing)
  loop.wake() // new local work arrives while the poll's probe is out
  release?.()
  await until(() => passes === 2)
  assert.equal(passes, 2, 'the wake got its pass although the probe said "nothing"')
  loop.quiesce()
  release?.()
  await loop.close()
})
