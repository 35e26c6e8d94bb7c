// Latency histograms: HdrHistogram in microseconds with 3 significant digits, so a 5 ms and a
// 30 s latency are both kept to 0.1%; summaries are reported in milliseconds.
import { build } from 'hdr-histogram-js'
import type { Histogram } from 'hdr-histogram-js'
import type { LatencySummary } from './types.js'

export function createHistogram (): Histogram {
  // Pure JS (no WebAssembly init); autoResize covers latencies beyond the initial hour.
  return build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
    autoResize: true,
    useWebAssembly: false
  })
}

const ms = (us: number): number => Math.round(us) / 1000

export function summarize (h: Histogram): LatencySummary {
  if (h.totalCount === 0) return { count: 0, min: 0, mean: 0, stdev: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 }
  // maxValue is the exact largest sample; a percentile is its bucket's highest equivalent value
  // and may pass the max by < 0.1%: cap it so the summary stays ordered.
  const max = h.maxValue
  const at = (p: number): number => ms(Math.min(h.getValueAtPercentile(p), max))
  return {
    count: h.totalCount,
    min: ms(h.minNonZeroValue),
    mean: ms(h.mean),
    stdev: ms(h.stdDeviation),
    p50: at(50),
    p90: at(90),
    p99: at(99),
    p999: at(99.9),
    max: ms(max)
  }
}
