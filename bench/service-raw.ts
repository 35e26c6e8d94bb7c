// The in-process side of bench/service.ts: the raw engine in the render pool on all cores
// (no HTTP, no database: the rows were read once beforehand) and the engine's peers in a
// Piscina pool of the same size. Closed loops of `clients` callers.
import { Piscina } from 'piscina'
import type { RenderPool } from '../pool/render-pool.js'
import type { RenderInput } from '../engine/types.js'
import type { PeerTask } from './peer-task.js'
import type { InvoiceData } from './engine-baselines.js'
import { nth } from './stats.js'

export interface LoopResult {
  rate: number
  errors: number
  p50: number
  p99: number
  /** CPU time of this process (all its threads: the pool's workers too) per call. */
  cpuMs: number
}

const pct = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN

/** Calls, latencies and CPU of one stretch of a closed loop. */
interface Stretch { lat: number[], errors: number, calls: number, cpuUs: number, seconds: number }

/** `clients` callers calling `call(i)` for `ms` after `warmMs` not counted; i goes on from `first`. */
async function stretch (
  call: (i: number) => Promise<boolean>, clients: number, warmMs: number, ms: number, first: number
): Promise<Stretch> {
  const start = performance.now()
  const from = start + warmMs
  const until = from + ms
  let next = first
  let errors = 0
  const lat: number[] = []
  const c0 = process.cpuUsage()
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (;;) {
        const t0 = performance.now()
        if (t0 >= until) return
        const ok = await call(next++)
        const t1 = performance.now()
        if (t0 >= from) {
          lat.push(t1 - t0)
          if (!ok) errors++
        }
      }
    })
  )
  const c = process.cpuUsage(c0)
  return { lat, errors, calls: next - first, cpuUs: c.user + c.system, seconds: (performance.now() - from) / 1000 }
}

/**
 * `clients` callers each calling `call(i)` in turn for `ms`, after `warmMs` not counted. With
 * `midway`, the loop runs half of `ms`, stops (its calls finished), awaits `midway()` and runs
 * the other half after a warm-up of its own: the figures are of both halves together, so they
 * bracket what `midway` measured. The machine's speed drifts by ~20% from one 10 s window to the
 * next (measured on an idle server): a baseline taken before and after a measurement is paired
 * with it more closely than one taken only before.
 */
export async function closedLoop (
  call: (i: number) => Promise<boolean>,
  clients: number,
  warmMs: number,
  ms: number,
  midway?: () => Promise<void>
): Promise<LoopResult> {
  const parts = [await stretch(call, clients, warmMs, midway === undefined ? ms : ms / 2, 0)]
  if (midway !== undefined) {
    await midway()
    parts.push(await stretch(call, clients, warmMs, ms / 2, nth(parts, 0).calls))
  }
  const lat = parts.flatMap((p) => p.lat).sort((a, b) => a - b)
  const sum = (f: (p: Stretch) => number): number => parts.reduce((n, p) => n + f(p), 0)
  return {
    rate: lat.length / sum((p) => p.seconds),
    errors: sum((p) => p.errors),
    p50: pct(lat, 0.5),
    p99: pct(lat, 0.99),
    cpuMs: sum((p) => p.cpuUs) / 1000 / Math.max(1, sum((p) => p.calls))
  }
}

export function rawEngine (pool: RenderPool, inputs: RenderInput[]) {
  return async (i: number): Promise<boolean> => (await pool.render(nth(inputs, i))).ok
}

export function peerPool (threads: number) {
  const filename = new URL('./peer-task.js', import.meta.url).href
  const pool = new Piscina<PeerTask, number>({ filename, minThreads: threads, maxThreads: threads })
  return {
    call: (peer: PeerTask['peer'], data: InvoiceData[]) =>
      async (i: number): Promise<boolean> => (await pool.run({ peer, data: nth(data, i) })) > 0,
    close: async () => { await pool.destroy() }
  }
}
