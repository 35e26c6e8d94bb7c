// A job whose process is killed (SIGKILL) while it writes a big document into the store leaves
// nothing a download can see; another process retries it and writes the document whole.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { RowDataPacket } from 'mysql2'
import { createDb } from '../../../server/store/db.js'
import { createTestDatabase, serverUrl } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { startServer, makeHome } from '../../helpers/server.js'
import type { TestServer } from '../../helpers/server.js'
import { bearer } from '../../helpers/fixtures.js'
import { createDataDatabase, dropDataDatabase, renderWorkspace } from '../../helpers/render-data.js'
import { startChildServer } from '../../helpers/child-server.js'
import type { ChildServer } from '../../helpers/child-server.js'

const masterKey = randomBytes(32).toString('hex')
const STREAM = { SVC_RENDER_STREAM_ABOVE: '65536', SVC_RENDER_MAX_LABELS: '100000', SVC_MASTER_KEY: masterKey }
const LABELS = { template: 'shipping-label', parameters: { batchId: 9 } }
let database: TestDatabase
let front: TestServer
let dataName: string
let home: string
let ws: Awaited<ReturnType<typeof renderWorkspace>>
const children: ChildServer[] = []

before(async () => {
  database = await createTestDatabase('streamcrash')
  dataName = `${database.name}_data`
  const dataUrl = await createDataDatabase(dataName)
  const data = createDb(`${serverUrl()}/${dataName}`, { connectionLimit: 1 })
  // ~7 MB of ZPL: the document's first chunk and at least one more.
  const rows = Array.from({ length: 12_000 }, (_, i) => [9, `TRK${i}`, `Recipient ${i}`, `${i} Long Street Name`, 'Springfield', '12345', 'US', 1.5, 1])
  await data.query('INSERT INTO parcels (batch_id, tracking_no, recipient_name, street, city, postcode, country, weight_kg, qty) VALUES ?', [rows])
  await data.end()
  home = await makeHome()
  // The front server takes requests only (its job loop is off): the children run the job.
  front = await startServer(database.url, { ...STREAM, SVC_JOBS: 'false' }, home)
  ws = await renderWorkspace(front.context, dataUrl)
})
after(async () => {
  for (const c of children) await c.kill()
  await front.close()
  await database.drop()
  await dropDataDatabase(dataName)
})

async function until<T> (what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 1200; i++) {
    const v = await probe()
    if (v !== undefined) return v
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`never happened: ${what}`)
}

const documentsOf = async (jobId: string): Promise<RowDataPacket[]> =>
  (await front.context.db.query<RowDataPacket[]>('SELECT id, pending FROM documents WHERE job_id = ?', [jobId]))[0]

test('killed mid-write: no visible document; the retry on another process writes it whole', async () => {
  const sync = await front.fetch('POST', '/api/v1/render', { headers: bearer(ws.key.key), body: LABELS })
  assert.equal(sync.status, 200)
  const accepted = await front.fetch('POST', '/api/v1/render', { headers: bearer(ws.key.key), body: { ...LABELS, async: true } })
  const jobId = accepted.json().jobId as string
  // Holds the document's second chunk: the writer has stored its first chunk (pending) and waits
  // on a named lock this test holds, taken by a trigger on the chunk rows.
  const locker = createDb(database.url, { connectionLimit: 1 })
  const conn = await locker.getConnection()
  await conn.query("SELECT GET_LOCK('hold_chunks', 60)")
  await conn.query(`CREATE TRIGGER hold_chunks BEFORE INSERT ON document_chunks FOR EACH ROW
    SET @held = GET_LOCK('hold_chunks', 60)`)
  const env = { ...STREAM, SVC_HOME: home, SVC_DATABASE_URL: database.url, SVC_JOB_POLL: '50ms', SVC_JOB_LEASE: '2s' }
  const doomed = await startChildServer(env)
  children.push(doomed)
  try {
    await until('the first chunk written, pending', async () => {
      const docs = await documentsOf(jobId)
      return docs.length === 1 && docs[0]?.pending === 1 ? true : undefined
    })
    await doomed.kill('SIGKILL')
  } finally {
    await conn.query("SELECT RELEASE_LOCK('hold_chunks')")
    await conn.query('DROP TRIGGER IF EXISTS hold_chunks')
    conn.release()
    await locker.end()
  }
  const unfinished = await front.fetch('GET', `/api/v1/jobs/${jobId}`, { headers: bearer(ws.key.key) })
  assert.equal(unfinished.json().status, 'running')
  assert.equal(unfinished.json().documentUrl ?? null, null)
  assert.equal((await documentsOf(jobId)).filter((d) => d.pending === 0).length, 0, 'nothing visible')

  children.push(await startChildServer(env))
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON under test
  const done: any = await until('the retry finished', async () => {
    const job = (await front.fetch('GET', `/api/v1/jobs/${jobId}`, { headers: bearer(ws.key.key) })).json()
    return job.status === 'succeeded' || job.status === 'failed' ? job : undefined
  })
  assert.equal(done.status, 'succeeded', JSON.stringify(done.error))
  assert.equal(done.attempts, 2)
  const visible = (await documentsOf(jobId)).filter((d) => d.pending === 0)
  assert.equal(visible.length, 1, 'one committed document; the dead attempt\'s stays pending until swept')
  const download = await front.fetch('GET', new URL(done.documentUrl as string).pathname)
  assert.equal(download.status, 200)
  assert.ok(download.body.equals(sync.body), 'byte-identical to the sync render')
})
