// Service-database statements never depend on the server's sql_mode (issue 12 item 8): with
// NO_BACKSLASH_ESCAPES set globally on the suite's MariaDB, values with quotes and backslashes in
// a render's parameters (run history) and in an async job (job insert) are stored byte for byte,
// and nothing else is written. The global mode is restored afterwards.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createDb } from '../../server/store/db.js'
import { serverUrl } from '../helpers/db.js'
import { renderFixture } from '../helpers/render-data.js'
import { bearer } from '../helpers/fixtures.js'

let fx: Awaited<ReturnType<typeof renderFixture>> | undefined
let saved: string | undefined
const admin = (): ReturnType<typeof createDb> => createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })

before(async () => {
  const db = admin()
  try {
    saved = ((await db.query('SELECT @@GLOBAL.sql_mode AS m'))[0] as Array<{ m: string }>)[0]?.m
    await db.query("SET GLOBAL sql_mode = CONCAT(@@GLOBAL.sql_mode, ',NO_BACKSLASH_ESCAPES')")
  } finally { await db.end() }
  // Started after the change: every connection of its pool is new and gets the global mode first.
  fx = await renderFixture('sec_sqlmode', { SVC_RATE_LIMIT: '1000000' })
})

after(async () => {
  const db = admin()
  try { if (saved !== undefined) await db.query('SET GLOBAL sql_mode = ?', [saved]) } finally { await db.end() }
  await fx?.close()
})

const HOSTILE = "x\\'), ('evil\\\\'); DELETE FROM runs; -- \\"

test('with NO_BACKSLASH_ESCAPES global, hostile quotes in run history and job inserts are stored as sent', async () => {
  assert.ok(fx !== undefined)
  const [mode] = await fx.server.context.db.query('SELECT @@GLOBAL.sql_mode AS g, @@SESSION.sql_mode AS s') as unknown as [Array<{ g: string, s: string }>]
  assert.match(mode[0]!.g, /NO_BACKSLASH_ESCAPES/, 'the server really runs with it')
  assert.doesNotMatch(mode[0]!.s, /NO_BACKSLASH_ESCAPES/, 'the service connection sets its own sql_mode')
  const context = { [`k${HOSTILE}`]: HOSTILE }
  // A parameter named with the payload: refused, and its run (with the name in the message) recorded.
  const sync = await fx.server.fetch('POST', '/api/v1/render', { headers: bearer(fx.ws.key.key), body: { template: 'invoice', parameters: { invoiceId: 1, [HOSTILE]: 1 } } })
  assert.equal(sync.status, 400, sync.text())
  const correlationId = String(sync.json().correlationId)
  const job = await fx.server.fetch('POST', '/api/v1/render', { headers: bearer(fx.ws.key.key), body: { template: 'invoice', parameters: { invoiceId: 2 }, context, async: true } })
  assert.equal(job.status, 202, job.text())
  const jobId = String(job.json().jobId)
  const db = fx.server.context.db
  let run: Array<Record<string, unknown>> = []
  for (let i = 0; i < 100 && run.length === 0; i++) {
    run = (await db.query('SELECT * FROM runs WHERE correlation_id = ?', [correlationId]))[0] as Array<Record<string, unknown>>
    if (run.length === 0) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assert.equal(run.length, 1, 'the run was recorded')
  assert.ok(String(run[0]?.error_message).includes(HOSTILE), 'the run row holds the name as sent')
  const [jobs] = await db.query('SELECT context FROM render_jobs WHERE id = ?', [jobId]) as unknown as [Array<{ context: string }>]
  assert.deepEqual(JSON.parse(jobs[0]!.context), context)
  const [count] = await db.query('SELECT COUNT(*) AS n FROM runs') as unknown as [Array<{ n: number }>]
  assert.ok(Number(count[0]?.n) >= 1, 'no rows were deleted by the payload')
  const [evil] = await db.query("SELECT COUNT(*) AS n FROM render_jobs WHERE id LIKE 'evil%'") as unknown as [Array<{ n: number }>]
  assert.equal(Number(evil[0]?.n), 0)
})
