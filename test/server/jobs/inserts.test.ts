// Group-inserted queued jobs against a real MariaDB: one row the database refuses fails alone.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { createJobsRepo } from '../../../server/store/repos/jobs.js'
import type { NewJob } from '../../../server/store/repos/jobs.js'
import { createJobInserts } from '../../../server/jobs/inserts.js'
import type { RowDataPacket } from 'mysql2'
import { newJob as jobRow } from '../../helpers/jobs.js'

let database: TestDatabase
before(async () => { database = await createTestDatabase('inserts') })
after(async () => { await database.drop() })

const newJob = (version = 1): NewJob => jobRow({ version, correlationId: randomUUID() })

test('a job row the database refuses (version above the INT column) fails alone; the jobs batched with it are inserted', async () => {
  const jobs = createJobsRepo(database.db)
  const writer = createJobInserts(database.db, jobs)
  // The first insert goes at once; the next three wait for it and go together, poisoned one included.
  const batch = [newJob(), newJob(), newJob(2147483648), newJob()]
  const results = await Promise.allSettled(batch.map((j) => writer.insert(j, new Date())))
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'])
  const [rows] = await database.db.query<RowDataPacket[]>('SELECT id FROM render_jobs WHERE id IN (?)', [batch.map((j) => j.id)])
  assert.deepEqual(new Set(rows.map((r) => r.id)), new Set([batch[0]?.id, batch[1]?.id, batch[3]?.id]))
  // The writer goes on: nothing is left waiting for a retry of the refused row.
  const later = newJob()
  await writer.insert(later, new Date())
  assert.equal((await jobs.get(later.workspaceId, later.id))?.id, later.id)
})
