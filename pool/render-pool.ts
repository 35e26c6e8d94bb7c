// The render pool: Piscina worker threads running render-task.js behind the one waiting room
// (render-queue.ts: interactive before batch, workspaces round-robin, per-workspace caps, one
// thread kept free for an active workspace, RENDER_BUSY instead of queueing without end) and a
// per-render timeout (the worker is terminated and replaced).
import { availableParallelism } from 'node:os'
import type { MessagePort } from 'node:worker_threads'
import { LRUCache } from 'lru-cache'
import { Piscina } from 'piscina'
import { createOutputHub, type RenderStream } from './output-hub.js'
import type { OutputChannel } from '../worker/output-protocol.js'
import { createRenderQueue, type RenderLane } from './render-queue.js'
import { Deadline } from '../engine/deadline.js'
import type { RenderTaskInput, RenderTaskResult } from '../worker/task-protocol.js'
import type { RenderFailure, RenderInput, RenderResult, RenderSuccess } from '../engine/types.js'

export interface RenderPoolOptions {
  /** Worker threads; default os.availableParallelism(). */
  threads?: number
  /** Sync renders allowed to wait for a thread, all workspaces; default 4 per thread. 0 = none. */
  maxQueue?: number
  /** Sync renders of one workspace on a thread at once; default all threads (and see fairWindowMs). */
  workspaceRunning?: number
  /** A workspace takes the last free thread only when no other asked for one within this (ms); default 10 s. */
  fairWindowMs?: number
  /** Sync renders of one workspace allowed to wait; default maxQueue. */
  workspaceQueue?: number
  /** A render (waiting + running) taking longer is aborted with RENDER_TIMEOUT. */
  timeoutMs: number
  /** A batch render waiting longer than this goes before interactive ones; default timeoutMs. */
  batchMaxWaitMs?: number
  /** Young generation of each render thread's heap (MB); default 12; 0: V8's default. */
  youngGenerationMb?: number
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
  /** Renders whose rows were fed to the worker while they were read (row-feed.ts). */
  fed: number
  /** Threads rendering now, and renders waiting for one by lane. */
  running: number
  waiting: { interactive: number, batch: number }
  maxQueue: number
}

export type { RenderLane }

export interface RenderTaskOptions {
  /** Default `interactive`. */
  lane?: RenderLane
  /** Whose render this is: the waiting room is shared fairly between workspaces. */
  workspaceId?: string
  /** Stream the output instead of returning it: RenderSuccess.bytes is then empty
   *  (byteLength 0) and the bytes went through onChunk. Failures are still the RenderResult
   *  (a failure after some chunks were delivered: the consumer must discard what it got). */
  stream?: RenderStream
  /** Datasets still being read: the worker's end of a row feed (row-feed.ts), moved with the task. */
  rows?: MessagePort
  /** The caller gave up (the studio's page aborted a stale render): a render still waiting
   *  never starts, a running one is stopped as a timeout is (its worker replaced), so it keeps
   *  no thread. Answered RENDER_FAILED "render cancelled". */
  signal?: AbortSignal
}

export type { RenderStream }

export interface RenderPool {
  render (input: RenderInput, options?: RenderTaskOptions): Promise<RenderResult>
  stats (): RenderPoolStats
  close (): Promise<void>
}

export function createRenderPool (options: RenderPoolOptions): RenderPool {
  const threads = options.threads ?? availableParallelism()
  const maxQueue = options.maxQueue ?? threads * 4
  const batchMaxWaitMs = options.batchMaxWaitMs ?? options.timeoutMs
  // Resolved next to this module: dist/worker/render-task.js once compiled.
  const filename = new URL('../worker/render-task.js', import.meta.url).href
  const pool = new Piscina<RenderTaskInput, RenderTaskResult>({
    filename,
    minThreads: threads,
    maxThreads: threads,
    maxQueue: maxQueue + threads,
    stricterFIFO: true,
    concurrentTasksPerWorker: 1,
    // Piscina loads the task module with require() first. On Node 20.19+ that is require(esm),
    // and a worker terminated while require(esm) instantiates the graph aborts the whole process
    // (FATAL ERROR: v8::Module::IsGraphAsync …): a SIGTERM soon after start did it, reproduced
    // by closing a fresh pool under CPU load. Without require(esm) Piscina falls back to import().
    execArgv: [...process.execArgv, '--no-experimental-require-module'],
    // 'async': between tasks a worker returns to its event loop. With Piscina's default 'sync'
    // it blocks in Atomics.wait, so process.nextTick callbacks queued by a render (pdfkit's
    // stream ends) never run and each one keeps its PDFDocument alive: ~50 KB per render, RSS
    // grew by GBs under load (measured).
    atomics: 'async',
    // V8's default young generation (~48 MB: 16 MB semi-spaces) filled to its maximum in every
    // thread under load, ~25 MB more per thread than a 4 MB semi-space, with no gain: a render's
    // garbage dies young either way (in-process A/B, pool of 2, 16 clients, invoice: 1.77 ms
    // CPU per render default vs 1.66 at 12 MB; 6,000-row report 633 vs 634 ms; RSS 305 → 250 MB).
    resourceLimits: { maxYoungGenerationSizeMb: options.youngGenerationMb ?? 12 }
  })
  // The waiting room is ours, not Piscina's: a render is handed to Piscina only when a thread
  // is free, so its time limit counts rendering, not waiting. Waiting is bounded in places and
  // in time (timeoutMs): a saturated pool is capacity (503, retry), never a property of the
  // document (422).
  const queue = createRenderQueue({
    threads,
    maxQueue,
    workspaceRunning: options.workspaceRunning ?? threads,
    workspaceQueue: options.workspaceQueue ?? maxQueue,
    maxWaitMs: options.timeoutMs,
    batchMaxWaitMs,
    fairWindowMs: options.fairWindowMs ?? 10_000
  })
  let busy = 0
  let timeouts = 0
  // Version keys some worker has compiled: later tasks leave the definition out (see
  // render-task.ts). Bounded like the workers' own caches; forgetting only costs a clone.
  const compiled = new LRUCache<string, true>({ max: 4096 })
  let definitionsResent = 0
  let fed = 0
  // Streamed output comes as the workers' own messages (output-stream.ts).
  const outputs = createOutputHub()
  pool.on('message', (m: unknown) => { outputs.dispatch(m) })

  const full = (message: string): RenderResult => {
    busy++
    return { ok: false, code: 'RENDER_BUSY', message }
  }

  async function render (input: RenderInput, task: RenderTaskOptions = {}): Promise<RenderResult> {
    const lane = task.lane ?? 'interactive'
    if (options.onRender === undefined) {
      return await renderOnThread(input, task.workspaceId ?? '', lane, undefined, task)
    }
    const mark = { since: performance.now(), acquired: 0 }
    const r = await renderOnThread(input, task.workspaceId ?? '', lane, mark, task)
    const end = performance.now()
    const acquired = mark.acquired === 0 ? end : mark.acquired // 0: refused before a thread
    options.onRender({
      lane,
      waitMs: acquired - mark.since,
      renderMs: end - acquired,
      format: r.ok ? r.format : undefined,
      outcome: r.ok ? 'ok' : r.code
    })
    return r
  }

  async function renderOnThread (input: RenderInput, workspaceId: string, lane: RenderLane,
    mark?: { acquired: number }, task: RenderTaskOptions = {}): Promise<RenderResult> {
    const stream = task.stream
    const admission = await queue.acquire(workspaceId, lane)
    if (!admission.ok) return full(admission.message)
    if (mark !== undefined) mark.acquired = performance.now()
    const deadline = new Deadline(options.timeoutMs)
    // The caller's cancel goes through the deadline: Piscina already stops a task on it.
    const cancel = (): void => { deadline.abort() }
    task.signal?.addEventListener('abort', cancel, { once: true })
    if (task.signal?.aborted === true) deadline.abort()
    const receiver = stream === undefined ? undefined : outputs.open(stream, options.timeoutMs)
    try {
      if (task.rows !== undefined) fed++
      // Without the definition once a worker compiled it; a fed task always carries it, as its
      // row feed's port (row-feed.ts) moves once and cannot go with a second try.
      const light = compiled.has(input.versionKey) && task.rows === undefined
      const output = receiver?.channel
      let r = await pool.run(taskInput(input, light, task.rows, output),
        { signal: deadline, transferList: task.rows === undefined ? undefined : [task.rows] })
      if (!r.ok && r.code === 'NEED_DEFINITION') {
        // This worker is new (replaced after a timeout) or evicted the version: send it all.
        // Nothing was written yet, so a stream's receiver serves the second try as well.
        definitionsResent++
        r = await pool.run(taskInput(input, false, undefined, output), { signal: deadline })
      }
      if (!r.ok) {
        // A worker waiting for its consumer (output credit) ends at the same time limit by
        // itself, and may report it before this thread's deadline fires (a busy event loop runs
        // the timer late): that is a timeout too.
        if (r.code === 'RENDER_TIMEOUT') timeouts++
        return r.code === 'NEED_DEFINITION' ? { ok: false, code: 'RENDER_FAILED', message: 'render worker failed' } : r
      }
      if (!light) compiled.set(input.versionKey, true)
      asBuffer(r)
      if (receiver === undefined) return r
      await receiver.complete(r, deadline)
      return { ...r, bytes: EMPTY }
    } catch (err) {
      if (task.signal?.aborted === true) return CANCELLED
      if (deadline.aborted) {
        timeouts++
        return { ok: false, code: 'RENDER_TIMEOUT', message: `render took longer than ${options.timeoutMs} ms` }
      }
      if ((err as Error).message === 'Task queue is at limit') return full('render queue full')
      if (receiver !== undefined && !(err instanceof Error && err.name === 'AbortError')) {
        return { ok: false, code: 'RENDER_FAILED', message: `output stream consumer failed: ${String(err)}` }
      }
      return { ok: false, code: 'RENDER_FAILED', message: 'render worker failed' }
    } finally {
      task.signal?.removeEventListener('abort', cancel)
      receiver?.close()
      deadline.clear()
      admission.release()
    }
  }

  return {
    render,
    stats: () => {
      const q = queue.stats()
      return {
        threads,
        queued: q.queued,
        completed: pool.completed,
        busy,
        timeouts,
        utilization: pool.utilization,
        definitionsResent,
        fed,
        running: q.running,
        waiting: { interactive: q.interactive, batch: q.batch },
        maxQueue
      }
    },
    close: async () => { await pool.destroy() }
  }
}

/** Structured clone delivers a plain Uint8Array: view the same memory as a Buffer. */
function asBuffer (r: RenderSuccess): RenderSuccess {
  if (!Buffer.isBuffer(r.bytes)) r.bytes = Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength)
  return r
}

const EMPTY = Buffer.alloc(0)
const CANCELLED: RenderResult = { ok: false, code: 'RENDER_FAILED', message: 'render cancelled by its caller' }

/**
 * What goes to the worker: the input as it is, or built field by field (no spread of the
 * caller's object) without its definition (`light`), with its row feed's port (datasets read
 * so far go as they are) and its output channel.
 */
function taskInput (input: RenderInput, light: boolean, feed: MessagePort | undefined,
  output: OutputChannel | undefined): RenderTaskInput {
  if (!light && feed === undefined && output === undefined) return input
  return {
    versionKey: input.versionKey,
    definition: light ? undefined : input.definition,
    parameters: input.parameters,
    context: input.context,
    datasets: input.datasets,
    limits: input.limits,
    labelDpi: input.labelDpi,
    feed,
    output
  }
}
