// The render service: resolve template, environment, format and parameters (in the spec's
// order, before any query runs), read the datasets, hand the engine its input, record the run.
import { randomUUID } from 'node:crypto'
import type { RenderSuccess } from '../../workers/types.js'
import type { RenderLane } from '../../workers/pool.js'
import { problem } from '../errors.js'
import type { Problem } from '../errors.js'
import { assertEnvironmentAllowed } from '../services/api-keys.js'
import type { AuthContext } from '../services/api-keys.js'
import type { ResolvedTemplate } from '../services/templates.js'
import type { Environment } from '../store/repos/environments.js'
import type { JobRow, JobStatus, NewJob } from '../store/repos/jobs.js'
import { retryDelayMs } from '../store/repos/jobs.js'
import type { RunRecord } from '../store/repos/runs.js'
import type { RenderDeps } from './deps.js'
import { asProblem, commitSyncOutcome, engineProblem } from './outcome.js'
import type { Outcome } from './outcome.js'
import { jobView } from './job-view.js'
import { completions } from './completions.js'
import { jobInserts } from './job-inserts.js'
import { queueCap } from '../jobs/queue-cap.js'
import type { Gate } from '../util/gate.js'
import type { ParsedKey } from '../auth/api-key-format.js'

export interface RenderBody {
  template: string
  version?: number
  environment?: string
  parameters?: Record<string, unknown>
  format?: 'pdf' | 'zpl'
  async?: boolean
  fileName?: string
  context?: Record<string, unknown>
}

export interface Prepared {
  auth: AuthContext
  resolved: ResolvedTemplate
  env: Environment
  format: 'pdf' | 'zpl'
  parameters: Record<string, unknown>
  context: Record<string, unknown>
  fileName: string
}

/** A template + environment read already made (with the key's row), its checks still to run. */
type Found = () => ReturnType<ResolveWithEnvironment>

/** Template + environment lookups shared by the jobs of one claim (they are read at claim time either way). */
export type ClaimBatch = Map<string, ReturnType<ResolveWithEnvironment>>
type ResolveWithEnvironment = RenderDeps['templates']['resolveWithEnvironment']

export interface SyncResult { runId: string, bytes: Buffer, contentType: string, pageCount: number, labelCount: number, prepared: Prepared }

const CONTENT_TYPES = { pdf: 'application/pdf', zpl: 'application/zpl' } as const

export function renderService (deps: RenderDeps) {
  const limits = {
    maxPages: deps.config.render.maxPages,
    maxBytes: deps.config.render.maxBytes,
    maxRows: deps.config.render.maxRows,
    maxLabels: deps.config.render.maxLabels
  }
  // Job writes are group-committed (see completions.ts, job-inserts.ts).
  const completed = completions(deps)
  const inserts = jobInserts(deps.db, deps.jobs)
  // Tenant isolation: a workspace's queued jobs are capped (429 RATE_LIMITED over it).
  const queued = queueCap(deps.jobs, deps.config.jobs.maxQueuedPerWorkspace)

  function environmentFor (auth: AuthContext, key: string, env: Environment | undefined): Environment {
    if (env === undefined) throw problem('ENVIRONMENT_NOT_FOUND', `No environment "${key}" in this workspace`)
    assertEnvironmentAllowed(auth, env)
    return env
  }

  /** Template → environment → format → parameters; the first failure is the answer. */
  async function prepare (auth: AuthContext, body: RenderBody, found: Found): Promise<Prepared> {
    // `found` was read with the key (lookup); the template's problems come before the environment's.
    const envKey = body.environment ?? auth.defaultEnvironment
    const { resolved, environment } = await found()
    const env = environmentFor(auth, envKey, environment)
    if (body.format !== undefined && body.format !== resolved.outputFormat) {
      throw problem('FORMAT_MISMATCH', `Template "${resolved.code}" renders ${resolved.outputFormat}, not ${body.format}`)
    }
    const checked = resolved.checkParameters(body.parameters ?? {})
    if (!checked.ok) {
      const first = Object.entries(checked.errors)[0]
      throw problem('PARAMETER_INVALID', first === undefined ? 'Parameters are invalid' : `${first[0]}: ${first[1][0]}`, { errors: checked.errors })
    }
    return {
      auth,
      resolved,
      env,
      format: resolved.outputFormat,
      parameters: checked.values,
      context: body.context ?? {},
      fileName: body.fileName ?? `${resolved.code}-v${resolved.version}.${resolved.outputFormat}`
    }
  }

  /** Datasets, then the engine in the pool. Throws the problem of the first failure. */
  async function produce (resolved: ResolvedTemplate, env: Environment, parameters: Record<string, unknown>, context: Record<string, unknown>, lane: RenderLane): Promise<RenderSuccess> {
    const { datasets } = await deps.dataSources.readAll(env, resolved.definition, parameters, context, limits.maxRows)
    const result = await deps.pool.render({ versionKey: resolved.versionKey, definition: resolved.definitionJson, parameters, context, datasets, limits }, lane)
    if (!result.ok) throw engineProblem(result)
    return result
  }

  function runOf (p: { workspaceId: string, apiKeyId: string, apiKeyPrefix: string, apiKeyName: string, correlationId: string, templateCode: string, version: number, environment: string, format: string },
    mode: 'sync' | 'async', jobId: string | null, startedAt: number, outcome: Outcome, runId = randomUUID()): RunRecord {
    const completed = Date.now()
    return {
      id: runId,
      workspaceId: p.workspaceId,
      apiKeyId: p.apiKeyId,
      apiKeyPrefix: p.apiKeyPrefix,
      apiKeyName: p.apiKeyName,
      correlationId: p.correlationId,
      mode,
      jobId,
      templateCode: p.templateCode,
      version: p.version,
      environment: p.environment,
      format: p.format,
      status: outcome.ok ? 'succeeded' : 'failed',
      errorCode: outcome.errorCode,
      errorMessage: outcome.errorMessage,
      durationMs: completed - startedAt,
      pageCount: outcome.pageCount,
      labelCount: outcome.labelCount,
      outputBytes: outcome.bytes?.length ?? null,
      startedAt: new Date(startedAt),
      completedAt: new Date(completed)
    }
  }

  function newJob (p: Prepared, correlationId: string): NewJob {
    return {
      id: randomUUID(),
      workspaceId: p.auth.workspaceId,
      apiKeyId: p.auth.keyId,
      apiKeyPrefix: p.auth.prefix,
      apiKeyName: p.auth.name,
      templateId: p.resolved.templateId,
      templateCode: p.resolved.code,
      version: p.resolved.version,
      environment: p.env.key,
      format: p.format,
      parameters: p.parameters,
      context: p.context,
      fileName: p.fileName,
      correlationId
    }
  }

  function successOutcome (r: RenderSuccess): Outcome {
    const bytes = Buffer.isBuffer(r.bytes) ? r.bytes : Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength)
    return { ok: true, bytes, contentType: CONTENT_TYPES[r.format], pageCount: r.format === 'pdf' ? r.pageCount : r.labelCount, labelCount: r.format === 'zpl' ? r.labelCount : null, errorCode: null, errorMessage: null }
  }
  const failureOutcome = (p: Problem): Outcome => ({ ok: false, pageCount: null, labelCount: null, errorCode: p.code, errorMessage: p.message })

  /** A synchronous render: the document, with the run recorded (and the event, when subscribed). */
  async function renderSync (p: Prepared, correlationId: string): Promise<SyncResult> {
    const started = Date.now()
    const job = newJob(p, correlationId)
    const record = (outcome: Outcome, type: 'document.generated' | 'document.failed'): Promise<string> => {
      const run = runOf(job, 'sync', null, started, outcome)
      return (async () => {
        // Only when an endpoint subscribes is a job row (for the event's jobId) and the document
        // (for its documentUrl) stored; otherwise the run goes to the batched recorder.
        if (await deps.outbox.hasSubscriber(job.workspaceId, type)) {
          run.jobId = job.id
          // The row is written as one attempt that started with the render.
          await commitSyncOutcome(deps, jobRowOf(job, 'running', 1, new Date(started)), run, outcome)
        } else {
          deps.recorder.record(run)
        }
        return run.id
      })()
    }
    let result: RenderSuccess
    try {
      result = await produce(p.resolved, p.env, p.parameters, p.context, 'interactive')
    } catch (err) {
      let failure = asProblem(err)
      // A sync render past the time limit is a limit of this document (422); async rendering
      // has the longer job path. See docs/api.md.
      if (failure.code === 'RENDER_TIMEOUT') failure = problem('RENDER_LIMIT_EXCEEDED', `render time limit (${deps.config.render.timeoutMs} ms) exceeded; render asynchronously`)
      if (failure.code !== 'RENDER_BUSY') await record(failureOutcome(failure), 'document.failed')
      throw failure
    }
    const outcome = successOutcome(result)
    const runId = await record(outcome, 'document.generated')
    return { runId, bytes: outcome.bytes as Buffer, contentType: outcome.contentType as string, pageCount: result.pageCount, labelCount: result.labelCount, prepared: p }
  }

  /** Inserts the job and answers it as written: `queued`, whatever a job loop does next. */
  async function enqueue (p: Prepared, correlationId: string): Promise<JobRow> {
    await queued.admit(p.auth.workspaceId)
    const job = newJob(p, correlationId)
    const createdAt = new Date()
    await inserts.insert(job, createdAt)
    deps.jobQueued()
    return jobRowOf(job, 'queued', 0, createdAt)
  }

  // Like sync renders, a job's event is written only when an enabled endpoint subscribes to it
  // (the answer is cached for a second): fan-out would find nobody to deliver to, and the
  // outbox would grow by one row per job for nothing.
  const wanted = (workspaceId: string, outcome: Outcome): Promise<boolean> =>
    deps.outbox.hasSubscriber(workspaceId, outcome.ok ? 'document.generated' : 'document.failed')

  async function produceJob (job: JobRow, batch: ClaimBatch | undefined): Promise<RenderSuccess> {
    // Jobs claimed together mostly share template, version and environment: one read serves them all.
    const key = `${job.workspaceId}\n${job.templateCode}\n${job.version}\n${job.environment}`
    let lookup = batch?.get(key)
    if (lookup === undefined) {
      lookup = deps.templates.resolveWithEnvironment(job.workspaceId, job.templateCode, job.version, job.environment)
      // A failed read is not shared with jobs that look later (a blip must not fail them all).
      if (batch !== undefined) { batch.set(key, lookup); lookup.catch(() => batch.delete(key)) }
    }
    const { resolved, environment: env } = await lookup
    if (env === undefined) throw problem('ENVIRONMENT_NOT_FOUND', `No environment "${job.environment}" in this workspace`)
    return await produce(resolved, env, job.parameters, job.context, 'batch')
  }

  /**
   * Runs one claimed job to its outcome (called by the job loop). Transient failures requeue.
   * `stage` bounds the jobs reading data and rendering at once (rows held in memory, data-source
   * connections taken from sync renders); a job turned away by it (shutdown) is handed back.
   */
  async function executeJob (job: JobRow, owner: string, batch?: ClaimBatch, stage?: Gate): Promise<void> {
    if (stage !== undefined && !await stage.enter()) {
      await deps.jobs.unclaim(job.id, owner, job.attempts)
      return
    }
    const started = Date.now()
    let outcome: Outcome
    try {
      outcome = successOutcome(await produceJob(job, batch))
    } catch (err) {
      const failure = asProblem(err)
      const transient = failure.code === 'DATA_SOURCE_UNAVAILABLE' || failure.code === 'RENDER_BUSY' || failure.code === 'INTERNAL_ERROR'
      if (transient && job.attempts < deps.config.jobs.maxAttempts) {
        stage?.leave()
        // Backoff, so the attempts (the job's whole budget) are not all spent in milliseconds.
        await deps.jobs.release(job.id, owner, job.attempts, retryDelayMs(job.attempts))
        return
      }
      outcome = failureOutcome(failure.code === 'INTERNAL_ERROR' ? problem('RENDER_FAILED', 'The render failed unexpectedly') : failure)
    }
    stage?.leave() // the commit below is group-committed and holds no rows or connections of its own
    const run = runOf(job, 'async', job.id, started, outcome)
    await completed.commit({ job, owner, run, outcome, event: await wanted(job.workspaceId, outcome) })
  }

  /** A job whose process died too often: failed with JOB_ABANDONED, with its run and event. */
  async function abandonJob (job: JobRow, owner: string): Promise<void> {
    const outcome = failureOutcome(problem('JOB_ABANDONED', `The job was abandoned after ${job.attempts} attempts`))
    const run = runOf(job, 'async', job.id, job.startedAt?.getTime() ?? Date.now(), outcome)
    await completed.commit({ job, owner, run, outcome, event: await wanted(job.workspaceId, outcome) })
  }

  /** A request refused by the checks (template, environment, format, parameters) is a failed run too. */
  function recordRejected (auth: AuthContext, body: RenderBody, failure: Problem, correlationId: string, startedAt: number): void {
    const run = runOf({
      workspaceId: auth.workspaceId, apiKeyId: auth.keyId, apiKeyPrefix: auth.prefix, apiKeyName: auth.name, correlationId,
      templateCode: body.template, version: body.version ?? 0, environment: body.environment ?? auth.defaultEnvironment, format: body.format ?? ''
    }, body.async === true ? 'async' : 'sync', null, startedAt, failureOutcome(failure))
    run.version = body.version ?? null
    run.format = body.format ?? null
    deps.recorder.record(run)
  }

  /** The key's row, template and environment in one query; see templates.resolveForKey. */
  const lookup = (key: ParsedKey & { secretHash: Buffer }, body: RenderBody, envKey: string): ReturnType<RenderDeps['templates']['resolveForKey']> =>
    deps.templates.resolveForKey(key, body.template, body.version, envKey)

  return { lookup, prepare, renderSync, enqueue, executeJob, abandonJob, recordRejected, jobView: (job: JobRow) => jobView(deps, job) }
}
export type RenderService = ReturnType<typeof renderService>

function jobRowOf (job: NewJob, status: JobStatus, attempts: number, createdAt = new Date()): JobRow {
  return {
    ...job, seq: 0, status, attempts, runId: null, documentId: null, documentExpiresAt: null, pageCount: null, labelCount: null,
    outputBytes: null, errorCode: null, errorMessage: null, createdAt, startedAt: status === 'queued' ? null : createdAt, completedAt: null
  }
}
