// The one claim loop (start, wake, quiesce, close) of the queues a server process works on: render
// jobs (server/jobs/loop.ts) and webhook deliveries (server/webhooks/dispatcher.ts). One pass at a
// time; a wake during a pass makes another pass follow it at once; after the last pass a poll
// timer (other processes' work, retries coming due) wakes it again. quiesce() stops passes from
// starting; close() also waits for the pass in flight (no busy wait).
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
}

/** `pass` claims and starts work once; it answers true when more is probably waiting (a full claim). */
export function claimLoop (pass: () => Promise<boolean>, options: ClaimLoopOptions): ClaimLoop {
  let accepting = false
  let running: Promise<void> | undefined
  let again = false
  let timer: NodeJS.Timeout | undefined

  function schedule (): void {
    if (!accepting) return
    clearTimeout(timer)
    timer = setTimeout(() => { timer = undefined; options.onPoll?.(); wake() }, options.pollMs)
    timer.unref()
  }

  async function passes (): Promise<void> {
    try {
      do {
        again = false
        if (await pass()) again = true
        // `accepting` is changed by another async task.
        // eslint-disable-next-line no-unmodified-loop-condition
      } while (again && accepting)
    } catch (err) {
      options.onError(err)
    }
  }

  function wake (): void {
    if (!accepting) return
    if (running !== undefined) { again = true; return }
    clearTimeout(timer)
    running = passes().finally(() => { running = undefined; schedule() })
  }

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
