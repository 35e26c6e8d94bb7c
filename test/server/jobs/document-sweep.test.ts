// The expired-document sweep: one sweep deletes expired documents batch after batch until a
// batch comes back short, bounded by a number of batches; live documents stay. The same sweep
// deletes pending documents whose writer died (older than config.documents.pendingMaxAgeMs)
// with their chunks; a younger pending one (another node may be writing it) and committed ones stay.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import pino from 'pino'
import { createDocumentsRepo } from '../../../server/store/repos/documents.js'
import { createJobsRepo } from '../../../server/store/repos/jobs.js'
import { createJobLoop } from '../../../server/jobs/loop.js'
import { loadConfig } from '../../../server/config.js'
import type { RowDataPacket } from 'mysql2'

let database: TestDatabase

before(async () => { database = await createTestDatabase('sweep') })
after(async () => { await database.drop() })

async function addDocuments (n: number, expired: boolean): Promise<void> {
  const values: unknown[][] = []
  for (let i = 0; i < n; i++) {
    values.push([randomUUID(), randomUUID(), 'application/pdf', 'f.pdf', 1, Buffer.from('x'), new Date(Date.now() + (expired ? -60_000 : 3_600_000) - i)])
  }
  await database.db.query('INSERT INTO documents (id, workspace_id, content_type, file_name, bytes, content, expires_at) VALUES ?', [values])
}

async function count (): Promise<{ expired: number, live: number }> {
  const [rows] = await database.db.query<RowDataPacket[]>('SELECT SUM(expires_at <= UTC_TIMESTAMP(3)) AS expired, SUM(expires_at > UTC_TIMESTAMP(3)) AS live FROM documents')
  return { expired: Number(rows[0]?.expired ?? 0), live: Number(rows[0]?.live ?? 0) }
}

test('one sweep deletes a backlog of more than one batch, and stops at its batch bound', async () => {
  const docs = createDocumentsRepo(database.db)
  await addDocuments(1250, true)
  await addDocuments(30, false)
  assert.equal(await docs.sweepExpired(500), 1250, 'the default sweep drains 1,250 expired documents (three batches)')
  assert.deepEqual(await count(), { expired: 0, live: 30 })

  await addDocuments(450, true)
  assert.equal(await docs.sweepExpired(100, 3), 300, 'bounded: three batches of 100')
  assert.deepEqual(await count(), { expired: 150, live: 30 })
  assert.equal(await docs.sweepExpired(100, 3), 150)
  assert.equal(await docs.sweepExpired(100, 3), 0)
  assert.deepEqual(await count(), { expired: 0, live: 30 })
})

const CHUNK = 1000

/** A pending document of 3,500 bytes (a row and three chunks), as a render writes it; committed if asked. */
async function writePending (committed = false): Promise<string> {
  const id = randomUUID()
  const docs = createDocumentsRepo(database.db, CHUNK)
  const writer = docs.writer({ id, workspaceId: randomUUID(), jobId: null, contentType: 'application/pdf', fileName: 'f.pdf', expiresAt: new Date(Date.now() + 3_600_000) })
  await writer.write(Buffer.alloc(3500, 1))
  await writer.finish()
  if (committed) await docs.commitPending(database.db, [{ id }])
  return id
}

/** Moves a document's creation `ms` into the past, by the database's clock as the sweep reads it. */
async function age (id: string, ms: number): Promise<void> {
  await database.db.execute('UPDATE documents SET created_at = UTC_TIMESTAMP(3) - INTERVAL ? MICROSECOND WHERE id = ?', [ms * 1000, id])
}

async function parts (id: string): Promise<{ row: number, chunks: number }> {
  const [rows] = await database.db.query<RowDataPacket[]>(
    'SELECT (SELECT COUNT(*) FROM documents WHERE id = ?) AS row_count, (SELECT COUNT(*) FROM document_chunks WHERE document_id = ?) AS chunks', [id, id])
  return { row: Number(rows[0]?.row_count), chunks: Number(rows[0]?.chunks) }
}

test('pending documents older than the longest write go with their chunks; younger pending and committed ones stay', async () => {
  const config = loadConfig({}, { SVC_HOME: '/tmp/svc-sweep-test', SVC_DATABASE_URL: database.url, SVC_MASTER_KEY: 'a'.repeat(64) })
  const maxAge = config.documents.pendingMaxAgeMs
  assert.ok(maxAge > config.render.timeoutMs + config.jobs.leaseMs, 'past the render timeout and the job lease')
  const stale = await writePending()
  const young = await writePending()
  const fresh = await writePending()
  const committed = await writePending(true)
  const held = randomUUID()
  await database.db.execute('INSERT INTO documents (id, workspace_id, content_type, file_name, bytes, content, expires_at) VALUES (?, ?, ?, ?, 1, ?, ?)',
    [held, randomUUID(), 'application/pdf', 'f.pdf', Buffer.from('x'), new Date(Date.now() + 3_600_000)])
  await age(stale, maxAge + 1000)
  await age(young, maxAge - 60_000) // still within the time a live writer on another node may take
  await age(committed, maxAge * 10)
  await age(held, maxAge * 10)
  assert.deepEqual(await parts(stale), { row: 1, chunks: 3 })

  const docs = createDocumentsRepo(database.db, CHUNK)
  assert.equal(await docs.sweepDeadPending(maxAge), 1)
  assert.deepEqual(await parts(stale), { row: 0, chunks: 0 }, 'the dead writer\'s row and chunks are gone')
  assert.deepEqual(await parts(young), { row: 1, chunks: 3 })
  assert.deepEqual(await parts(fresh), { row: 1, chunks: 3 })
  assert.deepEqual(await parts(committed), { row: 1, chunks: 3 })
  assert.deepEqual(await parts(held), { row: 1, chunks: 0 })
  assert.equal((await docs.get(committed))?.bytes, 3500, 'the committed document still reads back whole')
  assert.equal(await docs.sweepDeadPending(maxAge), 0)
  for (const id of [young, fresh, committed, held]) await database.db.execute('DELETE FROM documents WHERE id = ?', [id])
})

test('the job loop\'s document sweep removes a dead writer\'s pending document', async () => {
  const config = loadConfig({}, {
    SVC_HOME: '/tmp/svc-sweep-test', SVC_DATABASE_URL: database.url, SVC_MASTER_KEY: 'a'.repeat(64), SVC_JOB_POLL: '1h', SVC_DOCUMENT_SWEEP: '50ms'
  })
  const stale = await writePending()
  const fresh = await writePending()
  await age(stale, config.documents.pendingMaxAgeMs + 1000)
  const run = { execute: async () => {}, abandon: async () => {} }
  const documents = createDocumentsRepo(database.db, CHUNK)
  const loop = createJobLoop(config, { jobs: createJobsRepo(database.db), documents, run, log: pino({ level: 'silent' }) })
  loop.start()
  try {
    // Sweeps every 50 ms: wait for the one that takes the stale document (bounded).
    for (let i = 0; i < 200 && (await parts(stale)).row === 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  } finally {
    await loop.close()
  }
  assert.deepEqual(await parts(stale), { row: 0, chunks: 0 })
  assert.deepEqual(await parts(fresh), { row: 1, chunks: 3 }, 'a pending document being written now stays')
})
