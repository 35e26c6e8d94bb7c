// Run history off the hot path: sync runs are buffered and written in one multi-row INSERT
// every flushMs (or when the buffer fills). close() flushes, so a clean shutdown loses nothing.
// A batch refused for one row's values (a version above the column's range …) is written row by
// row: the good rows go in, a bad row is dropped and logged with its correlation id, so one
// request can never stop everyone's run history. A batch that failed for any other reason (the
// database away) is kept for the next flush, bounded; a crash can lose at most one interval of
// sync-run history, never a job or a document.
import { isRowFault } from '../store/db.js'
import type { RunRecord, RunsRepo } from '../store/repos/runs.js'

export interface RunRecorderOptions {
  flushMs?: number
  maxBuffer?: number
  maxKept?: number
  onError?: (err: unknown) => void
  /** A run the database refuses (logged by the caller with its correlation id), never retried. */
  onDrop?: (run: RunRecord, err: unknown) => void
}

export function runRecorder (runs: RunsRepo, db: Parameters<RunsRepo['insertMany']>[0], options: RunRecorderOptions = {}) {
  const flushMs = options.flushMs ?? 250
  const maxBuffer = options.maxBuffer ?? 500
  const maxKept = options.maxKept ?? 50_000
  let buffer: RunRecord[] = []
  let flushing: Promise<void> = Promise.resolve()

  /** Writes `batch`; answers the runs to try again later (an outage), never a refused one. */
  async function write (batch: RunRecord[]): Promise<RunRecord[]> {
    try {
      await runs.insertMany(db, batch)
      return []
    } catch (err) {
      options.onError?.(err)
      if (!isRowFault(err)) return batch
    }
    // One row's values were refused: each row once alone, so the good ones are written.
    const later: RunRecord[] = []
    for (const run of batch) {
      try {
        await runs.insertMany(db, [run])
      } catch (err) {
        if (isRowFault(err)) options.onDrop?.(run, err)
        else later.push(run)
      }
    }
    return later
  }

  const flush = (): Promise<void> => {
    if (buffer.length === 0) return flushing
    const batch = buffer
    buffer = []
    flushing = flushing.then(async () => {
      const later = await write(batch)
      // Kept for the next flush (the database may be back by then), bounded so a long outage
      // cannot grow memory without end: past the bound the oldest are dropped.
      if (later.length > 0) buffer = later.concat(buffer).slice(-maxKept)
    })
    return flushing
  }
  const timer = setInterval(() => { void flush() }, flushMs)
  timer.unref()

  return {
    record (run: RunRecord): void {
      buffer.push(run)
      if (buffer.length >= maxBuffer) void flush()
    },
    flush,
    async close (): Promise<void> { clearInterval(timer); await flush() }
  }
}
export type RunRecorder = ReturnType<typeof runRecorder>
