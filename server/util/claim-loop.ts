// The one claim loop (start, wake, quiesce, close) of the queues a server process works on: render
// jobs (server/jobs/loop.ts) and webhook deliveries (server/webhooks/dispatcher.ts). One pass at a
// time; a wake during a pass makes another pass follow it at once; after the last pass a poll
// timer (other processes' work, retries coming due) wakes it again. quiesce() stops passes from
// starting; close() also waits for the pass in flight (no busy wait). A timer pass may first ask
// a cheap `probe` (one autocommit read) whether there is anything to claim at all: an idle node
// then costs one statement per poll instead of a claim's transaction (BEGIN, SELECT … FOR UPDATE,
// COMMIT), which every node pays all the time.
export interface ClaimLoop {
  start: () => void
  /** Look now (new work in this process); during a pass, one more pass follows it. */
  wake: () => void
  /** No pass starts any more (the one in flight ends normally). */
  quiesce: () => void
  /** quiesce(), then settles when the pass in flight has ended. */
  close: () => Promise<void>
  /** False before start() and from quiesce() on: a pass that claimed meanwhile hands its work back. */
  readonly accepting: boolean
}

export interface ClaimLoopOptions {
  pollMs: number
  onError: (err: unknown) => void
  /** Called when the poll timer (not a wake) starts a pass. */
  onPoll?: () => void
  /** Asked before a pass the poll timer starts (not a wake): false skips that pass. */
  probe?: () => Promise<boolean>
}

/** `pass` claims and starts work once; it answers true when more is probably waiting (a full claim). */
export function createClaimLoop (pass: () => Promise<boolean>, options: ClaimLoopOptions): ClaimLoop {
  let accepting = false
  let running: Promise<void> | undefined
  let again = false
  let timer: NodeJS.Timeout | undefined
  const woken = (): boolean => again

  function schedule (): void {
    if (!accepting) return
    clearTimeout(timer)
    timer = setTimeout(() => { timer = undefined; options.onPoll?.(); begin(true) }, options.pollMs)
    timer.unref()
  }

  async function passes (polled: boolean): Promise<void> {
    try {
      again = false
      // A wake() during the probe (it sets `again`, from another async task) still gets its pass.
      if (polled && options.probe !== undefined && !(await options.probe()) && !woken()) return
      do {
        again = false
        if (await pass()) again = true
        // eslint-disable-next-line no-unmodified-loop-condition -- `accepting` is changed by another async task
      } while (again && accepting)
    } catch (err) {
      options.onError(err)
    }
  }

  function begin (polled: boolean): void {
    if (!accepting) return
    if (running !== undefined) { again = true; return }
    clearTimeout(timer)
    running = passes(polled).finally(() => { running = undefined; schedule() })
  }
  function wake (): void { begin(false) }

  function quiesce (): void {
    accepting = false
    clearTimeout(timer)
  }

  return {
    start () {
      if (accepting) return
      accepting = true
      wake()
    },
    wake,
    quiesce,
    async close () {
      quiesce()
      await running
    },
    get accepting () { return accepting }
  }
}
