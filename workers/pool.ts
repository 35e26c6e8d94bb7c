// The render pool: Piscina worker threads running render-task.js. Bounded queue (RENDER_BUSY
// instead of queueing without end), per-render timeout (the worker is terminated and
// replaced), strict FIFO (measured: without it one task starved for 8 s under load).
import { availableParallelism } from 'node:os'
import { LRUCache } from 'lru-cache'
import { Piscina } from 'piscina'
import type { RenderTaskInput, RenderTaskResult } from './render-task.js'
import type { RenderFailure, RenderInput, RenderResult } from './types.js'

export interface RenderPoolOptions {
  /** Worker threads; default os.availableParallelism(). */
  threads?: number
  /** Renders allowed to wait for a thread; default 4 per thread. 0 = no waiting at all. */
  maxQueue?: number
  /** A render (waiting + running) taking longer is aborted with RENDER_TIMEOUT. */
  timeoutMs: number
  /** A batch render waiting longer than this goes before interactive ones; default timeoutMs. */
  batchMaxWaitMs?: number
  /** Called once per render with its lane, time waiting for a thread, time on it, and outcome (metrics). */
  onRender?: (event: RenderEvent) => void
}

export interface RenderEvent {
  lane: RenderLane
  waitMs: number
  renderMs: number
  /** The format rendered, or undefined when the render failed. */
  format: string | undefined
  outcome: 'ok' | RenderFailure['code']
}

export interface RenderPoolStats {
  threads: number
  queued: number
  completed: number
  busy: number
  timeouts: number
  utilization: number
  /** Tasks sent without the template that a worker had to ask for again (NEED_DEFINITION). */
  definitionsResent: number
  /** Threads rendering now, and renders waiting for one by lane. */
  running: number
  waiting: { interactive: number, batch: number }
  maxQueue: number
}

/**
 * `interactive` (a caller waits on the connection: sync renders) goes first and is bounded by
 * maxQueue and by the time limit; `batch` (queued jobs) waits behind it without either bound,
 * since the job loop's concurrency already bounds it, so jobs never fill the waiting room and
 * turn sync callers away with RENDER_BUSY. A batch render that has waited longer than the time
 * limit (batchMaxWaitMs) goes before interactive ones (every other turn at most), so sustained
 * sync load cannot starve jobs.
 */
export type RenderLane = 'interactive' | 'batch'

export interface RenderPool {
  render (input: RenderInput, lane?: RenderLane): Promise<RenderResult>
  stats (): RenderPoolStats
  close (): Promise<void>
}

export function createRenderPool (options: RenderPoolOptions): RenderPool {
  const threads = options.threads ?? availableParallelism()
  const maxQueue = options.maxQueue ?? threads * 4
  const batchMaxWaitMs = options.batchMaxWaitMs ?? options.timeoutMs
  // Resolved next to this module: dist/workers/render-task.js once compiled.
  const filename = new URL('./render-task.js', import.meta.url).href
  const pool = new Piscina<RenderTaskInput, RenderTaskResult>({ filename, minThreads: threads, maxThreads: threads, maxQueue: maxQueue + threads, stricterFIFO: true, concurrentTasksPerWorker: 1,
    // 'async': between tasks a worker returns to its event loop. With Piscina's default 'sync'
    // it blocks in Atomics.wait, so process.nextTick callbacks queued by a render (pdfkit's
    // stream ends) never run and each one keeps its PDFDocument alive: ~50 KB per render, RSS
    // grew by GBs under load (measured).
    atomics: 'async' })
  // The waiting room is ours, not Piscina's: a render is handed to Piscina only when a thread
  // is free, so its time limit counts rendering, not waiting. Waiting is bounded in places
  // (maxQueue → RENDER_BUSY at once) and in time (timeoutMs → RENDER_BUSY): a saturated pool
  // is capacity (503, retry), never a property of the document (422).
  let running = 0
  const waiting: Array<() => void> = []
  const batchWaiting: Array<{ since: number, wake: () => void }> = []
  let busy = 0
  let timeouts = 0
  // Version keys some worker has compiled: later tasks leave the definition out (see
  // render-task.ts). Bounded like the workers' own caches; forgetting only costs a clone.
  const compiled = new LRUCache<string, true>({ max: 4096 })
  let definitionsResent = 0

  const full = (): RenderResult => {
    busy++
    return { ok: false, code: 'RENDER_BUSY', message: `render queue full (${maxQueue} waiting)` }
  }

  /** Resolves true when a thread is ours, false when the wait outlasted timeoutMs. */
  function acquire (): Promise<boolean> | boolean {
    if (running < threads) { running++; return true }
    return new Promise<boolean>((resolve) => {
      const wake = (): void => { clearTimeout(timer); running++; resolve(true) }
      const timer = setTimeout(() => {
        const i = waiting.indexOf(wake)
        if (i >= 0) waiting.splice(i, 1)
        resolve(false)
      }, options.timeoutMs)
      waiting.push(wake)
    })
  }

  function acquireBatch (): Promise<void> | undefined {
    if (running < threads && waiting.length === 0 && batchWaiting.length === 0) { running++; return }
    return new Promise<void>((resolve) => {
      batchWaiting.push({ since: performance.now(), wake: () => { running++; resolve() } })
    })
  }

  // An aged batch render goes first at most every other release: when many jobs age together,
  // interactive renders still get half the threads' turns instead of timing out behind them.
  let lastWasAged = false
  function releaseThread (): void {
    running--
    const batch = batchWaiting[0]
    const aged = batch !== undefined && waiting.length > 0 && performance.now() - batch.since > batchMaxWaitMs && !lastWasAged
    lastWasAged = aged
    if (batch !== undefined && (waiting.length === 0 || aged)) {
      batchWaiting.shift()
      batch.wake()
      return
    }
    waiting.shift()?.()
  }

  async function render (input: RenderInput, lane: RenderLane = 'interactive'): Promise<RenderResult> {
    if (options.onRender === undefined) return await renderOnThread(input, lane)
    const mark = { since: performance.now(), acquired: 0 }
    const r = await renderOnThread(input, lane, mark)
    const end = performance.now()
    const acquired = mark.acquired === 0 ? end : mark.acquired // 0: refused before a thread
    options.onRender({ lane, waitMs: acquired - mark.since, renderMs: end - acquired, format: r.ok ? r.format : undefined, outcome: r.ok ? 'ok' : r.code })
    return r
  }

  async function renderOnThread (input: RenderInput, lane: RenderLane, mark?: { acquired: number }): Promise<RenderResult> {
    if (lane === 'batch') {
      await acquireBatch()
    } else if (running + waiting.length >= threads + maxQueue) {
      return full()
    } else if (!await acquire()) {
      busy++
      return { ok: false, code: 'RENDER_BUSY', message: `no render thread became free within ${options.timeoutMs} ms` }
    }
    if (mark !== undefined) mark.acquired = performance.now()
    const ac = new AbortController()
    const timer = setTimeout(() => ac.abort(), options.timeoutMs)
    try {
      const light = compiled.has(input.versionKey)
      let r = await pool.run(light ? withoutDefinition(input) : input, { signal: ac.signal })
      if (!r.ok && r.code === 'NEED_DEFINITION') {
        // This worker is new (replaced after a timeout) or evicted the version: send it all.
        definitionsResent++
        r = await pool.run(input, { signal: ac.signal })
      }
      if (!r.ok && r.code === 'NEED_DEFINITION') return { ok: false, code: 'RENDER_FAILED', message: 'render worker failed' }
      if (r.ok && !light) compiled.set(input.versionKey, true)
      if (r.ok && !Buffer.isBuffer(r.bytes)) {
        // Structured clone delivers a plain Uint8Array: view the same memory as a Buffer.
        r.bytes = Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength)
      }
      return r
    } catch (err) {
      if (ac.signal.aborted) {
        timeouts++
        return { ok: false, code: 'RENDER_TIMEOUT', message: `render took longer than ${options.timeoutMs} ms` }
      }
      if ((err as Error).message === 'Task queue is at limit') return full()
      return { ok: false, code: 'RENDER_FAILED', message: 'render worker failed' }
    } finally {
      clearTimeout(timer)
      releaseThread()
    }
  }

  return {
    render,
    stats: () => ({
      threads,
      queued: waiting.length + batchWaiting.length,
      completed: pool.completed,
      busy,
      timeouts,
      utilization: pool.utilization,
      definitionsResent,
      running,
      waiting: { interactive: waiting.length, batch: batchWaiting.length },
      maxQueue
    }),
    close: async () => { await pool.destroy() }
  }
}

/** The task without its definition: built field by field, no spread of the caller's object. */
function withoutDefinition (input: RenderInput): RenderTaskInput {
  return { versionKey: input.versionKey, parameters: input.parameters, context: input.context, datasets: input.datasets, limits: input.limits }
}
