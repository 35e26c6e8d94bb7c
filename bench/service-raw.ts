// The in-process side of bench/service.ts: the raw engine in the render pool on all cores
// (no HTTP, no database: the rows were read once beforehand) and the engine's peers in a
// Piscina pool of the same size. Closed loops of `clients` callers.
import { Piscina } from 'piscina'
import type { RenderPool } from '../workers/pool.js'
import type { RenderInput } from '../workers/types.js'
import type { PeerTask } from './peer-task.js'
import type { InvoiceData } from './engine-baselines.js'

export interface LoopResult {
  rate: number
  errors: number
  p50: number
  p99: number
  /** CPU time of this process (all its threads: the pool's workers too) per call. */
  cpuMs: number
}

const pct = (sorted: number[], p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]

/** `clients` callers each calling `call(i)` in turn for `ms`, after `warmMs` not counted. */
export async function closedLoop (
  call: (i: number) => Promise<boolean>,
  clients: number,
  warmMs: number,
  ms: number
): Promise<LoopResult> {
  const start = performance.now()
  const from = start + warmMs
  const until = from + ms
  let next = 0
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
  lat.sort((a, b) => a - b)
  return {
    rate: lat.length / ((performance.now() - from) / 1000),
    errors,
    p50: pct(lat, 0.5),
    p99: pct(lat, 0.99),
    cpuMs: (c.user + c.system) / 1000 / Math.max(1, next)
  }
}

export function rawEngine (pool: RenderPool, inputs: RenderInput[]) {
  return async (i: number): Promise<boolean> => (await pool.render(inputs[i % inputs.length])).ok
}

export function peerPool (threads: number) {
  const pool = new Piscina<PeerTask, number>({ filename: new URL('./peer-task.js', import.meta.url).href, minThreads: threads, maxThreads: threads })
  return {
    call: (peer: PeerTask['peer'], data: InvoiceData[]) => async (i: number): Promise<boolean> => (await pool.run({ peer, data: data[i % data.length] })) > 0,
    close: async () => { await pool.destroy() }
  }
}
