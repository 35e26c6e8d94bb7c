// The retry policy of jobs: which failures are worth another attempt, and how long to wait.
// The queue's SQL (store/repos/jobs.ts) only carries out the decision (release with not_before).
import type { ErrorCode } from '../errors.js'

/** Failures that another attempt may not meet (a data source back, a free render thread, a blip). */
export function isTransient (code: ErrorCode): boolean {
  return code === 'DATA_SOURCE_UNAVAILABLE' || code === 'RENDER_BUSY' || code === 'INTERNAL_ERROR'
}

/** Backoff before retry n+1 after `attempts` claims: base, 2·base, 4·base … capped at 60 s. */
export function retryDelayMs (attempts: number, baseMs = 1000): number {
  return Math.min(60_000, baseMs * 2 ** Math.max(0, Math.min(attempts - 1, 30)))
}
