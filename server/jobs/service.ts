// The jobs module's entry: enqueue a checked request, run a claimed job through the render
// pipeline to its outcome (retry policy in retry.ts, group-committed completions in
// completions.ts), abandon a job whose process died too often, and the job as clients see it.
// The claim loop (loop.ts) calls execute/abandon; routes call enqueue/find.
import { problem } from '../errors.js'
import type { Config } from '../config.js'
import type { JobsRepo } from '../store/repos/jobs.js'
import type { DocumentsRepo } from '../store/repos/documents.js'
import type { DocumentUsageRepo } from '../store/repos/document-usage.js'
import type { Outbox } from '../webhooks/outbox.js'
import { jobOf } from '../render/pipeline.js'
import type { ClaimBatch, Prepared, RenderPipeline } from '../render/pipeline.js'
import { asProblem, failureOutcome, runOf } from '../render/outcome.js'
import type { Outcome } from '../render/outcome.js'
import type { JobRow } from '../store/repos/jobs.js'
import type { Gate } from '../util/gate.js'
import { createCompletions } from './completions.js'
import { createJobInserts } from './inserts.js'
import { createQueueCap } from './queue-cap.js'
import { createStorageCap } from './storage-cap.js'
import { isTransient, retryDelayMs } from './retry.js'
import { jobView } from './view.js'
import { createJobOutput } from './output.js'
import type { JobView } from './view.js'
import type { CompletionsDeps } from './completions.js'
import type { JobOutputDeps } from './output.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** What the jobs module is built from (server/main.ts): its completions' and outputs' needs, and its own. */
export interface JobsDeps extends CompletionsDeps, JobOutputDeps {
  config: Pick<Config, 'jobs' | 'render' | 'documents'>
  jobs: JobsRepo
  documents: DocumentsRepo
  /** Stored document bytes per workspace (the storage quota). */
  documentUsage: DocumentUsageRepo
  outbox: Pick<Outbox, 'append' | 'hasSubscriber'>
}

export interface JobsService {
  /** Inserts the job and answers it as written: `queued`, whatever a job loop does next. */
  enqueue(p: Prepared, correlationId: string): Promise<JobView>
  /** The job of this workspace (a malformed id is answered like an unknown one: no job can have it). */
  find(workspaceId: string, id: string): Promise<JobView>
  /**
   * Runs one claimed job to its outcome (called by the claim loop). Transient failures requeue.
   * `stage` bounds the jobs reading data and rendering at once (rows held in memory, data-source
   * connections taken from sync renders); a job turned away by it (shutdown) is handed back.
   */
  execute(job: JobRow, owner: string, batch?: ClaimBatch, stage?: Gate): Promise<void>
  /** A job whose process died too often: failed with JOB_ABANDONED, with its run and event. */
  abandon(job: JobRow, owner: string): Promise<void>
}

export function createJobsService (deps: JobsDeps, pipeline: RenderPipeline,
  options: { queued: () => void }): JobsService {
  // Job writes are group-committed (see completions.ts, inserts.ts).
  const completed = createCompletions(deps)
  const inserts = createJobInserts(deps.db, deps.jobs)
  // Tenant isolation: a workspace's queued jobs are capped (429 RATE_LIMITED over it).
  const queueLimit = createQueueCap(deps.jobs, deps.config.jobs.maxQueuedPerWorkspace)
  // And its stored documents (429 RATE_LIMITED at its storage quota, or the service's).
  const { workspaceQuotaBytes, totalQuotaBytes, sweepMs } = deps.config.documents
  const storageLimit = createStorageCap(deps.documentUsage,
    { workspaceBytes: workspaceQuotaBytes, totalBytes: totalQuotaBytes, sweepMs })

  // Like sync renders, a job's event is written only when an enabled endpoint subscribes to it
  // (cached per workspaces.webhooks_version): fan-out would find nobody to deliver to, and the
  // outbox would grow by one row per job for nothing. `version` comes with the job's environment
  // row when it was read; without it (the lookup failed, an abandoned job) the outbox reads it.
  const wanted = (workspaceId: string, outcome: Outcome, version?: number): Promise<boolean> =>
    deps.outbox.hasSubscriber(workspaceId, outcome.ok ? 'document.generated' : 'document.failed', version)

  return {
    async enqueue (p: Prepared, correlationId: string): Promise<JobView> {
      await queueLimit.admit(p.auth.workspaceId)
      await storageLimit.admit(p.auth.workspaceId)
      const job = jobOf(p, correlationId)
      const createdAt = new Date()
      await inserts.insert(job, createdAt)
      options.queued()
      return jobView(deps, {
        ...job,
        seq: 0,
        status: 'queued',
        attempts: 0,
        runId: null,
        documentId: null,
        documentExpiresAt: null,
        pageCount: null,
        labelCount: null,
        outputBytes: null,
        errorCode: null,
        errorMessage: null,
        createdAt,
        startedAt: null,
        completedAt: null
      })
    },

    async find (workspaceId: string, id: string): Promise<JobView> {
      const lower = id.toLowerCase()
      const job = UUID.test(lower) ? await deps.jobs.get(workspaceId, lower) : undefined
      if (job === undefined) throw problem('JOB_NOT_FOUND', 'No render job with this id in this workspace')
      return jobView(deps, job)
    },

    async execute (job: JobRow, owner: string, batch?: ClaimBatch, stage?: Gate): Promise<void> {
      if (stage !== undefined && !await stage.enter(job.workspaceId)) {
        await deps.jobs.unclaim(job.id, owner, job.attempts)
        return
      }
      const started = Date.now()
      let outcome: Outcome
      let version: number | undefined
      const output = createJobOutput(deps, job, owner)
      try {
        const { resolved, env } = await pipeline.resolveStored(job, batch)
        version = env.webhooksVersion
        const r = await pipeline.produce(resolved, env, job.parameters, job.context, {
          lane: 'batch', workspaceId: job.workspaceId, stream: output.stream
        })
        outcome = await output.outcome(r)
      } catch (err) {
        await output.discard()
        const failure = asProblem(err)
        if (isTransient(failure.code) && job.attempts < deps.config.jobs.maxAttempts) {
          stage?.leave(job.workspaceId)
          // Backoff, so the attempts (the job's whole budget) are not all spent in milliseconds.
          await deps.jobs.release(job.id, owner, job.attempts, retryDelayMs(job.attempts))
          return
        }
        const unexpected = failure.code === 'INTERNAL_ERROR'
        outcome = failureOutcome(unexpected ? problem('RENDER_FAILED', 'The render failed unexpectedly') : failure)
      }
      stage?.leave(job.workspaceId) // the commit below is group-committed and holds no rows or connections of its own
      const run = runOf(job, 'async', job.id, started, outcome)
      const event = await wanted(job.workspaceId, outcome, version)
      const won = await completed.commit({ job, owner, run, outcome, event })
      if (!won) await output.discard()
    },

    async abandon (job: JobRow, owner: string): Promise<void> {
      const outcome = failureOutcome(problem('JOB_ABANDONED', `The job was abandoned after ${job.attempts} attempts`))
      const run = runOf(job, 'async', job.id, job.startedAt?.getTime() ?? Date.now(), outcome)
      await completed.commit({ job, owner, run, outcome, event: await wanted(job.workspaceId, outcome) })
    }
  }
}
