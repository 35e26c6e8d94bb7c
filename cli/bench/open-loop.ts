// Open loop (wrk2): request i is due at start + i/rate whatever happened to earlier requests,
// and its latency counts from that intended time, not from when it actually left. A request
// that could not be sent on time (server stalled, all connections busy, our own timers late)
// therefore carries the wait it would have had in front of a real user: the coordinated-
// omission correction. Requests queue in the undici pool when every connection is busy.
import { performance } from 'node:perf_hooks'
import type { Operation } from './operation.js'

/** Shared by the loops: `endAt` (performance.now() ms) moves earlier when the run is stopped. */
export interface Clock { endAt: number }

export interface OpenLoopStats { sendLagMax: number }

export async function openLoop (
  op: Operation,
  rate: number,
  startAt: number,
  clock: Clock,
  stats: OpenLoopStats
): Promise<void> {
  const interval = 1000 / rate
  let index = 0
  let pending = 0
  let drained: (() => void) | undefined
  const settle = (): void => {
    if (--pending === 0 && drained !== undefined) drained()
  }
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now()
      // Catch up on everything due: timers fire late under load and that lateness is measured.
      for (;;) {
        const intended = startAt + index * interval
        if (intended >= clock.endAt) {
          resolve()
          return
        }
        if (intended > now) break
        if (now - intended > stats.sendLagMax) stats.sendLagMax = now - intended
        pending++
        op(index++, intended).then(settle, settle)
      }
      setTimeout(tick, Math.max(0, startAt + index * interval - performance.now()))
    }
    tick()
  })
  if (pending > 0) {
    await new Promise<void>((resolve) => {
      drained = resolve
    })
  }
}
