// Job completions, group-committed: jobs that finish within a few ms of each other, or while the
// previous write is in flight, go into one write, so N jobs cost one transaction (one fenced
// UPDATE, one multi-row INSERT of documents and one of runs) instead of N transactions of four
// statements. Each job's document, run, state and event still commit together, atomically
// with its finish; a claim that lost its lease writes nothing.
import { createBatcher, isolating } from '../util/batcher.js'
import { transaction } from '../store/db.js'
import type { JobRow } from '../store/repos/jobs.js'
import type { RunRecord } from '../store/repos/runs.js'
import type { Config } from '../config.js'
import type { Db } from '../store/db.js'
import type { JobsRepo } from '../store/repos/jobs.js'
import type { DocumentsRepo } from '../store/repos/documents.js'
import type { RunsRepo } from '../store/repos/runs.js'
import type { Outbox } from '../webhooks/outbox.js'
import { eventData, jobOutcomeOf, newDocument, storeDocuments } from '../render/outcome.js'
import type { DocumentUrls, Outcome } from '../render/outcome.js'

export interface Completion { job: JobRow, owner: string, run: RunRecord, outcome: Outcome, event: boolean }

export interface Completions {
  /** True once the job's outcome is committed; false when its lease was lost (nothing written). */
  commit: (c: Completion) => Promise<boolean>
}

// Bounded by count and by bytes: one multi-row INSERT must stay well under max_allowed_packet.
const MAX_BATCH_BYTES = 4 * 1024 * 1024
// A completion waits up to this long for others to join its transaction. Without it, under a
// drain the two writers took ~1.7 jobs per transaction (6.0 statements per job); with 5 ms,
// 4.6 statements and ~10% less MariaDB CPU per job. An async job's end moves by at most 5 ms.
const LINGER_MS = 5

/** What a completion writes with. */
export interface CompletionsDeps extends DocumentUrls {
  config: Pick<Config, 'documents'>
  db: Db
  jobs: Pick<JobsRepo, 'finishMany'>
  documents: DocumentsRepo
  runs: Pick<RunsRepo, 'insertMany'>
  outbox: Pick<Outbox, 'append'>
}

export function createCompletions (deps: CompletionsDeps, maxItems = 64): Completions {
  const writer = createBatcher<Completion, boolean>(isolating((items) => transaction(deps.db, async (conn, tx) => {
    const docs = items.map((c) => newDocument(deps, c.outcome))
    const won = await deps.jobs.finishMany(
      conn,
      items.map((c, i) => ({
        id: c.job.id,
        owner: c.owner,
        attempts: c.job.attempts,
        outcome: jobOutcomeOf(c.outcome, c.run.id, docs[i]?.id ?? null)
      }))
    )
    const stored = []
    const runs = []
    for (let i = 0; i < items.length; i++) {
      const item = items[i]
      if (item === undefined || won[i] !== true) continue
      const doc = docs[i]
      if (doc !== null && doc !== undefined) stored.push({ job: item.job, outcome: item.outcome, doc })
      runs.push(item.run)
    }
    await storeDocuments(deps.documents, conn, stored)
    await deps.runs.insertMany(conn, runs)
    for (let i = 0; i < items.length; i++) {
      const c = items[i]
      if (c === undefined || won[i] !== true || !c.event) continue
      const doc = docs[i]
      await deps.outbox.append(tx, {
        workspaceId: c.job.workspaceId,
        ...eventData(deps, c.job, c.run.id, c.outcome, doc?.id ?? null, doc?.expiresAt ?? null)
      })
    }
    return won
  })), {
    maxItems, maxWeight: MAX_BATCH_BYTES, weigh: (c) => c.outcome.bytes?.length ?? 0, maxWriters: 2, lingerMs: LINGER_MS
  })
  return { commit: writer.push }
}
