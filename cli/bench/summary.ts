// Turns a finished Recorder into the BenchResult JSON document.
import { summarize } from './histogram.js'
import type { Recorder } from './recorder.js'
import type { BenchOptions, BenchResult } from './types.js'

const round = (v: number, digits = 2): number => { const f = 10 ** digits; return Math.round(v * f) / f }

export function buildResult (
  options: BenchOptions,
  rec: Recorder,
  startedAt: Date,
  durationMs: number,
  connections: number,
  sendLagMax: number | null
): BenchResult {
  const seconds = durationMs / 1000
  const errorRate = rec.total === 0 ? 0 : rec.errors / rec.total
  return {
    mode: options.rate === undefined ? 'closed' : 'open',
    async: options.async,
    url: options.url,
    template: options.template,
    connections,
    rate: options.rate ?? null,
    startedAt: startedAt.toISOString(),
    warmupMs: options.warmupMs,
    durationMs: Math.round(durationMs),
    total: rec.total,
    errors: rec.errors,
    errorRate: round(errorRate, 6),
    maxErrorRate: options.maxErrorRate,
    // Nothing measured is a failure too: a bench that sent nothing proves nothing.
    passed: rec.total > 0 && errorRate <= options.maxErrorRate && rec.abortedEarly === null,
    requestsPerSec: seconds > 0 ? round(rec.total / seconds) : 0,
    bytes: rec.bytes,
    bytesPerSec: seconds > 0 ? Math.round(rec.bytes / seconds) : 0,
    latency: summarize(rec.latency),
    statuses: { ...rec.statuses },
    errorCodes: { ...rec.errorCodes },
    sendLagMaxMs: sendLagMax === null ? null : round(sendLagMax, 3),
    asyncResult: options.async
      ? {
          completion: summarize(rec.completion),
          outcomes: { ...rec.outcomes },
          polls: rec.polls,
          pollStatuses: { ...rec.pollStatuses }
        }
      : null,
    abortedEarly: rec.abortedEarly
  }
}
