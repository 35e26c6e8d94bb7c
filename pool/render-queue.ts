// The one waiting room in front of the render threads. It decides who gets the next free thread:
// interactive renders (a caller waits on the connection) before batch renders (jobs), and among
// interactive renders one FIFO per workspace served round-robin, so a workspace that floods the
// pool delays another by at most one render per thread; jobs the same way among themselves.
// Renders cannot be interrupted, so a free thread is what a newcomer needs: while another
// workspace is active (waiting, or asked for a thread within fairWindowMs), no workspace holds
// more than N−1 of the N threads, whatever the lane; a workspace alone may use all N. With one
// thread there is nothing to keep free: workspaces then take turns, one render each. Piscina
// only ever sees as many tasks as there are threads; this module holds everything that waits.
// No timers of its own but the per-waiter time limit, no I/O: the order is decided and tested here.

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
  /**
   * A workspace takes the last free thread only when no other workspace asked for one within
   * this many ms (nor waits): so a workspace that is active finds a thread free instead of
   * waiting for a whole render of another. 0: only waiting workspaces count.
   */
  fairWindowMs: number
  /** The clock batch renders age by and activity is timed by, in ms; default performance.now. */
  now?: () => number
}

/** A thread is ours until release() (call it exactly once), or the reason there is none. */
export type Admission = { ok: true, release: () => void } | { ok: false, message: string }

interface Waiter { workspace: Lane, since: number, grant: (a: Admission) => void }
/** A workspace with renders running or waiting: interactive and batch, each its own FIFO. */
interface Lane {
  id: string
  /** Interactive and batch renders on a thread. */
  running: number
  batchRunning: number
  waiting: Waiter[]
  batch: Waiter[]
  /** When it last started a render (a count of starts): ties go to the one served longest ago. */
  lastStart: number
}

export interface RenderQueue {
  acquire (workspaceId: string, lane: RenderLane): Admission | Promise<Admission>
  stats (): { running: number, queued: number, interactive: number, batch: number, workspaces: number }
}

const held = (lane: Lane): number => lane.running + lane.batchRunning

export function createRenderQueue (o: RenderQueueOptions): RenderQueue {
  let running = 0
  let interactiveWaiting = 0
  let batchWaiting = 0
  // Workspaces with renders running or waiting; an idle workspace is forgotten at once.
  const lanes = new Map<string, Lane>()
  // Workspaces with renders waiting, per lane, in round-robin order: the head is served next.
  const ring: Lane[] = []
  const batchRing: Lane[] = []
  // When each workspace last asked for a thread, oldest first (re-inserted on every ask).
  const seen = new Map<string, number>()
  let lastWasAged = false
  let starts = 0
  const now = o.now ?? (() => performance.now())

  const laneOf = (id: string): Lane => {
    let lane = lanes.get(id)
    if (lane === undefined) {
      lane = { id, running: 0, batchRunning: 0, waiting: [], batch: [], lastStart: 0 }
      lanes.set(id, lane)
    }
    return lane
  }
  const forgetIfIdle = (lane: Lane): void => {
    if (held(lane) === 0 && lane.waiting.length === 0 && lane.batch.length === 0) lanes.delete(lane.id)
  }
  const touch = (id: string): void => {
    const t = now()
    seen.delete(id)
    seen.set(id, t)
    for (const [key, at] of seen) { if (t - at <= o.fairWindowMs) break; seen.delete(key) }
  }

  /** Whether a workspace other than `lane` waits or asked for a thread within the window. */
  function othersActive (lane: Lane): boolean {
    if (ring.some((l) => l !== lane) || batchRing.some((l) => l !== lane)) return true
    const t = now()
    for (const [key, at] of seen) if (key !== lane.id && t - at <= o.fairWindowMs) return true
    return false
  }

  /** Threads this workspace may hold now: all but one while another is active (one thread: that one). */
  const cap = (lane: Lane): number =>
    o.threads > 1 && held(lane) >= o.threads - 1 && othersActive(lane) ? o.threads - 1 : o.threads
  const mayRun = (lane: Lane): boolean => held(lane) < cap(lane)
  const mayRunInteractive = (lane: Lane): boolean => lane.running < o.workspaceRunning && mayRun(lane)

  /**
   * The waiting workspace holding the fewest threads that may start one now, so a newcomer goes
   * before a workspace already holding threads; among equals the one served longest ago (then
   * ring order), so with one thread a newcomer waits for the render running and no more.
   */
  function pick (queue: Lane[], may: (lane: Lane) => boolean): number {
    let best = -1
    let b: Lane | undefined // queue[best]
    for (let i = 0; i < queue.length; i++) {
      const l = queue[i]! // i < queue.length
      if (!may(l)) continue
      if (b === undefined || held(l) < held(b) || (held(l) === held(b) && l.lastStart < b.lastStart)) {
        best = i
        b = l
      }
    }
    return best
  }

  function take (queue: Lane[], at: number, batch: boolean): Waiter {
    const lane = queue[at]
    if (lane === undefined) throw new Error(`render queue: no lane at ${at}`)
    const list = batch ? lane.batch : lane.waiting
    const waiter = list.shift() as Waiter
    if (batch) batchWaiting--
    else interactiveWaiting--
    queue.splice(at, 1)
    if (list.length > 0) queue.push(lane)
    return waiter
  }

  const hasEligible = (): boolean => ring.some(mayRunInteractive)
  const hasEligibleBatch = (): boolean => batchRing.some(mayRun)

  function start (lane: Lane, batch: boolean): Admission {
    running++
    lane.lastStart = ++starts
    if (batch) lane.batchRunning++
    else lane.running++
    let released = false
    return {
      ok: true,
      release: () => {
        if (released) return
        released = true
        running--
        if (batch) lane.batchRunning--
        else lane.running--
        forgetIfIdle(lane)
        pump()
      }
    }
  }

  /** When the oldest batch render that may run now was queued (called with at least one). */
  function oldestBatch (): number {
    let oldest = Infinity
    for (const lane of batchRing) {
      const first = lane.batch[0]
      if (first !== undefined && mayRun(lane) && first.since < oldest) oldest = first.since
    }
    return oldest
  }

  /** Hands free threads to waiters: an aged batch render every other turn, else round-robin. */
  function pump (): void {
    while (running < o.threads) {
      const b = pick(batchRing, mayRun)
      const i = pick(ring, mayRunInteractive)
      if (b < 0 && i < 0) return
      // The oldest waiting batch render is looked up only when it can decide the turn.
      const aged = b >= 0 && i >= 0 && !lastWasAged && now() - oldestBatch() > o.batchMaxWaitMs
      lastWasAged = aged
      if (b >= 0 && (i < 0 || aged)) {
        const waiter = take(batchRing, b, true)
        waiter.grant(start(waiter.workspace, true))
        continue
      }
      const waiter = take(ring, i, false)
      waiter.grant(start(waiter.workspace, false))
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
    touch(workspaceId)
    const lane = laneOf(workspaceId)
    if (running < o.threads && mayRunInteractive(lane) && lane.waiting.length === 0 && !hasEligible()) {
      return start(lane, false)
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
        since: now(),
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

  function acquireBatch (workspaceId: string): Admission | Promise<Admission> {
    touch(workspaceId)
    const lane = laneOf(workspaceId)
    if (running < o.threads && mayRun(lane) && lane.batch.length === 0 && !hasEligible() && !hasEligibleBatch()) {
      return start(lane, true)
    }
    return new Promise<Admission>((resolve) => {
      if (lane.batch.length === 0) batchRing.push(lane)
      lane.batch.push({ workspace: lane, since: now(), grant: resolve })
      batchWaiting++
    })
  }

  return {
    acquire: (workspaceId, lane) => lane === 'batch' ? acquireBatch(workspaceId) : acquireInteractive(workspaceId),
    stats: () => ({
      running,
      queued: interactiveWaiting + batchWaiting,
      interactive: interactiveWaiting,
      batch: batchWaiting,
      workspaces: lanes.size
    })
  }
}
