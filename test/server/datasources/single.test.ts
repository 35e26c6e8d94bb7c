// `single` datasets through a real server: `truncated` only means "left out because of maxRows"
// (spec 2.4), a single dataset answers its first row, and a `required` one with no row fails the
// render with DATASET_FAILED naming it.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { bearer } from '../../helpers/fixtures.js'
import { renderFixture, readExample } from '../../helpers/render-data.js'

let fx: Awaited<ReturnType<typeof renderFixture>>
let key: Record<string, string>

before(async () => {
  fx = await renderFixture('single')
  key = bearer(fx.ws.key.key)
  // A single dataset whose query yields every invoice (two rows), first by id.
  const wide = await readExample('invoice') as any // eslint-disable-line @typescript-eslint/no-explicit-any -- fixture JSON
  wide.code = 'wide'
  wide.datasets[0].query = wide.datasets[0].query.replace('WHERE i.id = :invoiceId', 'WHERE i.id >= :invoiceId ORDER BY i.id')
  await fx.server.context.services.templates.publish(fx.ws.workspace.id, wide, { note: 'test', publishedBy: 'tests' })
})
after(async () => { await fx.close() })

const execute = (template: string, dataset: string, body: Record<string, unknown>) =>
  fx.server.fetch('POST', `/api/v1/datasets/${template}/${dataset}/execute`, { headers: key, body })

test('a single dataset whose query yields several rows answers the first, not truncated', async () => {
  for (const maxRows of [1, 1000]) {
    const res = await execute('wide', 'header', { parameters: { invoiceId: 1 }, maxRows })
    assert.equal(res.status, 200)
    const body = res.json()
    assert.equal(body.rowCount, 1)
    assert.equal(body.rows[0].number, 'INV-2026-0001', 'the first row in the query order')
    assert.equal(body.truncated, false, `maxRows ${maxRows}`)
  }
  const render = await fx.server.fetch('POST', '/api/v1/render', { headers: key, body: { template: 'wide', parameters: { invoiceId: 1 } } })
  assert.equal(render.status, 200, 'the render uses the first row too')
})

test('a multiple dataset is truncated only when maxRows left rows out', async () => {
  const cut = (await execute('invoice', 'lines', { parameters: { invoiceId: 1 }, maxRows: 5 })).json()
  assert.deepEqual([cut.rowCount, cut.truncated], [5, true])
  const exact = (await execute('invoice', 'lines', { parameters: { invoiceId: 1 }, maxRows: 12 })).json()
  assert.deepEqual([exact.rowCount, exact.truncated], [12, false])
})

test('a required single dataset with no row fails the render with DATASET_FAILED naming it', async () => {
  for (const async of [false, true]) {
    const res = await fx.server.fetch('POST', '/api/v1/render', { headers: key, body: { template: 'invoice', async, parameters: { invoiceId: 999 } } })
    let failure: { errorCode?: string, detail?: string, code?: string, message?: string }
    if (!async) {
      assert.equal(res.status, 422)
      failure = res.json()
    } else {
      const jobId = res.json().jobId as string
      let job = res.json()
      for (let i = 0; i < 200 && job.status !== 'failed' && job.status !== 'succeeded'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        job = (await fx.server.fetch('GET', `/api/v1/jobs/${jobId}`, { headers: key })).json()
      }
      assert.equal(job.status, 'failed')
      failure = { errorCode: job.error.code, detail: job.error.message }
    }
    assert.equal(failure.errorCode, 'DATASET_FAILED')
    assert.match(String(failure.detail), /Dataset "header" is required and returned no row/)
  }
  const explored = (await execute('invoice', 'header', { parameters: { invoiceId: 999 } })).json()
  assert.deepEqual([explored.rowCount, explored.truncated], [0, false], 'execute still answers: no rows')
  assert.equal((await fx.server.fetch('POST', '/api/v1/render', { headers: key, body: { template: 'invoice', parameters: { invoiceId: 2 } } })).status, 200)
})
