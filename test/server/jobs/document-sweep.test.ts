// The expired-document sweep: one sweep deletes expired documents batch after batch until a
// batch comes back short, bounded by a number of batches; live documents stay.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { documentsRepo } from '../../../server/store/repos/documents.js'
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
  return { expired: Number(rows[0].expired ?? 0), live: Number(rows[0].live ?? 0) }
}

test('one sweep deletes a backlog of more than one batch, and stops at its batch bound', async () => {
  const docs = documentsRepo(database.db)
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
