// Text output of `svc bench`: the summary table for people and the one-line live progress.
import type { BenchProgress, BenchResult, LatencySummary } from './types.js'

const fixed = (v: number): string => v.toFixed(2)

function bytes (n: number): string {
  const units = ['B', 'KB', 'MB', 'GB']
  let i = 0
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++ }
  return `${i === 0 ? n : n.toFixed(1)} ${units[i]}`
}

function counts (map: Record<string, number>): string {
  const entries = Object.entries(map).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1])
  return entries.length === 0 ? '-' : entries.map(([k, v]) => `${k}: ${v}`).join(', ')
}

function latencyRows (label: string, s: LatencySummary): string[] {
  return [label, fixed(s.p50), fixed(s.p90), fixed(s.p99), fixed(s.p999), fixed(s.max), fixed(s.mean)]
}

function grid (rows: string[][]): string[] {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((r) => r[c]?.length ?? 0)))
  return rows.map((r) => r.map((v, c) => c === 0 ? v.padEnd(widths[c] ?? 0) : v.padStart(widths[c] ?? 0)).join('  '))
}

export function formatSummary (r: BenchResult): string[] {
  const loop = r.mode === 'open' ? `open loop at ${r.rate}/s over ${r.connections} connections` : `closed loop, ${r.connections} connections`
  const lines = [
    `svc bench ${r.url}: ${r.async ? 'async' : 'sync'} render of ${r.template}, ${loop}`,
    `window ${(r.durationMs / 1000).toFixed(1)} s after ${(r.warmupMs / 1000).toFixed(1)} s warm-up`,
    '',
    ...grid([
      ['latency (ms)', 'p50', 'p90', 'p99', 'p99.9', 'max', 'mean'],
      latencyRows(r.async ? 'submit' : 'render', r.latency),
      ...(r.asyncResult === null ? [] : [latencyRows('submit→done', r.asyncResult.completion)])
    ]),
    ''
  ]
  const rows: Array<[string, string]> = [
    [r.async ? 'jobs' : 'requests', `${r.total} (${fixed(r.requestsPerSec)}/s)`],
    ['errors', `${r.errors} (${(r.errorRate * 100).toFixed(2)}%, limit ${(r.maxErrorRate * 100).toFixed(2)}%)`],
    ['throughput', `${bytes(r.bytesPerSec)}/s (${bytes(r.bytes)} read)`],
    ['statuses', counts(r.statuses)],
    ['error codes', counts(r.errorCodes)]
  ]
  if (r.asyncResult !== null) {
    rows.push(['job outcomes', counts(r.asyncResult.outcomes)], ['polls', `${r.asyncResult.polls} (statuses ${counts(r.asyncResult.pollStatuses)})`])
  }
  if (r.sendLagMaxMs !== null) rows.push(['max send lag', `${fixed(r.sendLagMaxMs)} ms`])
  const width = Math.max(...rows.map(([k]) => k.length))
  for (const [k, v] of rows) lines.push(`${k.padEnd(width)}  ${v}`)
  lines.push('', r.passed
    ? 'PASS'
    : r.abortedEarly !== null
      ? `FAIL: stopped early, the first ${r.abortedEarly.answers} answers were all ${r.abortedEarly.errorCode}`
      : r.total === 0 ? 'FAIL: nothing was measured' : `FAIL: error rate above ${r.maxErrorRate}`)
  return lines
}

export function formatProgress (p: BenchProgress): string {
  const phase = p.warmingUp ? 'warm-up ' : ''
  return `${phase}${(p.elapsedMs / 1000).toFixed(0)}s  ${p.requests} requests  ${p.rate.toFixed(0)}/s  ${p.errors} errors`
}
