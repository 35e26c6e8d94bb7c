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
