// Documents in chunks (issue 12, item 9): no statement carries more than one chunk, every size
// reads back byte-identical (whole or streamed), and the sweep deletes the chunks too. A small
// chunk size here stands in for the 4 MiB of production.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes, randomUUID } from 'node:crypto'
import type { RowDataPacket } from 'mysql2/promise'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { createDocumentsRepo } from '../../../server/store/repos/documents.js'
import { checkStorageLimits, StorageLimitError } from '../../../server/store/limits.js'
import { loadConfig } from '../../../server/config.js'

let database: TestDatabase
before(async () => { database = await createTestDatabase('docs') })
after(async () => { await database.drop() })

const CHUNK = 1000
const doc = (size: number, expiresIn = 3_600_000) => ({
  id: randomUUID(), workspaceId: randomUUID(), jobId: null, contentType: 'application/pdf', fileName: 'f.pdf', content: randomBytes(size), expiresAt: new Date(Date.now() + expiresIn)
})

async function chunkRows (id: string): Promise<number[]> {
  const [rows] = await database.db.query<RowDataPacket[]>('SELECT seq, LENGTH(content) AS n FROM document_chunks WHERE document_id = ? ORDER BY seq', [id])
  return rows.map((r) => Number(r.n))
}

test('every size reads back byte-identical; the first chunk stays in the row, the rest in chunk rows', async () => {
  const repo = createDocumentsRepo(database.db, CHUNK)
  const docs = [doc(1), doc(999), doc(1000), doc(1001), doc(5500), doc(20)]
  await repo.insertMany(database.db, docs)
  for (const d of docs) {
    const whole = await repo.get(d.id)
    assert.ok(whole !== undefined)
    assert.equal(whole.bytes, d.content.length)
    assert.ok(whole.content.equals(d.content), `${d.content.length} bytes read whole`)
    const open = await repo.open(d.id)
    assert.ok(open !== undefined)
    const parts: Buffer[] = []
    for await (const part of open.stream) parts.push(part as Buffer)
    assert.ok(Buffer.concat(parts).equals(d.content), `${d.content.length} bytes streamed`)
  }
  assert.deepEqual(await chunkRows(docs[2]!.id), [])
  assert.deepEqual(await chunkRows(docs[3]!.id), [1])
  assert.deepEqual(await chunkRows(docs[4]!.id), [1000, 1000, 1000, 1000, 500])
  await repo.insert(database.db, docs[0]!).then(() => assert.fail('a second insert of one id must fail'), () => {})
})

test('the sweep deletes expired documents with their chunks', async () => {
  const repo = createDocumentsRepo(database.db, CHUNK)
  const expired = doc(3500, -60_000)
  const live = doc(2500)
  await repo.insertMany(database.db, [expired, live])
  assert.equal(await repo.open(expired.id), undefined, 'an expired document is not served')
  assert.ok(await repo.sweepExpired() >= 1)
  assert.deepEqual(await chunkRows(expired.id), [])
  assert.deepEqual(await chunkRows(live.id), [1000, 500])
})

test('start refuses limits the database cannot hold, naming both values', async () => {
  const [rows] = await database.db.query<RowDataPacket[]>('SELECT @@max_allowed_packet AS p')
  const packet = Number(rows[0]?.p)
  await checkStorageLimits(database.db, loadConfig({}, {}, 2))
  const tooBig = loadConfig({ SVC_BODY_LIMIT: String(packet) }, {}, 2)
  await assert.rejects(checkStorageLimits(database.db, tooBig), (err: unknown) => {
    assert.ok(err instanceof StorageLimitError)
    assert.match(err.message, new RegExp(`max_allowed_packet is ${packet} bytes`))
    assert.match(err.message, new RegExp(`SVC_BODY_LIMIT \\(${packet} bytes\\)`))
    return true
  })
})
