// Counts what the loops observe. One recorder per run; `counted(intendedStart)` decides whether
// an operation belongs to the measurement (intended to start after the warm-up).
import type { Histogram } from 'hdr-histogram-js'
import { createHistogram } from './histogram.js'
import type { BenchHooks } from './types.js'

export class Recorder {
  readonly latency: Histogram = createHistogram()
  readonly completion: Histogram = createHistogram()
  readonly statuses: Record<string, number> = {}
  readonly pollStatuses: Record<string, number> = {}
  readonly errorCodes: Record<string, number> = {}
  readonly outcomes = { succeeded: 0, failed: 0, submitFailed: 0, pollFailed: 0, timedOut: 0 }
  total = 0
  errors = 0
  bytes = 0
  polls = 0
  /** All completions, warm-up included, for the progress rate. */
  completedAll = 0
  lastCompletion = 0
  /** Set when the first `abortAfter` answers all failed with one errorCode. */
  abortedEarly: { errorCode: string, answers: number } | null = null
  private answers = 0
  private streak: string | null | undefined
  private readonly onSample: BenchHooks['onSample']

  /** `onAbort` is called once when the first `abortAfter` answers (0: never) share one error. */
  constructor (
    readonly measureFrom: number,
    hooks: BenchHooks,
    private readonly abortAfter = 0,
    private readonly onAbort?: () => void
  ) {
    this.onSample = hooks.onSample
  }

  /** Every render or submit answer, warm-up included (undefined = success). */
  answer (errorCode: string | undefined): void {
    if (this.streak === null || this.answers >= this.abortAfter) return
    this.answers++
    if (errorCode === undefined || (this.streak !== undefined && this.streak !== errorCode)) {
      this.streak = null
      return
    }
    this.streak = errorCode
    if (this.answers === this.abortAfter) {
      this.abortedEarly = { errorCode, answers: this.answers }
      this.onAbort?.()
    }
  }

  counted (intendedStart: number): boolean {
    return intendedStart >= this.measureFrom
  }

  /** One render or submit request. `ok` = the operation as a whole succeeded. */
  request (latencyMs: number, status: number, errorCode: string | undefined): void {
    const key = status === 0 ? 'network' : String(status)
    this.statuses[key] = (this.statuses[key] ?? 0) + 1
    const us = Math.max(1, Math.round(latencyMs * 1000))
    this.latency.recordValue(us)
    if (errorCode !== undefined) this.code(errorCode)
    this.onSample?.(us, key)
  }

  poll (status: number, errorCode: string | undefined): void {
    this.polls++
    const key = status === 0 ? 'network' : String(status)
    this.pollStatuses[key] = (this.pollStatuses[key] ?? 0) + 1
    if (errorCode !== undefined) this.code(errorCode)
  }

  code (errorCode: string): void {
    this.errorCodes[errorCode] = (this.errorCodes[errorCode] ?? 0) + 1
  }

  /** End of one operation (render, or job followed to its end). */
  done (ok: boolean, now: number): void {
    this.total++
    if (!ok) this.errors++
    if (now > this.lastCompletion) this.lastCompletion = now
  }
}
