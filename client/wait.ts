// waitForJob's schedule, as Part 4 advises: every one or two seconds at first, then less often,
// until succeeded or failed, within an overall deadline and an AbortSignal.
import { setTimeout as sleep } from 'node:timers/promises'
import { JobTimeoutError, NetworkError, ProblemError } from './problem.js'
import type { RenderJob } from './types.js'

export interface WaitOptions {
  /** Give up (JobTimeoutError) this long after the call (default 5 minutes). */
  timeoutMs?: number
  signal?: AbortSignal
  /** First intervals (default 1 s, 1 s, then 2 s, 2 s); then ×1.5 up to maxIntervalMs (default 15 s). */
  initialIntervalMs?: number
  maxIntervalMs?: number
  /** Told after every poll (progress bars, logs). */
  onPoll?: (job: RenderJob) => void
}

/** The wait before poll `n` (0-based). */
export function pollInterval (n: number, initialMs = 1000, maxMs = 15_000): number {
  const steps = [1, 1, 2, 2]
  const step = steps[n]
  const ms = step !== undefined ? initialMs * step : initialMs * 2 * 1.5 ** (n - steps.length + 1)
  return Math.min(maxMs, Math.round(ms))
}

export const isFinal = (job: RenderJob): boolean => job.status === 'succeeded' || job.status === 'failed'

/** Polls `get` until the job is final. Transient failures of a poll (429, 503, no answer after the
 *  transport's own retries) do not end the wait: the next poll comes at the next interval. */
export async function waitFor (
  get: (signal?: AbortSignal) => Promise<RenderJob>,
  first: RenderJob | undefined,
  options: WaitOptions
): Promise<RenderJob> {
  const { signal } = options
  const deadline = Date.now() + (options.timeoutMs ?? 300_000)
  let job = first
  let lastError: unknown
  for (let n = 0; job === undefined || !isFinal(job); n++) {
    if (job !== undefined || n > 0) {
      const left = deadline - Date.now()
      if (left <= 0) {
        if (job === undefined) throw lastError
        throw new JobTimeoutError(job)
      }
      await sleep(Math.min(left, pollInterval(n, options.initialIntervalMs, options.maxIntervalMs)), undefined, {
        signal
      })
    }
    try {
      job = await get(signal)
    } catch (err) {
      const transient =
        err instanceof NetworkError || (err instanceof ProblemError && (err.status === 429 || err.status === 503))
      if (!transient) throw err
      lastError = err
      continue
    }
    options.onPoll?.(job)
  }
  return job
}
