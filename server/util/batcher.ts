// Natural batching ("group commit"): the first item is written at once; items that arrive
// while that write is in flight wait for it and go together in the next write. There is no
// timer, so an idle service adds no latency and a busy one writes fewer, larger statements
// (one transaction for many jobs instead of one each: fewer round trips, commits and
// context switches on the database's cores).

/** A result for one item that failed while the others of its batch succeeded. */
export class ItemFailed {
  constructor (readonly error: unknown) {}
}

/**
 * Wraps a batch write so one bad item cannot fail the others: when the batch fails, each
 * item is written again alone (rare: the whole batch is one transaction, rolled back).
 */
export function isolating<T, R> (write: (items: T[]) => Promise<R[]>): (items: T[]) => Promise<Array<R | ItemFailed>> {
  return async (items) => {
    try {
      return await write(items)
    } catch (err) {
      if (items.length === 1) throw err
      const out: Array<R | ItemFailed> = []
      for (const item of items) {
        try {
          out.push((await write([item]))[0])
        } catch (e) {
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
}

export interface BatchLimits<T> {
  /** Most items in one write. */
  maxItems?: number
  /** Most total weight (e.g. bytes, to stay under the database's max_allowed_packet) in one write; a heavier single item goes alone. */
  maxWeight?: number
  weigh?: (item: T) => number
  /**
   * Writes in flight at once (default 1). A write is several round trips that wait for the
   * database's turn on busy cores; with one in flight the writer becomes the queue's bottleneck
   * (measured: 8-45 ms per job-completion transaction under load), with a few the waits overlap.
   */
  maxWriters?: number
}

interface Pending<T, R> { item: T, resolve: (r: R) => void, reject: (e: unknown) => void }

/**
 * `write` gets a batch within the limits and answers one result per item, in order (an
 * ItemFailed rejects that item alone); if it throws, every item of the batch is rejected.
 */
export function batcher<T, R> (write: (items: T[]) => Promise<Array<R | ItemFailed>>, limits: BatchLimits<T> = {}): Batcher<T, R> {
  const maxItems = limits.maxItems ?? 64
  const maxWeight = limits.maxWeight ?? Infinity
  const maxWriters = limits.maxWriters ?? 1
  const weigh = limits.weigh
  let pending: Array<Pending<T, R>> = []
  let writing = 0
  let writers = 0

  /** How many of the pending items go into the next write (at least one). */
  function take (): number {
    const most = Math.min(pending.length, maxItems)
    if (weigh === undefined) return most
    let total = 0
    for (let i = 0; i < most; i++) {
      total += weigh(pending[i].item)
      if (total > maxWeight) return Math.max(1, i)
    }
    return most
  }

  async function writeBatch (batch: Array<Pending<T, R>>): Promise<void> {
    try {
      const results = await write(batch.map((b) => b.item))
      for (let i = 0; i < batch.length; i++) {
        const r = results[i]
        if (r instanceof ItemFailed) batch[i].reject(r.error)
        else batch[i].resolve(r)
      }
    } catch (err) {
      for (const b of batch) b.reject(err)
    }
  }

  /** Starts writes while writers are free and items wait. */
  function pump (): void {
    while (writers < maxWriters && pending.length > 0) {
      const n = take()
      const batch = n === pending.length ? pending : pending.slice(0, n)
      pending = n === pending.length ? [] : pending.slice(n)
      writers++
      writing += batch.length
      void writeBatch(batch).finally(() => {
        writers--
        writing -= batch.length
        pump()
      })
    }
  }

  return {
    push (item: T): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        pending.push({ item, resolve, reject })
        pump()
      })
    },
    size: () => pending.length + writing
  }
}
