// Small helpers the benchmarks share: a median, the load average, round-robin picks.
import { loadavg } from 'node:os'

/** The median of `xs` (of an even count, the upper middle one); NaN for none. */
export function median (xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[s.length >> 1] ?? NaN
}

/** The 1-minute load average (os.loadavg() always has three). */
export function load1 (): number { return loadavg()[0] ?? NaN }

/** Item `i` of `xs` taken round-robin (the i-th call of a closed loop over a few inputs). */
export function nth<T> (xs: readonly T[], i: number): T {
  const x = xs[i % xs.length]
  if (x === undefined) throw new Error('a round-robin pick from an empty list')
  return x
}

/** CPU milliseconds (user + system) per call of `fn`, over `n` calls. */
export function cpuOf (fn: () => void, n: number): number {
  const c0 = process.cpuUsage()
  for (let i = 0; i < n; i++) fn()
  const c = process.cpuUsage(c0)
  return (c.user + c.system) / 1000 / n
}

/** CPU per call of a baseline and of variants measured beside it (pairedCpu). */
export interface Paired {
  /** Median over the rounds of the baseline's CPU ms per call. */
  baseMs: number
  /** The same for each variant, in the order given. */
  ms: number[]
  /** For each variant, the median over the rounds of (its CPU ÷ the baseline's in the same round). */
  ratios: number[]
}

/**
 * The baseline and the variants, each `n` calls a round, `rounds` rounds, the order reversed every
 * other round; each variant's ratio is the median of its per-round ratios to the baseline. Drift in
 * the machine's load falls on both sides of a round alike, so the ratio holds where a ratio of
 * separate medians did not: six fresh processes read the tagged invoice 1.25–1.39× that way and
 * 1.32–1.37× this way (bench/RESULTS.md, 2026-11-27 morning).
 */
export function pairedCpu (base: () => void, variants: ReadonlyArray<() => void>, rounds: number, n: number): Paired {
  const baseRuns: number[] = []
  const runs = variants.map((): number[] => [])
  const ratios = variants.map((): number[] => [])
  for (let round = 0; round < rounds; round++) {
    const forward = round % 2 === 0
    let b = forward ? cpuOf(base, n) : NaN
    const these = variants.map((_, i) => i)
    if (!forward) these.reverse()
    const ms = new Array<number>(variants.length)
    for (const i of these) ms[i] = cpuOf(nth(variants, i), n)
    if (!forward) b = cpuOf(base, n)
    baseRuns.push(b)
    ms.forEach((m, i) => { nth(runs, i).push(m); nth(ratios, i).push(m / b) })
  }
  return { baseMs: median(baseRuns), ms: runs.map(median), ratios: ratios.map(median) }
}
