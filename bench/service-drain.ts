// Async drain for bench/service.ts: submit N async renders over HTTPS (`connections` at a
// time, as fast as the service accepts them), then wait for the job loop to finish them all.
// Timed with the database's own timestamps, from the first job created to the last completed,
// so no client-side polling adds load or quantizes the end.
import type { RowDataPacket } from 'mysql2/promise'
import type { Db } from '../server/store/db.js'
import { createClient } from '../cli/bench/http.js'
import type { CpuSplit } from './service-cpu.js'

export interface DrainOptions {
  url: string
  key: string
  ca: Buffer
  template: string
  parameters: Array<Record<string, unknown>>
  jobs: number
  connections: number
  timeoutMs: number
}
export interface DrainResult {
  jobs: number
  submitted: number
  submitErrors: Record<string, number>
  succeeded: number
  failed: number
  submitSeconds: number
  seconds: number
  rate: number
  /** The job loop working through the queue once submission is over: jobs, seconds, jobs/s. */
  queueJobs: number
  queueSeconds: number
  queueRate: number
  /**
   * Filled by the caller: CPU split over the whole drain (submission included), MariaDB statements and server CPU per
   * job.
   */
  cpu?: CpuSplit
  statements?: number
  serverCpuMsPerJob?: number
}

const noRow = (): Error => new Error('an aggregate query over render_jobs returned no row')

export async function asyncDrain (db: Db, o: DrainOptions): Promise<DrainResult> {
  const [[before]] = await db.query<RowDataPacket[]>('SELECT COALESCE(MAX(seq), 0) AS seq FROM render_jobs')
  if (before === undefined) throw noRow()
  const fromSeq = Number(before.seq)
  const client = createClient({
    url: o.url,
    key: o.key,
    connections: o.connections,
    timeoutMs: o.timeoutMs,
    ca: o.ca,
    insecure: false
  })
  const bodies = o.parameters.map((p) => JSON.stringify({ template: o.template, parameters: p, async: true }))
  const errors: Record<string, number> = {}
  let next = 0
  let submitted = 0
  const t0 = performance.now()
  try {
    await Promise.all(Array.from({ length: o.connections }, async () => {
      while (next < o.jobs) {
        const i = next++
        const r = await client.send('POST', `${client.prefix}/api/v1/render`, bodies[i % bodies.length])
        if (r.status === 202) submitted++
        else { const code = r.errorCode ?? String(r.status); errors[code] = (errors[code] ?? 0) + 1 }
      }
    }))
  } finally {
    await client.close()
  }
  const submitSeconds = (performance.now() - t0) / 1000
  const deadline = Date.now() + o.timeoutMs
  for (;;) {
    const [[row]] = await db.query<RowDataPacket[]>(`SELECT COUNT(*) AS n, SUM(status = 'succeeded') AS ok,
      SUM(status = 'failed') AS bad, TIMESTAMPDIFF(MICROSECOND, MIN(created_at), MAX(completed_at)) AS us FROM render_jobs WHERE seq > ?`, [fromSeq])
    if (row === undefined) throw noRow()
    const done = Number(row.ok ?? 0) + Number(row.bad ?? 0)
    if (done >= Number(row.n) || Date.now() > deadline) {
      const seconds = Number(row.us ?? 0) / 1e6
      // The queue alone: from the last job created (submission over, the queue at its fullest)
      // to the last completed, the job loop is the only work; jobs finished in that window ÷ its length.
      const [[tail]] = await db.query<RowDataPacket[]>(`SELECT COUNT(*) AS n,
        TIMESTAMPDIFF(MICROSECOND, MAX(t.last), MAX(j.completed_at)) AS us
        FROM render_jobs j JOIN (SELECT MAX(created_at) AS last FROM render_jobs WHERE seq > ?) t
        WHERE j.seq > ? AND j.status = 'succeeded' AND j.completed_at > t.last`, [fromSeq, fromSeq])
      if (tail === undefined) throw noRow()
      const queueSeconds = Number(tail.us ?? 0) / 1e6
      return {
        jobs: o.jobs,
        submitted,
        submitErrors: errors,
        succeeded: Number(row.ok ?? 0),
        failed: Number(row.bad ?? 0),
        submitSeconds,
        seconds,
        rate: seconds > 0 ? Number(row.ok ?? 0) / seconds : 0,
        queueJobs: Number(tail.n),
        queueSeconds,
        queueRate: queueSeconds > 0 ? Number(tail.n) / queueSeconds : 0
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
