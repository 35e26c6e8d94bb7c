// Run history off the hot path: runs are buffered and written in one multi-row INSERT every
// flushMs (or when maxBuffer wait), through the one batcher (util/batcher.ts). close() flushes,
// so a clean shutdown loses nothing. A batch refused for one row's values (a version above the
// column's range …) is written row by row: the good rows go in, a bad row is dropped and logged
// with its correlation id, so one request can never stop everyone's run history. A batch that
// failed for any other reason (the database away) is kept for the next write, bounded; a crash
// can lose at most one interval of sync-run history, never a job or a document.
import { isRowFault } from '../store/db.js'
import { background, createBatcher, isolating } from '../util/batcher.js'
import type { RunRecord, RunsRepo } from '../store/repos/runs.js'

export interface RunRecorderOptions {
  flushMs?: number
  maxBuffer?: number
  maxKept?: number
  onError?: (err: unknown) => void
  /** A run the database refuses (logged by the caller with its correlation id), never retried. */
  onDrop?: (run: RunRecord, err: unknown) => void
}

export interface RunRecorder {
  record: (item: RunRecord) => void
  flush: () => Promise<void>
  close(): Promise<void>
}

export function createRunRecorder (runs: RunsRepo, db: Parameters<RunsRepo['insertMany']>[0],
  options: RunRecorderOptions = {}): RunRecorder {
  const write = isolating<RunRecord, undefined>(async (batch) => {
    try {
      await runs.insertMany(db, batch)
    } catch (err) {
      options.onError?.(err)
      throw err
    }
    return batch.map(() => undefined)
  }, { isItemFault: isRowFault, onDrop: options.onDrop })
  const writer = createBatcher<RunRecord, undefined>(write, {
    lingerMs: options.flushMs ?? 250,
    maxItems: options.maxBuffer ?? 500
  })
  // Past maxKept (a long outage) new runs are dropped, so memory stays bounded.
  return background(writer, {
    isItemFault: isRowFault,
    maxKept: options.maxKept ?? 50_000,
    onFull: () => options.onError?.(new Error('run history buffer full; run dropped'))
  })
}
