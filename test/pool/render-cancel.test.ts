// A caller's cancel (RenderTaskOptions.signal, the studio's aborted stale renders): a running
// render is stopped and its thread freed (the worker replaced, as on a timeout), a waiting one
// never starts, and neither counts as a timeout. Time limits are not involved: the test decides
// when the cancel comes, with a render far longer than the test.
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { createRenderPool } from '../../pool/render-pool.js'
import type { RenderInput } from '../../engine/types.js'
import { input, invoiceDefinition, invoiceHeader, invoiceLines } from '../engine/pdf/fixtures.js'

const datasets = [
  { code: 'header', cardinality: 'single', query: 'SELECT 1', fields: [] },
  { code: 'lines', cardinality: 'multiple', query: 'SELECT 1', fields: [] }
]
const def = { ...invoiceDefinition(), datasets }
const small = (): RenderInput => input(def, { header: invoiceHeader, lines: invoiceLines(10) }, {}, 'cancel:1')
// ~1,000 pages: seconds of work, still running when the test cancels it.
const long = (): RenderInput => input(def, { header: invoiceHeader, lines: invoiceLines(40_000) },
  { maxRows: 1_000_000, maxPages: 100_000 }, 'cancel:1')
const turn = async (): Promise<void> => { await new Promise((resolve) => setImmediate(resolve)) }

const pools: Array<{ close (): Promise<void> }> = []
after(async () => { for (const p of pools) await p.close() })

test('a cancelled render stops on its thread, frees it, and is not a timeout', async () => {
  const pool = createRenderPool({ threads: 1, maxQueue: 0, timeoutMs: 600_000 })
  pools.push(pool)
  assert.ok((await pool.render(small())).ok) // warm the worker: it has compiled the template
  const cancel = new AbortController()
  const pending = pool.render(long(), { signal: cancel.signal })
  await turn()
  assert.equal(pool.stats().running, 1, 'the long render is on the only thread')
  const busy = await pool.render(small())
  assert.deepEqual({ ok: busy.ok, code: busy.ok ? '' : busy.code }, { ok: false, code: 'RENDER_BUSY' }, 'no thread, no queue')
  cancel.abort()
  const r = await pending
  assert.deepEqual({ ok: r.ok, code: r.ok ? '' : r.code, message: r.ok ? '' : r.message },
    { ok: false, code: 'RENDER_FAILED', message: 'render cancelled by its caller' })
  assert.equal(pool.stats().timeouts, 0)
  assert.equal(pool.stats().running, 0, 'the thread is free')
  // The worker was terminated mid-render: its replacement has compiled nothing and asks for the
  // template, so the stale render no longer holds the thread.
  const resent = pool.stats().definitionsResent
  const next = await pool.render(small())
  assert.ok(next.ok, JSON.stringify(next))
  assert.equal(pool.stats().definitionsResent, resent + 1)
})

test('a render cancelled before it starts never runs', async () => {
  const pool = createRenderPool({ threads: 1, timeoutMs: 600_000 })
  pools.push(pool)
  assert.ok((await pool.render(small())).ok)
  const completed = pool.stats().completed
  const r = await pool.render(long(), { signal: AbortSignal.abort() })
  assert.equal(r.ok, false)
  assert.equal(pool.stats().completed, completed)
  const resent = pool.stats().definitionsResent
  assert.ok((await pool.render(small())).ok)
  assert.equal(pool.stats().definitionsResent, resent, 'the worker was never started on it, nor replaced')
})
