// runBench: the load generator as a library function (the `svc bench` command and `make bench`
// both call it). Warm-up, then the measured window, in a closed or an open loop, sync or async.
import { performance } from 'node:perf_hooks'
import { createBenchApi } from './api.js'
import { Recorder } from './recorder.js'
import { renderBodies, syncOperation } from './operation.js'
import { asyncOperation } from './async-poll.js'
import { closedLoop } from './closed-loop.js'
import { openLoop } from './open-loop.js'
import type { Clock, OpenLoopStats } from './open-loop.js'
import { buildResult } from './summary.js'
import type { BenchHooks, BenchOptions, BenchResult } from './types.js'

/** Pool size for the open loop when -c is not given: ~100 ms of work per connection. */
export function openLoopConnections (rate: number): number {
  return Math.max(32, Math.min(1024, Math.ceil(rate / 10)))
}

export interface RunHooks extends BenchHooks {
  /** Aborting stops sending new requests; the ones in flight finish and are counted. */
  signal?: AbortSignal
}

export async function runBench (options: BenchOptions, hooks: RunHooks = {}): Promise<BenchResult> {
  const connections = options.connections
  const client = createBenchApi({ ...options, connections })
  const bodies = renderBodies(options)
  const startedAt = new Date()
  const t0 = performance.now()
  const measureFrom = t0 + options.warmupMs
  const clock: Clock = { endAt: measureFrom + options.durationMs }
  const stop = (): void => { clock.endAt = Math.min(clock.endAt, performance.now()) }
  const rec = new Recorder(measureFrom, hooks, options.abortAfter ?? 0, stop)
  const op = options.async
    ? asyncOperation(client, bodies, rec, options.jobTimeoutMs)
    : syncOperation(client, bodies, rec)
  hooks.signal?.addEventListener('abort', stop, { once: true })
  if (hooks.signal?.aborted === true) stop()

  let lastCompleted = 0
  let lastTick = t0
  const progress = hooks.onProgress === undefined
    ? undefined
    : setInterval(() => {
      const now = performance.now()
      hooks.onProgress?.({
        elapsedMs: now - t0,
        warmingUp: now < measureFrom,
        requests: rec.total,
        errors: rec.errors,
        rate: ((rec.completedAll - lastCompleted) * 1000) / (now - lastTick)
      })
      lastCompleted = rec.completedAll
      lastTick = now
    }, 1000)
  const openStats: OpenLoopStats = { sendLagMax: 0 }
  try {
    if (options.rate === undefined) await closedLoop(op, connections, clock)
    else await openLoop(op, options.rate, t0, clock, openStats)
  } finally {
    if (progress !== undefined) clearInterval(progress)
    hooks.signal?.removeEventListener('abort', stop)
    await client.close()
  }
  // The window ends when the last counted operation completed (never before the planned end,
  // unless stopped early): requests per second divide by the time the counted work really took.
  const end = Math.max(clock.endAt, rec.lastCompletion)
  const durationMs = Math.max(0, end - measureFrom)
  return buildResult(
    options,
    rec,
    startedAt,
    durationMs,
    connections,
    options.rate === undefined ? null : openStats.sendLagMax
  )
}
