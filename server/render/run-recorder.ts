// Run history off the hot path: sync runs are buffered and written in one multi-row INSERT
// every flushMs (or when the buffer fills). close() flushes, so a clean shutdown loses nothing;
// a failed write is retried on the next flush; a crash can lose at most one interval of
// sync-run history, never a job or a document.
import type { RunRecord, RunsRepo } from '../store/repos/runs.js'

export function runRecorder (runs: RunsRepo, db: Parameters<RunsRepo['insertMany']>[0], options: { flushMs?: number, maxBuffer?: number, maxKept?: number, onError?: (err: unknown) => void } = {}) {
  const flushMs = options.flushMs ?? 250
  const maxBuffer = options.maxBuffer ?? 500
  const maxKept = options.maxKept ?? 50_000
  let buffer: RunRecord[] = []
  let flushing: Promise<void> = Promise.resolve()

  const flush = (): Promise<void> => {
    if (buffer.length === 0) return flushing
    const batch = buffer
    buffer = []
    flushing = flushing.then(async () => {
      try {
        await runs.insertMany(db, batch)
      } catch (err) {
        options.onError?.(err)
        // Keep the runs for the next flush (the database may be back by then), bounded so a
        // long outage cannot grow memory without end: past the bound the oldest are dropped.
        buffer = batch.concat(buffer).slice(-maxKept)
      }
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
