// Nothing of a dataset's SQL or of the values bound to it reaches the log, a problem or the run
// history: a real server logs to a file while datasets fail in ways whose driver messages quote
// SQL (unknown column) and a bound value (XPATH error); the file, the answers and the runs are
// searched for both. And a raw mysql2 error logged on purpose is reduced to its code.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from 'pino'
import type { RowDataPacket } from 'mysql2/promise'
import { createLogger } from '../../server/logger.js'
import { makeHome } from '../helpers/server.js'
import { bearer } from '../helpers/fixtures.js'
import { renderFixture, readExample } from '../helpers/render-data.js'

const FRAGMENT = 'zz_fragment_col'
const VALUE = '/&leak-param-7731'
let fx: Awaited<ReturnType<typeof renderFixture>>
let logger: Logger
let logFile: string

before(async () => {
  logFile = join(await makeHome(), 'svc.log')
  logger = createLogger({ logLevel: 'info', logFile })
  fx = await renderFixture('logsql', {}, { logger })
  const leaky = await readExample('invoice') as any // eslint-disable-line @typescript-eslint/no-explicit-any -- fixture JSON
  leaky.code = 'leaky'
  leaky.parameters.push({ name: 'probe', type: 'string', required: false, description: 'a value that reaches ExtractValue' })
  leaky.datasets[0].query += " AND ExtractValue('<a/>', :probe) IS NOT NULL"
  leaky.datasets[1].query = leaky.datasets[1].query.replace('ORDER BY l.line_no', `ORDER BY ${FRAGMENT}`)
  await fx.server.context.services.templates.publish(fx.ws.workspace.id, leaky, { note: 'test', publishedBy: 'tests' })
})
after(async () => { await fx.close() })

test('dataset failures: no SQL fragment or bound value in the log, the problems or the run history', async () => {
  const key = bearer(fx.ws.key.key)
  const answers: string[] = []
  for (const dataset of ['header', 'lines']) {
    const res = await fx.server.fetch('POST', `/api/v1/datasets/leaky/${dataset}/execute`, { headers: key, body: { parameters: { invoiceId: 1, probe: VALUE } } })
    assert.equal(res.status, 422, dataset)
    assert.equal(res.json().errorCode, 'DATASET_FAILED')
    answers.push(res.text())
  }
  const render = await fx.server.fetch('POST', '/api/v1/render', { headers: key, body: { template: 'leaky', parameters: { invoiceId: 1, probe: VALUE } } })
  assert.equal(render.status, 422)
  answers.push(render.text())
  const job = await fx.server.fetch('POST', '/api/v1/render', { headers: key, body: { template: 'leaky', async: true, parameters: { invoiceId: 1, probe: VALUE } } })
  const jobId = job.json().jobId as string
  let failed: any // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON
  for (let i = 0; i < 200 && failed?.status !== 'failed'; i++) {
    failed = (await fx.server.fetch('GET', `/api/v1/jobs/${jobId}`, { headers: key })).json()
    if (failed.status !== 'failed') await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.equal(failed.status, 'failed')
  answers.push(JSON.stringify(failed))

  // The driver really did quote both: the same statement straight on the data database.
  const driver = await fx.server.context.db.query(`SELECT ExtractValue('<a/>', ?) AS x FROM ${fx.dataName}.invoices ORDER BY ${FRAGMENT}`, [VALUE]).catch((err: Error) => err)
  assert.ok(driver instanceof Error && (driver as { sql?: string }).sql?.includes(FRAGMENT))
  logger.error({ err: driver }, 'a careless caller logs a raw driver error')
  logger.warn({ err: new Error('wrapped', { cause: driver }) }, 'and a wrapped one')

  await fx.server.server.close().catch(() => {})
  const [runs] = await fx.database.db.query<RowDataPacket[]>('SELECT * FROM runs')
  assert.ok(runs.length >= 2, 'runs were recorded')
  await new Promise<void>((resolve, reject) => {
    logger.flush((err) => {
      // The callback passes null or undefined for no error.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (err !== undefined && err !== null) reject(err)
      else resolve()
    })
  })
  const log = await readFile(logFile, 'utf8')
  assert.match(log, /dataset failed/, 'the failures are in the log')
  assert.match(log, /"message":"ER_[A-Z_]+ \(driver message withheld/)
  for (const [where, text] of [['log', log], ['answers', answers.join('\n')], ['runs', JSON.stringify(runs)]]) {
    for (const needle of [FRAGMENT, 'leak-param-7731', 'ExtractValue', 'SELECT', 'invoice_lines', 'XPATH']) {
      assert.ok(!text?.includes(needle), `${needle} found in the ${where}`)
    }
  }
})
