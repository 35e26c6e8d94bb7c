// The one waiting room in front of the render threads. It decides who gets the next free thread:
// interactive renders (a caller waits on the connection) before batch renders (jobs), and among
// interactive renders one FIFO per workspace served round-robin, so a workspace that floods the
// pool delays another by at most one render per thread. Piscina only ever sees as many tasks as
// there are threads; this module holds everything that waits. No timers of its own but the
// per-waiter time limit, no I/O: the order is decided here and tested here.

/**
 * `interactive` (sync renders) goes first and is bounded per workspace and in time; `batch`
 * (queued jobs) waits behind it without either bound, since the job loop's concurrency already
 * bounds it, so jobs never fill the waiting room and turn sync callers away. A batch render that
 * has waited longer than batchMaxWaitMs goes before interactive ones every other turn at most,
 * so sustained sync load cannot starve jobs.
 */
export type RenderLane = 'interactive' | 'batch'

export interface RenderQueueOptions {
  threads: number
  /** Interactive renders allowed to wait, all workspaces together. 0 = no waiting at all. */
  maxQueue: number
  /** Interactive renders of one workspace on a thread at once. */
  workspaceRunning: number
  /** Interactive renders of one workspace allowed to wait. */
  workspaceQueue: number
  /** An interactive render waiting longer is refused (capacity: RENDER_BUSY). */
  maxWaitMs: number
  /** A batch render waiting longer than this goes before interactive ones (every other turn). */
  batchMaxWaitMs: number
  /** The clock batch renders age by, in ms; default performance.now (tests move their own). */
  now?: () => number
}

/** A thread is ours until release() (call it exactly once), or the reason there is none. */
export type Admission = { ok: true, release: () => void } | { ok: false, message: string }

interface Waiter { workspace: Lane, grant: (a: Admission) => void }
interface Lane { id: string, running: number, waiting: Waiter[] }
interface BatchWaiter { since: number, grant: (a: Admission) => void }

export interface RenderQueue {
  acquire (workspaceId: string, lane: RenderLane): Admission | Promise<Admission>
  stats (): { running: number, queued: number, interactive: number, batch: number, workspaces: number }
}

export function createRenderQueue (o: RenderQueueOptions): RenderQueue {
  let running = 0
  let interactiveWaiting = 0
  // Workspaces with renders running or waiting; an idle workspace is forgotten at once.
  const lanes = new Map<string, Lane>()
  // Workspaces with interactive renders waiting, in round-robin order: the head is served next.
  const ring: Lane[] = []
  const batch: BatchWaiter[] = []
  let lastWasAged = false
  const now = o.now ?? (() => performance.now())

  const laneOf = (id: string): Lane => {
    let lane = lanes.get(id)
    if (lane === undefined) { lane = { id, running: 0, waiting: [] }; lanes.set(id, lane) }
    return lane
  }
  const forgetIfIdle = (lane: Lane): void => {
    if (lane.running === 0 && lane.waiting.length === 0) lanes.delete(lane.id)
  }

  /**
   * The workspace with the fewest renders running that may start one now (ring order breaks
   * ties), so a newcomer goes before a workspace already holding threads; it moves to the back.
   */
  function nextInteractive (): Waiter | undefined {
    let pick = -1
    for (let i = 0; i < ring.length; i++) {
      const r = ring[i].running
      if (r < o.workspaceRunning && (pick < 0 || r < ring[pick].running)) pick = i
    }
    if (pick < 0) return undefined
    const lane = ring[pick]
    const waiter = lane.waiting.shift() as Waiter
    interactiveWaiting--
    ring.splice(pick, 1)
    if (lane.waiting.length > 0) ring.push(lane)
    return waiter
  }

  const hasEligible = (): boolean => ring.some((lane) => lane.running < o.workspaceRunning)

  function startInteractive (lane: Lane): Admission {
    running++
    lane.running++
    let released = false
    return {
      ok: true,
      release: () => {
        if (released) return
        released = true
        running--
        lane.running--
        forgetIfIdle(lane)
        pump()
      }
    }
  }

  function startBatch (): Admission {
    running++
    let released = false
    return { ok: true, release: () => { if (!released) { released = true; running--; pump() } } }
  }

  /** Hands free threads to waiters: an aged batch render every other turn, else round-robin. */
  function pump (): void {
    while (running < o.threads) {
      const head = batch[0]
      const eligible = hasEligible()
      // The batch queue may be empty; index access may miss at runtime (noUncheckedIndexedAccess is off)
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      const aged = head !== undefined && eligible && now() - head.since > o.batchMaxWaitMs && !lastWasAged
      lastWasAged = aged
      // The batch queue may be empty; index access may miss at runtime (noUncheckedIndexedAccess is off)
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (head !== undefined && (!eligible || aged)) {
        batch.shift()
        head.grant(startBatch())
        continue
      }
      const waiter = nextInteractive()
      if (waiter === undefined) return
      waiter.grant(startInteractive(waiter.workspace))
    }
  }

  function refuse (message: string): Admission { return { ok: false, message } }

  /** Makes room when the whole waiting room is full: the longest workspace queue gives one up. */
  function evictFromLongest (than: Lane): boolean {
    let longest: Lane | undefined
    for (const lane of ring) if (longest === undefined || lane.waiting.length > longest.waiting.length) longest = lane
    // Only a workspace with more waiting than the newcomer would have gives way: fair share.
    if (longest === undefined || longest === than || longest.waiting.length <= than.waiting.length + 1) return false
    const victim = longest.waiting.pop() as Waiter
    interactiveWaiting--
    if (longest.waiting.length === 0) ring.splice(ring.indexOf(longest), 1)
    victim.grant(refuse(`the render queue is full (${o.maxQueue} waiting) and this workspace holds the most of it`))
    return true
  }

  function acquireInteractive (workspaceId: string): Admission | Promise<Admission> {
    const lane = laneOf(workspaceId)
    if (running < o.threads && lane.running < o.workspaceRunning && lane.waiting.length === 0 && !hasEligible()) {
      return startInteractive(lane)
    }
    if (lane.waiting.length >= o.workspaceQueue) {
      forgetIfIdle(lane)
      return refuse(`this workspace has ${lane.waiting.length} renders waiting (limit ${o.workspaceQueue})`)
    }
    if (interactiveWaiting >= o.maxQueue && !evictFromLongest(lane)) {
      forgetIfIdle(lane)
      return refuse(`render queue full (${o.maxQueue} waiting)`)
    }
    return new Promise<Admission>((resolve) => {
      const waiter: Waiter = {
        workspace: lane,
        grant: (a) => { clearTimeout(timer); resolve(a) }
      }
      const timer = setTimeout(() => {
        const i = lane.waiting.indexOf(waiter)
        if (i < 0) return
        lane.waiting.splice(i, 1)
        interactiveWaiting--
        if (lane.waiting.length === 0) ring.splice(ring.indexOf(lane), 1)
        forgetIfIdle(lane)
        resolve(refuse(`no render thread became free within ${o.maxWaitMs} ms`))
      }, o.maxWaitMs)
      if (lane.waiting.length === 0) ring.push(lane)
      lane.waiting.push(waiter)
      interactiveWaiting++
    })
  }

  function acquireBatch (): Admission | Promise<Admission> {
    if (running < o.threads && !hasEligible() && batch.length === 0) return startBatch()
    return new Promise<Admission>((resolve) => { batch.push({ since: now(), grant: resolve }) })
  }

  return {
    acquire: (workspaceId, lane) => lane === 'batch' ? acquireBatch() : acquireInteractive(workspaceId),
    stats: () => ({
      running,
      queued: interactiveWaiting + batch.length,
      interactive: interactiveWaiting,
      batch: batch.length,
      workspaces: lanes.size
    })
  }
}
