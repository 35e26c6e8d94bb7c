// The one mechanism for buffered writes. Natural batching ("group commit"): the first item is
// written at once; items that arrive while that write is in flight wait for it and go together
// in the next write. There is no timer, so an idle service adds no latency and a busy one writes
// fewer, larger statements (one transaction for many jobs instead of one each: fewer round
// trips, commits and context switches on the database's cores). Writers off the request path
// (run history, key use) add a linger (write at most every lingerMs) and background().
//
// Bad items are isolated (isolating): a batch refused for one item's values is written item by
// item, the good ones go in, a bad one fails alone after that one retry and is dropped (logged
// by the writer with its correlation id); nothing retries a refused item forever.

/** A result for one item that failed while the others of its batch succeeded. */
export class ItemFailed {
  readonly error: unknown
  constructor (failure: unknown) { this.error = failure }
}

export interface Isolation<T> {
  /**
   * True when `err` is about the items' values (the database refused a row): only then is the
   * batch split. Without it every failure is split (the batch is one transaction, rolled back).
   * Any other failure (the database away) fails the whole batch as it is.
   */
  isItemFault?: (err: unknown) => boolean
  /** An item refused on its own (after its one retry alone): it is dropped; log it here. */
  onDrop?: (item: T, err: unknown) => void
}

/**
 * Wraps a batch write so one bad item cannot fail the others: when the batch fails, each
 * item is written again alone (rare: the whole batch is one transaction, rolled back).
 */
export function isolating<T, R> (write: (items: T[]) => Promise<R[]>,
  options: Isolation<T> = {}): (items: T[]) => Promise<Array<R | ItemFailed>> {
  const itemFault = (err: unknown): boolean => options.isItemFault?.(err) ?? true
  return async (items) => {
    try {
      return await write(items)
    } catch (err) {
      if (!itemFault(err)) throw err
      if (items.length === 1) { options.onDrop?.(items[0]!, err); throw err }
      const out: Array<R | ItemFailed> = []
      for (const item of items) {
        try {
          const one = await write([item])
          if (one.length !== 1) throw new Error(`a batch write of one item answered ${one.length} results`)
          out.push(one[0] as R)
        } catch (e) {
          if (itemFault(e)) options.onDrop?.(item, e)
          out.push(new ItemFailed(e))
        }
      }
      return out
    }
  }
}

export interface Batcher<T, R> {
  /** Settles with this item's result when the batch it went into has been written. */
  push: (item: T) => Promise<R>
  /** Items waiting or being written. */
  size: () => number
  /** Writes what waits now (linger or not) and settles when the writes in flight are done. */
  flush: () => Promise<void>
}

export interface BatchLimits<T> {
  /** Most items in one write. */
  maxItems?: number
  /**
   * Most total weight (e.g. bytes, to stay under the database's max_allowed_packet) in one write; a heavier single
   * item goes alone.
   */
  maxWeight?: number
  weigh?: (item: T) => number
  /**
   * Writes in flight at once (default 1). A write is several round trips that wait for the
   * database's turn on busy cores; with one in flight the writer becomes the queue's bottleneck
   * (measured: 8-45 ms per job-completion transaction under load), with a few the waits overlap.
   */
  maxWriters?: number
  /**
   * Wait this long after the first waiting item before writing (0, the default: write at once).
   * For writers off the request path, so a steady trickle costs one statement per interval.
   */
  lingerMs?: number
}

interface Pending<T, R> { item: T, resolve: (r: R) => void, reject: (e: unknown) => void }

/**
 * `write` gets a batch within the limits and answers one result per item, in order (an
 * ItemFailed rejects that item alone); if it throws, every item of the batch is rejected.
 */
export function createBatcher<T, R> (
  write: (items: T[]) => Promise<Array<R | ItemFailed>>,
  limits: BatchLimits<T> = {}
): Batcher<T, R> {
  const maxItems = limits.maxItems ?? 64
  const maxWeight = limits.maxWeight ?? Infinity
  const maxWriters = limits.maxWriters ?? 1
  const weigh = limits.weigh
  const lingerMs = limits.lingerMs ?? 0
  let pending: Array<Pending<T, R>> = []
  let writing = 0
  let writers = 0
  let timer: NodeJS.Timeout | undefined
  const inFlight = new Set<Promise<void>>()

  /** How many of the pending items go into the next write (at least one). */
  function take (): number {
    const most = Math.min(pending.length, maxItems)
    if (weigh === undefined) return most
    let total = 0
    for (let i = 0; i < most; i++) {
      total += weigh(pending[i]!.item)
      if (total > maxWeight) return Math.max(1, i)
    }
    return most
  }

  async function writeBatch (batch: Array<Pending<T, R>>): Promise<void> {
    try {
      const results = await write(batch.map((b) => b.item))
      for (const [i, b] of batch.entries()) {
        if (i >= results.length) { b.reject(new Error(`a batch write of ${batch.length} items answered ${results.length} results`)); continue }
        const r = results[i] as R | ItemFailed
        if (r instanceof ItemFailed) b.reject(r.error)
        else b.resolve(r)
      }
    } catch (err) {
      for (const b of batch) b.reject(err)
    }
  }

  /** Starts writes while writers are free and items wait (after the linger, unless forced or full). */
  function pump (force = false): void {
    if (!force && lingerMs > 0 && pending.length > 0 && pending.length < maxItems) {
      if (timer === undefined) {
        timer = setTimeout(() => {
          timer = undefined
          pump(true)
        }, lingerMs)
        timer.unref()
      }
      return
    }
    while (writers < maxWriters && pending.length > 0) {
      const n = take()
      const batch = n === pending.length ? pending : pending.slice(0, n)
      pending = n === pending.length ? [] : pending.slice(n)
      writers++
      writing += batch.length
      const done: Promise<void> = writeBatch(batch).finally(() => {
        writers--
        writing -= batch.length
        inFlight.delete(done)
        pump()
      })
      inFlight.add(done)
    }
  }

  return {
    push (item: T): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        pending.push({ item, resolve, reject })
        pump()
      })
    },
    size: () => pending.length + writing,
    async flush () {
      clearTimeout(timer)
      timer = undefined
      // Until what waits now is written: later pushes (a retry after an outage) are not waited for.
      const waiting = new Set(pending)
      const left = (): boolean => pending.some((p) => waiting.has(p))
      const watched = new Set(inFlight)
      for (;;) {
        const before = new Set(inFlight)
        if (left()) pump(true)
        for (const d of inFlight) if (!before.has(d)) watched.add(d)
        const open = [...watched].filter((d) => inFlight.has(d))
        if (open.length === 0 && !left()) return
        // Writers all busy with later writes: wait for one to free up, then start ours.
        if (open.length === 0) await Promise.race(inFlight)
        else await Promise.allSettled(open)
      }
    }
  }
}

/**
 * A batcher whose callers do not wait (run history, key use): an item whose batch failed for
 * an outage (not for its own values) is pushed again for the next write, at most `maxKept`
 * items held; an item refused for its values was dropped by isolating().
 */
export function background<T> (b: Batcher<T, unknown>,
  options: { isItemFault: (err: unknown) => boolean, maxKept: number, onFull?: () => void }) {
  let closed = false
  function record (item: T): void {
    if (b.size() >= options.maxKept) { options.onFull?.(); return }
    b.push(item).catch((err: unknown) => {
      // Kept for the next write while the process runs (the database may be back by then).
      if (!options.isItemFault(err) && !closed) record(item)
    })
  }
  return {
    record,
    flush: b.flush,
    /** Writes what waits; after this, a failed write is not retried (the process is ending). */
    async close (): Promise<void> { await b.flush(); closed = true }
  }
}
