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

/** Calls `fn` once `ms` have passed without another call (typing never waits on the network). */
export function debounce (fn: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined
  return () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = setTimeout(fn, ms)
  }
}
