// The storage quota's counter (issue 30, finding 5), beside the code: writers on separate pools
// (as on separate nodes) racing for one workspace's last bytes never store past its quota, and
// the counter row equals the bytes the documents hold after writes, discards and both sweeps.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import type { RowDataPacket } from 'mysql2/promise'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { createDb } from '../../../server/store/db.js'
import { createDocumentsRepo } from '../../../server/store/repos/documents.js'
import { Problem } from '../../../server/errors.js'

let database: TestDatabase
before(async () => { database = await createTestDatabase('docusage') })
after(async () => { await database.drop() })

const CHUNK = 1000
const QUOTA = 10_000

async function usage (workspaceId: string): Promise<{ counted: number, stored: number }> {
  const [rows] = await database.db.query<RowDataPacket[]>(`SELECT
      (SELECT COALESCE(SUM(bytes), 0) FROM document_usage WHERE workspace_id = ?) AS counted,
      (SELECT COALESCE(SUM(LENGTH(content)), 0) FROM documents WHERE workspace_id = ?) +
      (SELECT COALESCE(SUM(LENGTH(c.content)), 0) FROM document_chunks c JOIN documents d ON d.id = c.document_id WHERE d.workspace_id = ?) AS stored`,
  [workspaceId, workspaceId, workspaceId])
  return { counted: Number(rows[0]?.counted), stored: Number(rows[0]?.stored) }
}

test('writers on four pools racing for one workspace\'s quota: what is stored never passes it, the rest is refused', async () => {
  const workspaceId = randomUUID()
  const pools = Array.from({ length: 4 }, () => createDb(database.url, { connectionLimit: 2 }))
  try {
    // 12 documents of 2,500 bytes (three pieces each) for a 10,000-byte quota: at most four fit whole.
    const results = await Promise.all(Array.from({ length: 12 }, async (_, i) => {
      const writer = createDocumentsRepo(pools[i % 4]!, CHUNK).writer({
        id: randomUUID(),
        workspaceId,
        jobId: null,
        contentType: 'application/pdf',
        fileName: 'f.pdf',
        expiresAt: new Date(Date.now() + 3_600_000),
        quotaBytes: QUOTA
      })
      try {
        await writer.write(Buffer.alloc(2500, i))
        await writer.finish()
        return 'stored'
      } catch (err) {
        assert.ok(err instanceof Problem && err.code === 'RENDER_LIMIT_EXCEEDED', String(err))
        return 'refused'
      }
    }))
    assert.ok(results.includes('refused'))
    const u = await usage(workspaceId)
    assert.equal(u.counted, u.stored, 'the counter equals the bytes stored')
    assert.ok(u.stored <= QUOTA, `stored ${u.stored} ≤ ${QUOTA}`)
    assert.ok(u.stored > QUOTA - 2 * CHUNK, `the quota was used up to its last pieces: ${u.stored}`)
  } finally {
    await Promise.all(pools.map(async (p) => { await p.end() }))
  }
})

test('discards, the expiry sweep and the dead-writer sweep take exactly the deleted bytes off', async () => {
  const workspaceId = randomUUID()
  const repo = createDocumentsRepo(database.db, CHUNK)
  const write = async (size: number): Promise<string> => {
    const id = randomUUID()
    const w = repo.writer({ id, workspaceId, jobId: null, contentType: 'application/pdf', fileName: 'f.pdf', expiresAt: new Date(Date.now() + 3_600_000), quotaBytes: QUOTA })
    await w.write(Buffer.alloc(size, 1))
    await w.finish()
    return id
  }
  const kept = await write(1500)
  const discarded = await write(2200)
  const expiring = await write(3100)
  const dead = await write(700)
  await repo.commitPending(database.db, [{ id: kept }, { id: expiring }])
  await repo.insertMany(database.db, [{ id: randomUUID(), workspaceId, jobId: null, contentType: 'application/pdf', fileName: 'f.pdf', content: Buffer.alloc(400), expiresAt: new Date(Date.now() + 3_600_000) }])
  const all = 1500 + 2200 + 3100 + 700 + 400
  assert.deepEqual(await usage(workspaceId), { counted: all, stored: all })
  await repo.discardPending(discarded)
  await database.db.execute('UPDATE documents SET expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND WHERE id = ?', [expiring])
  assert.equal(await repo.sweepExpired(), 1)
  await database.db.execute('UPDATE documents SET created_at = UTC_TIMESTAMP(3) - INTERVAL 1 HOUR WHERE id = ?', [dead])
  assert.equal(await repo.sweepDeadPending(60_000), 1)
  assert.deepEqual(await usage(workspaceId), { counted: 1500 + 400, stored: 1500 + 400 })
})

test('the total quota: a workspace under its own quota is refused once all workspaces together would pass the total', async () => {
  const [rows] = await database.db.query<RowDataPacket[]>('SELECT COALESCE(SUM(bytes), 0) AS n FROM document_usage')
  const total = Number(rows[0]?.n) + 1500
  const write = async (workspaceId: string): Promise<string> => {
    const w = createDocumentsRepo(database.db, CHUNK).writer({
      id: randomUUID(),
      workspaceId,
      jobId: null,
      contentType: 'application/pdf',
      fileName: 'f.pdf',
      expiresAt: new Date(Date.now() + 3_600_000),
      quotaBytes: QUOTA,
      totalQuotaBytes: total
    })
    try {
      await w.write(Buffer.alloc(1000))
      await w.finish()
      return 'stored'
    } catch (err) {
      return err instanceof Problem ? `${err.code}: ${err.message}` : String(err)
    }
  }
  assert.equal(await write(randomUUID()), 'stored')
  const fresh = randomUUID()
  assert.match(await write(fresh), /^RENDER_LIMIT_EXCEEDED: .*the service's storage quota/)
  assert.deepEqual(await usage(fresh), { counted: 0, stored: 0 }, 'nothing of the refused document stays')
})
