// A label's printer resolution end to end: per request (context.labelDpi), per environment
// (its default), recorded in the run history and shown in the job view.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { RowDataPacket } from 'mysql2'
import type { TestServer } from '../../helpers/server.js'
import { bearer } from '../../helpers/fixtures.js'
import { renderFixture } from '../../helpers/render-data.js'
import { problemOf } from '../../helpers/problems.js'

let fx: Awaited<ReturnType<typeof renderFixture>>
let server: TestServer
let ws: Awaited<ReturnType<typeof renderFixture>>['ws']

before(async () => {
  fx = await renderFixture('labeldpi')
  server = fx.server
  ws = fx.ws
})
after(async () => { await fx.close() })

const render = (body: unknown) => server.fetch('POST', '/api/v1/render', { headers: bearer(ws.key.key), body })

async function runDpi (runId: string): Promise<unknown> {
  for (let i = 0; i < 60; i++) {
    const [rows] = await server.context.db.query<RowDataPacket[]>('SELECT label_dpi FROM runs WHERE id = ?', [runId])
    const row = rows.at(0)
    if (row !== undefined) return row.label_dpi
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('run not written')
}

const base = { template: 'shipping-label', parameters: { batchId: 7 }, environment: 'staging' }

test('context.labelDpi renders the label at that resolution and the run records it', async () => {
  const res = await render({ ...base, context: { labelDpi: 300 } })
  assert.equal(res.status, 200)
  assert.match(res.text(), /^\^XA\^CI28\^PW1200\^LL1800\^FO59,59\^A0N,41,41/)
  assert.equal(await runDpi(String(res.headers['x-run-id'])), 300)
  const as = await render(base)
  assert.match(as.text(), /^\^XA\^CI28\^PW812\^LL1218\^FO40,40/, 'without either: as authored')
  assert.equal(await runDpi(String(as.headers['x-run-id'])), 203)
})

test("the environment's default applies unless the request names one; a bad value is 400", async () => {
  await server.context.services.environments.setLabelDpi(ws.workspace.id, 'staging', 600)
  try {
    const res = await render(base)
    assert.equal(res.status, 200)
    assert.match(res.text(), /^\^XA\^CI28\^PW2400\^LL3600/)
    assert.equal(await runDpi(String(res.headers['x-run-id'])), 600)
    assert.match((await render({ ...base, context: { labelDpi: 152 } })).text(), /^\^XA\^CI28\^PW608\^LL912/)
  } finally {
    await server.context.services.environments.setLabelDpi(ws.workspace.id, 'staging', null)
  }
  const bad = problemOf(await render({ ...base, context: { labelDpi: 250 } }), 400, 'VALIDATION_FAILED')
  assert.match(String(bad.detail), /context\.labelDpi must be 152, 203, 300 or 600/)
})

test('the job view shows the resolution an async label rendered at', async () => {
  const res = await render({ ...base, async: true, context: { labelDpi: 300 } })
  assert.equal(res.status, 202)
  const path = new URL(String(res.json().statusUrl)).pathname
  let job: { status: string, labelDpi: number | null } = { status: 'queued', labelDpi: null }
  for (let i = 0; i < 200 && (job.status !== 'succeeded' || job.labelDpi === null); i++) {
    job = (await server.fetch('GET', path, { headers: bearer(ws.key.key) })).json()
    if (job.status === 'failed') break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.equal(job.status, 'succeeded')
  assert.equal(job.labelDpi, 300)
})
