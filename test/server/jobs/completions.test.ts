// Group-committed job completions against a real MariaDB: jobs finishing together share one
// transaction, and each still writes its document, run and event only if its claim still holds.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { createJobsRepo } from '../../../server/store/repos/jobs.js'
import type { JobRow, NewJob } from '../../../server/store/repos/jobs.js'
import { createDocumentsRepo } from '../../../server/store/repos/documents.js'
import { createRunsRepo } from '../../../server/store/repos/runs.js'
import type { RunRecord } from '../../../server/store/repos/runs.js'
import { createOutbox } from '../../../server/webhooks/outbox.js'
import { createRepos } from '../../../server/store/repos/index.js'
import { createKeyring } from '../../../server/secrets/keyring.js'
import { createDocumentLinks } from '../../../server/documents/links.js'
import { createCompletions } from '../../../server/jobs/completions.js'
import type { CompletionsDeps } from '../../../server/jobs/completions.js'
import type { Outcome } from '../../../server/render/outcome.js'
import type { RowDataPacket } from 'mysql2'
import { newJob as jobRow } from '../../helpers/jobs.js'
import { newRun } from '../../helpers/runs.js'

let database: TestDatabase
before(async () => { database = await createTestDatabase('completions') })
after(async () => { await database.drop() })

const workspaceId = randomUUID()
const newJob = (): NewJob => jobRow({ workspaceId })
const runOf = (job: JobRow): RunRecord => newRun({ workspaceId, mode: 'async', jobId: job.id, outputBytes: 4 })
const ok = (text: string): Outcome => ({ ok: true, bytes: Buffer.from(text), outputBytes: Buffer.byteLength(text), contentType: 'application/pdf', pageCount: 1, labelCount: null, errorCode: null, errorMessage: null })

test('jobs finishing together commit in one transaction; a claim that lost its lease writes nothing', async () => {
  const db = database.db
  const jobs = createJobsRepo(db)
  // Counts the transactions the writer opens (each takes a pool connection).
  let transactions = 0
  const counted = Object.create(db, {
    getConnection: {
      value: async () => {
        transactions++
        return await db.getConnection()
      }
    }
  })
  const deps = {
    config: { documents: { ttlMs: 3_600_000 } },
    db: counted,
    jobs,
    documents: createDocumentsRepo(db),
    runs: createRunsRepo(db),
    outbox: createOutbox(createRepos(db)),
    links: createDocumentLinks(createKeyring([Buffer.alloc(32, 7)]), 60_000),
    baseUrl: () => 'https://svc.test'
  } as unknown as CompletionsDeps
  const writer = createCompletions(deps)
  const fresh = Array.from({ length: 5 }, newJob)
  for (const j of fresh) await jobs.insert(db, j)
  const claimed = await jobs.claim('proc', 5, 30_000)
  assert.equal(claimed.length, 5)
  // The third job's lease ran out and another process holds it now.
  const lost = claimed[2]
  await db.query('UPDATE render_jobs SET lease_owner = ? WHERE id = ?', ['other', lost?.id])

  const runs = claimed.map(runOf)
  const results = await Promise.all(claimed.map((job, i) => writer.commit({ job, owner: 'proc', run: runs[i]!, outcome: ok(`pdf${i}`), event: i === 0 || i === 2 })))
  assert.deepEqual(results, [true, true, false, true, true])
  assert.equal(transactions, 1, 'the five jobs that finished within the linger went in one transaction')

  const [rows] = await db.query<RowDataPacket[]>(`SELECT j.id, j.status, j.run_id, j.document_id, d.content FROM render_jobs j LEFT JOIN documents d ON d.id = j.document_id
    WHERE j.id IN (?)`, [claimed.map((j) => j.id)])
  for (const [i, job] of claimed.entries()) {
    const r = rows.find((x) => x.id === job.id) as RowDataPacket
    if (i === 2) {
      assert.equal(r.status, 'running', 'the lost claim did not finish the job')
      assert.equal(r.document_id, null)
      continue
    }
    assert.equal(r.status, 'succeeded')
    assert.equal(r.run_id, runs[i]?.id)
    assert.equal(Buffer.from(r.content).toString(), `pdf${i}`, 'each job got its own document')
  }
  const [runRows] = await db.query<RowDataPacket[]>('SELECT id FROM runs WHERE id IN (?)', [runs.map((r) => r.id)])
  assert.deepEqual(new Set(runRows.map((r) => r.id)), new Set(runs.filter((_, i) => i !== 2).map((r) => r.id)), 'no run for the lost claim')
  const [events] = await db.query<RowDataPacket[]>('SELECT payload FROM events WHERE workspace_id = ?', [workspaceId])
  assert.equal(events.length, 1, 'only the winning claim that asked for an event wrote one')
  assert.equal(JSON.parse(events[0]?.payload).data.jobId, claimed[0]?.id)
  const [docs] = await db.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM documents WHERE job_id IN (?)', [claimed.map((j) => j.id)])
  assert.equal(Number(docs[0]?.n), 4)
})

test('a completion the database refuses (run version above the INT column) fails alone; the others of its batch commit', async () => {
  const db = database.db
  const jobs = createJobsRepo(db)
  const deps = {
    config: { documents: { ttlMs: 3_600_000 } },
    db,
    jobs,
    documents: createDocumentsRepo(db),
    runs: createRunsRepo(db),
    outbox: createOutbox(createRepos(db)),
    links: createDocumentLinks(createKeyring([Buffer.alloc(32, 7)]), 60_000),
    baseUrl: () => 'https://svc.test'
  } as unknown as CompletionsDeps
  const writer = createCompletions(deps, 64)
  const fresh = Array.from({ length: 4 }, newJob)
  for (const j of fresh) await jobs.insert(db, j)
  const claimed = await jobs.claim('poison', 4, 30_000)
  assert.equal(claimed.length, 4)
  const runs = claimed.map(runOf)
  runs[2]!.version = 2147483648
  const results = await Promise.allSettled(claimed.map((job, i) => writer.commit({ job, owner: 'poison', run: runs[i]!, outcome: ok(`p${i}`), event: false })))
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'])
  const [rows] = await db.query<RowDataPacket[]>('SELECT id, status FROM render_jobs WHERE id IN (?)', [claimed.map((j) => j.id)])
  for (const [i, job] of claimed.entries()) {
    assert.equal((rows.find((r) => r.id === job.id) as RowDataPacket).status, i === 2 ? 'running' : 'succeeded', `job ${i}`)
  }
  const [runRows] = await db.query<RowDataPacket[]>('SELECT id FROM runs WHERE id IN (?)', [runs.map((r) => r.id)])
  assert.equal(runRows.length, 3, 'the good runs are written; the refused one is not')
})
