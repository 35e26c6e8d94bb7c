// Queued jobs, group-inserted: async submissions that arrive while an INSERT is in flight go
// into the next one (one multi-row INSERT, one commit for many 202s). A 202 is answered only
// after its row is committed, so a job once accepted is durable; one bad row cannot fail the
// others (the batch is retried row by row).
import { createBatcher, isolating } from '../util/batcher.js'
import { isRowFault } from '../store/db.js'
import type { Db } from '../store/db.js'
import type { JobsRepo, NewJob } from '../store/repos/jobs.js'

// Rows are bounded by the request body limit; a batch stays well under max_allowed_packet.
const MAX_BATCH_BYTES = 4 * 1024 * 1024

interface Row { job: NewJob, createdAt: Date, parameters: string, context: string }

export interface JobInserts {
  /** Resolves once the job's row is committed (with the others of its batch). */
  insert: (job: NewJob, createdAt: Date) => Promise<void>
}

export function createJobInserts (
  db: Db,
  jobs: JobsRepo,
  maxItems = 64
): JobInserts {
  const writer = createBatcher<Row, undefined>(
    isolating(
      async (rows) => {
        await jobs.insertMany(db, rows)
        return rows.map(() => undefined)
      },
      { isItemFault: isRowFault }
    ),
    { maxItems, maxWeight: MAX_BATCH_BYTES, weigh: (r) => r.parameters.length + r.context.length }
  )
  return {
    insert: (job, createdAt) =>
      writer.push({ job, createdAt, parameters: JSON.stringify(job.parameters), context: JSON.stringify(job.context) })
  }
}
