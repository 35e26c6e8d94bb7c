// The job loop that runs in every server process: claim queued jobs (SKIP LOCKED, so processes
// never take the same job), keep their leases alive while rendering, requeue or abandon jobs
// whose process died, and sweep expired documents (and pending ones whose writer died).
import { randomUUID } from 'node:crypto'
import { createGate } from '../util/gate.js'
import { createClaimLoop } from '../util/claim-loop.js'
import type { Logger } from 'pino'
import type { Config } from '../config.js'
import type { JobsRepo, JobRow } from '../store/repos/jobs.js'
import type { DocumentsRepo } from '../store/repos/documents.js'
import type { ClaimBatch } from '../render/pipeline.js'
import type { JobsService } from './service.js'

export interface JobLoop {
  start (): void
  wake (): void
  /** Stops claiming new work; running jobs go on, with their leases renewed. Call before the HTTP server drains. */
  quiesce (): void
  /**
   * quiesce(), then waits for the claim in flight (handing its jobs back) and for running jobs; then stops the timers.
   */
  close (): Promise<void>
  readonly owner: string
  inFlight (): number
}

export function createJobLoop (config: Config, deps: { jobs: JobsRepo, documents: DocumentsRepo, run: Pick<JobsService, 'execute' | 'abandon'>, log: Logger }): JobLoop {
  const owner = randomUUID()
  const { concurrency, leaseMs, maxAttempts, pollMs } = config.jobs
  // Claimed jobs wait here before reading data: many claimed jobs keep the pipeline full (claim,
  // read, render, group commit), while at most 4 per render thread hold rows and data-source
  // connections at once. quiesce() hands the waiting ones back at once, so a shutdown waits only
  // for the jobs already past this point. One workspace holds all places but one (fair threads:
  // another workspace's job finds a place, and then a render thread, see pool/render-queue.ts).
  const stageSize = Math.min(concurrency, 4 * config.render.threads)
  const stage = createGate(stageSize, Math.max(1, stageSize - 1))
  // Keyed by claim (job id + attempts), not job id: a process that stalled past its lease may
  // hold a stale claim and a new claim of the same job at once.
  const running = new Map<string, { id: string, attempts: number, done: Promise<void> }>()
  let started = false
  let maintaining: Promise<void> | undefined
  const intervals: NodeJS.Timeout[] = []

  /** One claim; true when it was full (more is probably waiting). */
  async function claimOnce (): Promise<boolean> {
    const free = concurrency - running.size
    // A claim is a transaction of its own: while work is running, wait until half the slots
    // are free so one claim serves several jobs; when idle, claim at once (no added latency).
    if (free <= 0 || (running.size > 0 && free < Math.ceil(concurrency / 2))) return false
    const jobs = await deps.jobs.claim(owner, free, leaseMs, config.jobs.maxRunningPerWorkspace)
    // quiesce() came while the claim was in flight: these jobs were never started, so they
    // go back to the queue with their attempt refunded instead of dying with the render pool.
    if (!loop.accepting) { await handBack(jobs); return false }
    const batch: ClaimBatch = new Map()
    for (const job of jobs) run(job, () => deps.run.execute(job, owner, batch, stage))
    return jobs.length === free
  }
  const loop = createClaimLoop(claimOnce, {
    pollMs,
    // Jobs of other processes: one autocommit read per poll while nothing is queued.
    probe: async () => await deps.jobs.anyQueued(),
    onError: (err) => { deps.log.warn({ err }, 'job claim failed') }
  })

  async function handBack (jobs: JobRow[]): Promise<void> {
    for (const job of jobs) {
      try {
        await deps.jobs.unclaim(job.id, owner, job.attempts)
      } catch (err) {
        deps.log.warn({ err, jobId: job.id }, 'could not hand back a job claimed during shutdown; its lease will expire and it will be retried')
      }
    }
  }

  function run (job: JobRow, work: () => Promise<void>): void {
    const key = `${job.id}:${job.attempts}`
    const done = work()
      .catch((err: unknown) => { deps.log.error({ err, jobId: job.id }, 'job failed unexpectedly; its lease will expire and it will be retried') })
      .finally(() => { running.delete(key); loop.wake() })
    running.set(key, { id: job.id, attempts: job.attempts, done })
  }

  function maintain (): void {
    if (maintaining !== undefined) return
    maintaining = maintenance().finally(() => { maintaining = undefined })
  }

  async function maintenance (): Promise<void> {
    try {
      // Renewal goes on while a shutdown drains: a long job must keep its lease to the end.
      await deps.jobs.renewLeases(owner, [...running.values()], leaseMs)
      if (!loop.accepting) return
      const requeued = await deps.jobs.requeueExpired(maxAttempts)
      if (requeued > 0) { deps.log.warn({ requeued }, 'requeued jobs whose lease expired'); loop.wake() }
      // Abandoning is cheap and finishes the job, so jobs claimed just as quiesce() came still run.
      for (const job of await deps.jobs.claimAbandoned(owner, maxAttempts, 20)) {
        run(job, () => deps.run.abandon(job, owner))
      }
    } catch (err) {
      deps.log.warn({ err }, 'job maintenance failed')
    }
  }

  async function sweep (): Promise<void> {
    try {
      const deleted = await deps.documents.sweepExpired()
      if (deleted > 0) deps.log.info({ deleted }, 'deleted expired documents')
      // Pending documents whose process died mid-write go long before their expiry.
      const dead = await deps.documents.sweepDeadPending(config.documents.pendingMaxAgeMs)
      if (dead > 0) deps.log.info({ deleted: dead }, 'deleted pending documents of dead writers')
    } catch (err) {
      deps.log.warn({ err }, 'document sweep failed')
    }
  }

  return {
    owner,
    inFlight: () => running.size,
    start () {
      if (started) return
      started = true
      intervals.push(setInterval(maintain, Math.max(50, Math.floor(leaseMs / 3))))
      intervals.push(setInterval(() => { void sweep() }, config.documents.sweepMs))
      for (const i of intervals) i.unref()
      loop.start()
    },
    wake () { loop.wake() },
    quiesce () {
      loop.quiesce()
      stage.close()
    },
    async close () {
      stage.close()
      await loop.close()
      // Let running renders finish, their leases renewed meanwhile (an expired lease would let
      // another process render the job again). A maintenance pass in flight may add one.
      // eslint-disable-next-line no-unmodified-loop-condition -- `maintaining` is changed by another async task
      while (running.size > 0 || maintaining !== undefined) {
        await Promise.allSettled([...running.values()].map((r) => r.done).concat(maintaining ?? []))
      }
      for (const i of intervals) clearInterval(i)
      intervals.length = 0
    }
  }
}
