// Synchronous renders (POST /v1/render without "async"): the pipeline, then the outcome
// recorded. Without a subscriber the run goes to the batched run recorder (no write on the
// request's path); when an enabled endpoint subscribes to the outcome's event, the document
// (for the event's documentUrl), the finished job record (for its jobId), the run and the event
// are written in ONE transaction before the answer.
// A document past SVC_RENDER_STREAM_ABOVE bytes is answered while it renders (output.ts):
// chunked, with X-Page-Count from the engine's count ahead of the bytes; its run (and document,
// for a subscriber: written into the store as it streams, pending until the commit) is recorded
// when it ends. A failure after the first byte cannot be a problem any more: the response is
// aborted (the client sees a truncated transfer) and the run is recorded as failed.
import { randomUUID } from 'node:crypto'
import { Problem, problem } from '../errors.js'
import type { RenderSuccess } from '../../engine/types.js'
import type { Spool } from './output.js'
import type { AuthContext } from '../auth/keys.js'
import { transaction } from '../store/db.js'
import type { NewJob } from '../store/repos/jobs.js'
import type { RunRecord } from '../store/repos/runs.js'
import type { Config } from '../config.js'
import type { Db } from '../store/db.js'
import type { JobsRepo } from '../store/repos/jobs.js'
import type { DocumentsRepo } from '../store/repos/documents.js'
import type { RunsRepo } from '../store/repos/runs.js'
import type { Outbox } from '../webhooks/outbox.js'
import type { RunRecorder } from './run-recorder.js'
import { jobOf } from './pipeline.js'
import type { Prepared, RenderBody, RenderPipeline } from './pipeline.js'
import { asProblem, contentTypeOf, eventData, failureOutcome, jobOutcomeOf, newDocument, runOf } from './outcome.js'
import { storeDocuments, successOutcome } from './outcome.js'
import type { DocumentUrls, Outcome } from './outcome.js'
import { ResponseBody, spool, teeSink } from './output.js'
import type { OutputSink } from './output.js'
import type { DocumentWriter } from '../store/repos/document-writer.js'

export interface SyncResult {
  runId: string
  /** The whole document (Content-Length), or its bytes as they render (chunked transfer). */
  body: Buffer | ResponseBody
  contentType: string
  pageCount: number
  labelCount: number
  prepared: Prepared
}

/** What sync renders record their outcomes with (server/main.ts builds each once). */
export interface SyncDeps extends DocumentUrls {
  config: Pick<Config, 'render' | 'documents'>
  db: Db
  jobs: Pick<JobsRepo, 'insertFinished'>
  documents: DocumentsRepo
  runs: Pick<RunsRepo, 'insertMany'>
  recorder: Pick<RunRecorder, 'record'>
  outbox: Pick<Outbox, 'append' | 'hasSubscriber'>
}

export interface SyncOptions {
  /** Recording a streamed render's outcome failed after its answer had started (logged by the caller). */
  onLateError?: (err: unknown, correlationId: string) => void
}

export interface SyncRenders {
  /** A synchronous render: the document, with the run recorded (and the event, when subscribed). */
  render(p: Prepared, correlationId: string): Promise<SyncResult>
  /** A request refused by the checks (template, environment, format, parameters) is a failed run too. */
  recordRejected(auth: AuthContext, body: RenderBody, failure: Problem, correlationId: string, startedAt: number): void
}

export function createSyncRenders (deps: SyncDeps, pipeline: RenderPipeline, options: SyncOptions = {}): SyncRenders {
  /** The document, run, job record and event of a render someone subscribes to, in one transaction. */
  async function commit (job: NewJob, startedAt: Date, run: RunRecord, outcome: Outcome): Promise<void> {
    await transaction(deps.db, async (conn, tx) => {
      const doc = newDocument(deps, outcome)
      const { workspaceQuotaBytes, totalQuotaBytes } = deps.config.documents
      if (doc !== null) {
        await storeDocuments(deps.documents, conn, [{ job, outcome, doc }],
          { workspaceBytes: workspaceQuotaBytes, totalBytes: totalQuotaBytes })
      }
      await deps.jobs.insertFinished(conn, job, startedAt, jobOutcomeOf(outcome, run.id, doc?.id ?? null))
      await deps.runs.insertMany(conn, [run])
      const event = eventData(deps, job, run.id, outcome, doc?.id ?? null, doc?.expiresAt ?? null)
      await deps.outbox.append(tx, { workspaceId: job.workspaceId, ...event })
    })
  }

  // `version`: the workspace's subscription version, read with the render's environment row.
  async function record (job: NewJob, started: number, outcome: Outcome, version?: number,
    runId?: string): Promise<string> {
    const run = runOf(job, 'sync', null, started, outcome, runId)
    const type = outcome.ok ? 'document.generated' : 'document.failed'
    // A streamed document nobody subscribed to when it started was not stored: no link to give.
    const unstored = outcome.ok && outcome.bytes === undefined && outcome.document === undefined
    if (!unstored && await deps.outbox.hasSubscriber(job.workspaceId, type, version)) {
      run.jobId = job.id
      try {
        await commit(job, new Date(started), run, outcome)
      } catch (err) {
        // The document would pass the storage quota (nothing was written): the render fails with
        // that, recorded and answered (422) like any render limit.
        if (!(err instanceof Problem && err.code === 'RENDER_LIMIT_EXCEEDED' && outcome.ok)) throw err
        await record(job, started, failureOutcome(err), version, runId)
        throw err
      }
    } else {
      deps.recorder.record(run)
    }
    return run.id
  }

  return {
    async render (p: Prepared, correlationId: string): Promise<SyncResult> {
      const started = Date.now()
      const job = jobOf(p, correlationId)
      const runId = randomUUID()
      const version = p.env.webhooksVersion
      let body: ResponseBody | undefined
      let stored: { writer: DocumentWriter, doc: { id: string, expiresAt: Date } } | undefined
      // The answer starts when the render ends or its output goes past the hold, whichever is first.
      let answerNow = (): void => {}
      const answerable = new Promise<void>((resolve) => { answerNow = resolve })
      // Past the threshold: the response (and, for a subscriber, the document store) takes the bytes.
      const out = spool(deps.config.render.streamAboveBytes, async () => {
        body = new ResponseBody()
        answerNow() // the answer starts whatever follows: a sink that fails now aborts it (sinkError)
        const sinks: OutputSink[] = [body]
        if (await deps.outbox.hasSubscriber(job.workspaceId, 'document.generated', version)) {
          const doc = { id: randomUUID(), expiresAt: new Date(Date.now() + deps.config.documents.ttlMs) }
          const writer = deps.documents.writer({
            ...doc,
            workspaceId: job.workspaceId,
            jobId: job.id,
            contentType: contentTypeOf(p.format),
            fileName: p.fileName,
            quotaBytes: deps.config.documents.workspaceQuotaBytes,
            totalQuotaBytes: deps.config.documents.totalQuotaBytes
          })
          stored = { writer, doc }
          sinks.push(writer)
        }
        return sinks.length === 1 ? body : teeSink(sinks)
      })
      const rendering = pipeline.produce(p.resolved, p.env, p.parameters, p.context, {
        lane: 'interactive',
        workspaceId: p.auth.workspaceId,
        stream: out.stream
      })
      rendering.then(answerNow, answerNow)
      await answerable
      const pdf = p.format === 'pdf'
      const contentType = contentTypeOf(p.format)
      if (body === undefined) {
        let outcome: Outcome
        try {
          const r = await rendering
          const spooled = out.end()
          if (spooled.streamed) throw new Error('a held render went to a sink') // open() sets body first
          outcome = successOutcome({ ...r, bytes: spooled.bytes })
        } catch (err) {
          const failure = syncFailure(err, deps.config.render.timeoutMs)
          if (failure.code !== 'RENDER_BUSY') await record(job, started, failureOutcome(failure), version, runId)
          throw failure
        }
        await record(job, started, outcome, version, runId)
        const n = outcome.pageCount ?? 0
        const bytes = outcome.bytes as Buffer
        return { runId, contentType, prepared: p, body: bytes, pageCount: pdf ? n : 0, labelCount: pdf ? 0 : n }
      }
      const response = body
      // `stored` is read when the render ends: the subscriber check may still run when the answer starts.
      void finishStreamed(rendering, out, response, () => stored).then(
        (outcome) => record(job, started, outcome, version, runId),
        async (err: unknown) => {
          response.destroy(new Error('the render failed after its answer had started'))
          if (stored !== undefined) await deps.documents.discardPending(stored.doc.id).catch(() => {})
          await record(job, started, failureOutcome(syncFailure(err, deps.config.render.timeoutMs)), version, runId)
        }
      ).catch((err: unknown) => options.onLateError?.(err, correlationId))
      const n = out.pageCount() ?? 0
      return { runId, contentType, prepared: p, body: response, pageCount: pdf ? n : 0, labelCount: pdf ? 0 : n }
    },

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
/** A sync render past the time limit is a limit of this document (422); async rendering has the longer job path. */
function syncFailure (err: unknown, limitMs: number): Problem {
  const failure = asProblem(err)
  if (failure.code !== 'RENDER_TIMEOUT') return failure
  return problem('RENDER_LIMIT_EXCEEDED', `render time limit (${limitMs} ms) exceeded; render asynchronously`)
}

/** The streamed render's end: its outcome once the response and the store have every byte. */
async function finishStreamed (rendering: Promise<RenderSuccess>, out: Spool, response: ResponseBody,
  storedBy: () => { writer: DocumentWriter, doc: { id: string, expiresAt: Date } } | undefined): Promise<Outcome> {
  const r = await rendering
  const stored = storedBy()
  const spooled = out.end()
  if (!spooled.streamed) throw new Error('a streamed render ended without its stream')
  if (spooled.sinkError !== undefined) throw spooled.sinkError as unknown // the consumer's own error, as it came
  if (stored !== undefined) await stored.writer.finish()
  response.finish()
  return successOutcome(r, { outputBytes: spooled.outputBytes, document: stored?.doc })
}
