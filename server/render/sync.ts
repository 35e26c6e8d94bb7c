// Synchronous renders (POST /v1/render without "async"): the pipeline, then the outcome
// recorded. Without a subscriber the run goes to the batched run recorder (no write on the
// request's path); when an enabled endpoint subscribes to the outcome's event, the document
// (for the event's documentUrl), the finished job record (for its jobId), the run and the event
// are written in ONE transaction before the answer.
import { problem } from '../errors.js'
import type { Problem } from '../errors.js'
import type { AuthContext } from '../auth/keys.js'
import { transaction } from '../store/db.js'
import type { NewJob } from '../store/repos/jobs.js'
import type { RunRecord } from '../store/repos/runs.js'
import type { RenderDeps } from './deps.js'
import { jobOf } from './pipeline.js'
import type { Prepared, RenderBody, RenderPipeline } from './pipeline.js'
import { asProblem, documentRow, eventData, failureOutcome, jobOutcomeOf, newDocument, runOf } from './outcome.js'
import { successOutcome } from './outcome.js'
import type { Outcome } from './outcome.js'

export interface SyncResult {
  runId: string
  bytes: Buffer
  contentType: string
  pageCount: number
  labelCount: number
  prepared: Prepared
}

export type SyncDeps = Pick<RenderDeps, 'config' | 'db' | 'jobs' | 'documents' | 'runs' | 'recorder' | 'outbox' | 'links' | 'baseUrl'>

export function syncRenders (deps: SyncDeps, pipeline: RenderPipeline) {
  /** The document, run, job record and event of a render someone subscribes to, in one transaction. */
  async function commit (job: NewJob, startedAt: Date, run: RunRecord, outcome: Outcome): Promise<void> {
    await transaction(deps.db, async (conn, tx) => {
      const doc = newDocument(deps, outcome)
      if (doc !== null) await deps.documents.insert(conn, documentRow(job, outcome, doc))
      await deps.jobs.insertFinished(conn, job, startedAt, jobOutcomeOf(outcome, run.id, doc?.id ?? null))
      await deps.runs.insertMany(conn, [run])
      const event = eventData(deps, job, run.id, outcome, doc?.id ?? null, doc?.expiresAt ?? null)
      await deps.outbox.append(tx, { workspaceId: job.workspaceId, ...event })
    })
  }

  // `version`: the workspace's subscription version, read with the render's environment row.
  async function record (job: NewJob, started: number, outcome: Outcome, version?: number): Promise<string> {
    const run = runOf(job, 'sync', null, started, outcome)
    const type = outcome.ok ? 'document.generated' : 'document.failed'
    if (await deps.outbox.hasSubscriber(job.workspaceId, type, version)) {
      run.jobId = job.id
      await commit(job, new Date(started), run, outcome)
    } else {
      deps.recorder.record(run)
    }
    return run.id
  }

  return {
    /** A synchronous render: the document, with the run recorded (and the event, when subscribed). */
    async render (p: Prepared, correlationId: string): Promise<SyncResult> {
      const started = Date.now()
      const job = jobOf(p, correlationId)
      let outcome: Outcome
      try {
        outcome = successOutcome(
          await pipeline.produce(p.resolved, p.env, p.parameters, p.context, {
            lane: 'interactive',
            workspaceId: p.auth.workspaceId
          })
        )
      } catch (err) {
        let failure = asProblem(err)
        // A sync render past the time limit is a limit of this document (422); async rendering
        // has the longer job path. See docs/api.md.
        if (failure.code === 'RENDER_TIMEOUT') {
          const limit = deps.config.render.timeoutMs
          failure = problem('RENDER_LIMIT_EXCEEDED', `render time limit (${limit} ms) exceeded; render asynchronously`)
        }
        if (failure.code !== 'RENDER_BUSY') await record(job, started, failureOutcome(failure), p.env.webhooksVersion)
        throw failure
      }
      const runId = await record(job, started, outcome, p.env.webhooksVersion)
      return {
        runId,
        bytes: outcome.bytes as Buffer,
        contentType: outcome.contentType as string,
        pageCount: outcome.pageCount ?? 0,
        labelCount: outcome.labelCount ?? 0,
        prepared: p
      }
    },

    /** A request refused by the checks (template, environment, format, parameters) is a failed run too. */
    recordRejected (
      auth: AuthContext,
      body: RenderBody,
      failure: Problem,
      correlationId: string,
      startedAt: number
    ): void {
      const run = runOf(
        {
          workspaceId: auth.workspaceId,
          apiKeyId: auth.keyId,
          apiKeyPrefix: auth.prefix,
          apiKeyName: auth.name,
          correlationId,
          templateCode: body.template,
          version: body.version ?? 0,
          environment: body.environment ?? auth.defaultEnvironment,
          format: body.format ?? ''
        },
        body.async === true ? 'async' : 'sync',
        null,
        startedAt,
        failureOutcome(failure)
      )
      run.version = body.version ?? null
      run.format = body.format ?? null
      deps.recorder.record(run)
    }
  }
}
export type SyncRenders = ReturnType<typeof syncRenders>
