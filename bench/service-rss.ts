// The server's resident memory over a long sync load (issue target: ≤ 250 MB after 60 s of 16
// clients): VmRSS of the server process from /proc, sampled every `everyMs` while `load` runs.
import { readFileSync } from 'node:fs'

export interface RssPoint { seconds: number, rssMb: number }

/** VmRSS of a process in MB (NaN when it cannot be read). */
export function rssMb (pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m === null ? NaN : Number(m[1]) / 1024
  } catch { return NaN }
}

/** Runs `load` and samples the server's RSS at its start, every `everyMs`, and at its end. */
export async function rssCurve<T> (pid: number, everyMs: number,
  load: () => Promise<T>): Promise<{ result: T, curve: RssPoint[] }> {
  const t0 = performance.now()
  const curve: RssPoint[] = []
  const sample = (): void => { curve.push({ seconds: (performance.now() - t0) / 1000, rssMb: rssMb(pid) }) }
  sample()
  const timer = setInterval(sample, everyMs)
  try {
    const result = await load()
    return { result, curve }
  } finally {
    clearInterval(timer)
    sample()
  }
}
