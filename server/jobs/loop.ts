// The job loop that runs in every server process: claim queued jobs (SKIP LOCKED, so processes
// never take the same job), keep their leases alive while rendering, requeue or abandon jobs
// whose process died, and sweep expired documents.
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { Config } from '../config.js'
import type { JobsRepo, JobRow } from '../store/repos/jobs.js'
import type { DocumentsRepo } from '../store/repos/documents.js'
import type { RenderService } from '../render/service.js'

export interface JobLoop { start (): void, wake (): void, close (): Promise<void>, readonly owner: string, inFlight (): number }

export function jobLoop (config: Config, deps: { jobs: JobsRepo, documents: DocumentsRepo, render: RenderService, log: Logger }): JobLoop {
  const owner = randomUUID()
  const { concurrency, leaseMs, maxAttempts, pollMs } = config.jobs
  // Keyed by claim (job id + attempts), not job id: a process that stalled past its lease may
  // hold a stale claim and a new claim of the same job at once.
  const running = new Map<string, { id: string, attempts: number, done: Promise<void> }>()
  let stopped = true
  let timer: NodeJS.Timeout | undefined
  let claiming = false
  let again = false
  const intervals: NodeJS.Timeout[] = []

  async function tick (): Promise<void> {
    if (stopped) return
    if (claiming) { again = true; return }
    claiming = true
    try {
      do {
        again = false
        const free = concurrency - running.size
        if (free <= 0) break
        const jobs = await deps.jobs.claim(owner, free, leaseMs)
        for (const job of jobs) run(job, () => deps.render.executeJob(job, owner))
        if (jobs.length === free) again = true
      } while (again && !stopped)
    } catch (err) {
      deps.log.warn({ err }, 'job claim failed')
    } finally {
      claiming = false
      schedule(pollMs)
    }
  }

  function run (job: JobRow, work: () => Promise<void>): void {
    const key = `${job.id}:${job.attempts}`
    const done = work()
      .catch((err: unknown) => { deps.log.error({ err, jobId: job.id }, 'job failed unexpectedly; its lease will expire and it will be retried') })
      .finally(() => { running.delete(key); if (!stopped) void tick() })
    running.set(key, { id: job.id, attempts: job.attempts, done })
  }

  function schedule (ms: number): void {
    if (stopped) return
    clearTimeout(timer)
    timer = setTimeout(() => { void tick() }, ms)
    timer.unref()
  }

  async function maintain (): Promise<void> {
    try {
      await deps.jobs.renewLeases(owner, [...running.values()], leaseMs)
      const requeued = await deps.jobs.requeueExpired(maxAttempts)
      if (requeued > 0) { deps.log.warn({ requeued }, 'requeued jobs whose lease expired'); void tick() }
      for (const job of await deps.jobs.claimAbandoned(owner, maxAttempts, 20)) run(job, () => deps.render.abandonJob(job, owner))
    } catch (err) {
      deps.log.warn({ err }, 'job maintenance failed')
    }
  }

  async function sweep (): Promise<void> {
    try {
      const deleted = await deps.documents.deleteExpired()
      if (deleted > 0) deps.log.info({ deleted }, 'deleted expired documents')
    } catch (err) {
      deps.log.warn({ err }, 'document sweep failed')
    }
  }

  return {
    owner,
    inFlight: () => running.size,
    start () {
      if (!stopped) return
      stopped = false
      intervals.push(setInterval(() => { void maintain() }, Math.max(50, Math.floor(leaseMs / 3))))
      intervals.push(setInterval(() => { void sweep() }, config.documents.sweepMs))
      for (const i of intervals) i.unref()
      void tick()
    },
    wake () { if (!stopped) void tick() },
    async close () {
      stopped = true
      clearTimeout(timer)
      for (const i of intervals) clearInterval(i)
      // Let in-flight renders finish (their leases would otherwise expire and be retried).
      await Promise.allSettled([...running.values()].map((r) => r.done))
    }
  }
}
