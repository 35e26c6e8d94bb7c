// "Only the newest counts": each run() aborts the previous one's signal, so a newer edit cancels
// the in-flight request (the server cancels the render when the client goes away).
export class Latest {
  private current: AbortController | null = null

  /** Starts a new generation; the previous one's signal fires `abort`. */
  next (): AbortSignal {
    this.current?.abort()
    this.current = new AbortController()
    return this.current.signal
  }
}

/**
 * Debounce with a leading edge: the first call after `ms` of quiet runs `fn` at once (one key
 * pressed after a pause paints without waiting), calls that follow within `ms` of each other
 * are coalesced into one run `ms` after the last of them (a burst of typing renders once more,
 * at its end; the run it supersedes is aborted through Latest). Typing never waits on either.
 */
export function debounce (fn: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined
  let lastCall = -Infinity
  return () => {
    const now = performance.now()
    const quiet = now - lastCall >= ms
    lastCall = now
    if (timer === undefined && quiet) { fn(); return }
    if (timer !== undefined) clearTimeout(timer)
    timer = setTimeout(() => { timer = undefined; fn() }, ms)
  }
}

/**
 * Resolves when the page's main thread is idle (at most `ms` later): lint that runs on the main
 * thread waits for a preview being painted instead of delaying it.
 */
export function idle (ms = 500): Promise<void> {
  return new Promise((resolve) => { requestIdleCallback(() => resolve(), { timeout: ms }) })
}
