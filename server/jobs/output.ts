// Where a job's document goes while it renders (issue 15): held whole up to
// SVC_RENDER_STREAM_ABOVE (then stored by the group commit, as before), past it written into the
// document store chunk by chunk under the job's claim (store/repos/document-writer.ts), pending
// until the commit that finishes the job. A failed render, a failed write or a lost lease leaves
// no visible document: the pending one is discarded (or swept at its expiry if this process dies)
// and a retry writes a new one whole.
import { randomUUID } from 'node:crypto'
import type { RenderSuccess } from '../../engine/types.js'
import type { RenderStream } from '../../pool/render-pool.js'
import type { Config } from '../config.js'
import type { DocumentsRepo } from '../store/repos/documents.js'
import { contentTypeOf, successOutcome } from '../render/outcome.js'
import type { Outcome } from '../render/outcome.js'
import { spool } from '../render/output.js'
import type { DocumentWriter } from '../store/repos/document-writer.js'
import type { JobRow } from '../store/repos/jobs.js'

export interface JobOutput {
  stream: RenderStream
  /** The outcome of the render that succeeded: throws when its document could not be written. */
  outcome (r: RenderSuccess): Promise<Outcome>
  /** Deletes the pending document, if one was started (never throws). */
  discard (): Promise<void>
}

/** Where a job's document is written while it renders. */
export interface JobOutputDeps {
  config: Pick<Config, 'render' | 'documents'>
  documents: Pick<DocumentsRepo, 'writer' | 'discardPending'>
}

export function createJobOutput (deps: JobOutputDeps, job: JobRow, owner: string): JobOutput {
  const doc = { id: randomUUID(), expiresAt: new Date(Date.now() + deps.config.documents.ttlMs) }
  let writer: DocumentWriter | undefined
  const out = spool(deps.config.render.streamAboveBytes, () => {
    writer = deps.documents.writer({
      ...doc,
      workspaceId: job.workspaceId,
      jobId: job.id,
      contentType: contentTypeOf(job.format),
      fileName: job.fileName,
      fence: { owner, attempts: job.attempts },
      quotaBytes: deps.config.documents.workspaceQuotaBytes,
      totalQuotaBytes: deps.config.documents.totalQuotaBytes
    })
    return writer
  })
  return {
    stream: out.stream,
    async outcome (r) {
      const spooled = out.end()
      if (!spooled.streamed) return successOutcome({ ...r, bytes: spooled.bytes })
      if (spooled.sinkError !== undefined) throw spooled.sinkError as unknown // the consumer's own error, as it came
      await (writer as DocumentWriter).finish()
      return successOutcome(r, { outputBytes: spooled.outputBytes, document: doc })
    },
    async discard () {
      if (writer === undefined) return
      await deps.documents.discardPending(doc.id).catch(() => {})
    }
  }
}
