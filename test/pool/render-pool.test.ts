import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { readFileSync } from 'node:fs'
import { createRenderPool } from '../../pool/render-pool.js'
import { renderResult } from '../../engine/render.js'
import type { RenderInput, RenderResult } from '../../engine/types.js'
import { input, invoiceDefinition, invoiceHeader, invoiceLines, pdfInfo } from '../engine/pdf/fixtures.js'

const datasets = [
  { code: 'header', cardinality: 'single', query: 'SELECT 1', fields: [] },
  { code: 'lines', cardinality: 'multiple', query: 'SELECT 1', fields: [] }
]
const def = { ...invoiceDefinition(), datasets }
const small = (key = 'pool:1'): RenderInput => input(def, { header: invoiceHeader, lines: invoiceLines(10) }, {}, key)
// ~10 pages: milliseconds of work, many times a one-page render: enough to hold a thread while a
// test queues more (queueing is synchronous) and to finish after a small render started later.
const medium = (): RenderInput => input(def, { header: invoiceHeader, lines: invoiceLines(400) }, {}, 'pool:1')
// ~100 pages: tens of ms of work at least, for a render that must still be running after the
// test has let the event loop turn. Time limits are tested on mocked timers: the test decides
// when a limit passes, so no assertion depends on how fast this machine is.
const huge = (): RenderInput => input(def, { header: invoiceHeader, lines: invoiceLines(4000) }, {}, 'pool:1')
// ~1,000 pages: seconds of work, for a render that must still be running when its limit passes
// (it is cut then, so it costs little).
const long = (): RenderInput => input(def, { header: invoiceHeader, lines: invoiceLines(40_000) }, { maxRows: 1_000_000, maxPages: 100_000 }, 'pool:1')
/** One turn of the event loop: every microtask has run, no worker's answer can have come in yet. */
const turn = async (): Promise<void> => { await new Promise((resolve) => setImmediate(resolve)) }

const pools: Array<{ close (): Promise<void> }> = []
after(async () => { for (const p of pools) await p.close() })

test('pool renders and the bytes arrive as a Buffer', async () => {
  const pool = createRenderPool({ threads: 2, timeoutMs: 10_000 })
  pools.push(pool)
  const r = await pool.render(small())
  assert.ok(r.ok, JSON.stringify(r))
  assert.ok(Buffer.isBuffer(r.bytes))
  assert.equal(r.format, 'pdf')
  assert.equal(r.pageCount, 1)
  assert.equal(pdfInfo(r.bytes).pages, 1)
  assert.equal(r.bytes.subarray(0, 5).toString(), '%PDF-')
  // Many renders at once: all succeed and are identical.
  const all = await Promise.all(Array.from({ length: 8 }, () => pool.render(small())))
  for (const x of all) { assert.ok(x.ok); assert.ok(Buffer.from(x.bytes).equals(r.bytes)) }
  assert.ok(pool.stats().completed >= 9)
})

test('a template error comes back as RENDER_FAILED with its message', async () => {
  const pool = createRenderPool({ threads: 1, timeoutMs: 10_000 })
  pools.push(pool)
  const bad = input({ ...def, document: { body: [{ text: '{{ row.x * }}' }] } }, {}, {}, 'pool:bad')
  const r = await pool.render(bad)
  assert.equal(r.ok, false)
  assert.ok(r.code === 'RENDER_FAILED' && /document.body.0.text/.test(r.message), JSON.stringify(r))
})

test('batch renders (jobs) wait behind interactive ones and never take the waiting room', async () => {
  const pool = createRenderPool({ threads: 1, maxQueue: 1, timeoutMs: 30_000 })
  pools.push(pool)
  const order: string[] = []
  const track = (name: string, p: Promise<unknown>): Promise<unknown> => p.then((r) => { order.push(name); return r })
  const running = track('running', pool.render(medium(), { lane: 'batch' }))
  const batches = Array.from({ length: 5 }, (_, i) => track(`batch${i}`, pool.render(small(), { lane: 'batch' })))
  // Five jobs wait, yet the one interactive place is free: a sync render is not turned away.
  const interactive = track('interactive', pool.render(small()))
  const rest = await Promise.all([running, interactive, ...batches]) as Array<{ ok: boolean }>
  assert.ok(rest.every((r) => r.ok))
  assert.deepEqual(order, ['running', 'interactive', 'batch0', 'batch1', 'batch2', 'batch3', 'batch4'])
  assert.equal(pool.stats().busy, 0)
})

test('a batch render that waited longer than the time limit goes before interactive ones (no starvation)', async () => {
  // The threshold itself is checked on a moved clock in render-queue.test.ts; here the pool under
  // real interactive load: the batch render waits its turn first, then runs while the load goes on.
  const pool = createRenderPool({ threads: 1, maxQueue: 2, timeoutMs: 30_000, batchMaxWaitMs: 300 })
  pools.push(pool)
  assert.ok((await pool.render(small())).ok) // warm the worker
  // A starved batch render would let this many interactive renders pass (≥ 1 ms each: many
  // seconds, far past the 300 ms limit); the load stops there so a failure cannot hang.
  const cap = 20_000
  let interactive = 0
  let batchQueued = false
  let batchDone = false
  let cameAfterWentBefore = 0
  // Two clients keep an interactive render waiting at every moment (one runs, one waits).
  const load = Promise.all([0, 1].map(async () => {
    // eslint-disable-next-line no-unmodified-loop-condition -- `batchDone` is changed by another async task
    while (!batchDone && interactive < cap) {
      const after = batchQueued
      const r = await pool.render(small())
      if (!r.ok) { await turn(); continue } // never spin on microtasks
      interactive++
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- `batchDone` may change during the await
      if (after && !batchDone) cameAfterWentBefore++
    }
  }))
  await turn()
  batchQueued = true
  const batch = await pool.render(small(), { lane: 'batch' })
  batchDone = true
  const before = interactive
  await load
  assert.ok(batch.ok, JSON.stringify(batch))
  assert.ok(before < cap, `the batch render ran while interactive load went on (${before} interactive renders)`)
  assert.ok(cameAfterWentBefore >= 1, 'interactive renders queued after it went first until it had waited its limit')
})

test('aged batch renders take every other turn, not all of them: interactive renders keep going', async () => {
  // batchMaxWaitMs 0: every batch waiter counts as aged at once.
  const pool = createRenderPool({ threads: 1, maxQueue: 8, timeoutMs: 30_000, batchMaxWaitMs: 0 })
  pools.push(pool)
  assert.ok((await pool.render(small())).ok) // warm the worker
  const order: string[] = []
  const track = (name: string, p: Promise<unknown>): Promise<unknown> => p.then((r) => { order.push(name); return r })
  const first = track('running', pool.render(huge()))
  const all = [first]
  for (let i = 0; i < 4; i++) all.push(track(`b${i}`, pool.render(small(), { lane: 'batch' })))
  await turn() // the batch renders have waited (> 0 ms) before the interactive ones arrive
  for (let i = 0; i < 2; i++) all.push(track(`i${i}`, pool.render(small())))
  assert.ok((await Promise.all(all) as Array<{ ok: boolean }>).every((r) => r.ok))
  assert.deepEqual(order, ['running', 'b0', 'i0', 'b1', 'i1', 'b2', 'b3'])
})

test('B keeps 8× the threads busy: the sync render of A is served within one render per thread', async () => {
  const threads = 2
  const pool = createRenderPool({ threads, maxQueue: 32, timeoutMs: 60_000 })
  pools.push(pool)
  const done: string[] = []
  const track = (name: string, p: Promise<RenderResult>): Promise<RenderResult> =>
    p.then((r) => {
      done.push(name)
      return r
    })
  const flood = Array.from({ length: 8 * threads }, (_, i) => track(`b${i}`, pool.render(medium(), { workspaceId: 'B' })))
  const a = await track('a', pool.render(small(), { workspaceId: 'A' }))
  assert.ok(a.ok, JSON.stringify(a))
  // A took the first thread B gave back: only the renders B had running when A came finished first.
  assert.ok(done.indexOf('a') <= threads, done.join(' '))
  assert.ok((await Promise.all(flood)).every((r) => r.ok))
  assert.equal(pool.stats().busy, 0)
})

test('a full queue answers RENDER_BUSY without queueing', async () => {
  const pool = createRenderPool({ threads: 1, maxQueue: 1, timeoutMs: 30_000 })
  pools.push(pool)
  const first = pool.render(medium()) // running
  const second = pool.render(medium()) // waiting
  const third = await pool.render(small()) // no room
  assert.deepEqual({ ok: third.ok, code: !third.ok ? third.code : '' }, { ok: false, code: 'RENDER_BUSY' })
  assert.equal(pool.stats().busy, 1)
  const [a, b] = await Promise.all([first, second])
  assert.ok(a.ok && b.ok)
  assert.ok((await pool.render(small())).ok, 'accepts work again once the queue drained')
})

test('a render past the timeout answers RENDER_TIMEOUT and the pool keeps working', async (t) => {
  // Mocked from the start: the first render (thread start, modules, compile) may take longer
  // than 1.5 s on a busy machine, and no limit passes until the test says so.
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const pool = createRenderPool({ threads: 1, timeoutMs: 1500 })
  pools.push(pool)
  assert.ok((await pool.render(small())).ok) // warm the worker
  const before = pool.stats().timeouts
  const pending = pool.render(long())
  await turn()
  assert.equal(pool.stats().running, 1, 'the render is on the thread')
  t.mock.timers.tick(1499)
  await turn()
  assert.equal(pool.stats().running, 1, 'not cut before its limit')
  // The limit passes while the ~1,000-page render is still being drawn: the answer comes now, and
  // the worker is terminated mid-render (its replacement, below, has compiled nothing).
  t.mock.timers.tick(1)
  const r = await pending
  assert.deepEqual({ ok: r.ok, code: !r.ok ? r.code : '' }, { ok: false, code: 'RENDER_TIMEOUT' })
  assert.equal(pool.stats().timeouts, before + 1)
  const resent = pool.stats().definitionsResent
  const after = await pool.render(small())
  assert.ok(after.ok, JSON.stringify(after))
  assert.ok(Buffer.isBuffer(after.bytes))
  // The replacement worker has compiled nothing: the pool sent the task without the template,
  // the worker asked for it, the pool sent it again.
  assert.equal(pool.stats().definitionsResent, resent + 1)
})

test('waiting for a thread is capacity, not a timeout: a long wait answers RENDER_BUSY, the wait does not eat the ' +
  'render time', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] }) // from the start, as above
  const pool = createRenderPool({ threads: 1, maxQueue: 4, timeoutMs: 1500 })
  pools.push(pool)
  assert.ok((await pool.render(small())).ok)
  const order: string[] = []
  const track = (name: string, p: Promise<RenderResult>): Promise<RenderResult> =>
    p.then((r) => { order.push(`${name}:${r.ok ? 'ok' : r.code}`); return r })
  const blocker = track('blocker', pool.render(long())) // holds the only thread
  const waiter = track('waiter', pool.render(small())) // waits for it
  await turn()
  assert.deepEqual([pool.stats().running, pool.stats().waiting.interactive], [1, 1])
  // Both limits pass together: the waiter never got a thread, so it is turned away as capacity
  // (503 RENDER_BUSY, counted busy, not a timeout); the blocker is cut at its render limit.
  const busy = pool.stats().busy
  t.mock.timers.tick(1500)
  await Promise.all([waiter, blocker])
  assert.deepEqual(order, ['waiter:RENDER_BUSY', 'blocker:RENDER_TIMEOUT'])
  assert.equal(pool.stats().busy, busy + 1)
  assert.equal(pool.stats().timeouts, 1)
  // A render that waited still gets its whole time limit once it has a thread: the second one
  // waits 1000 ms (mocked) behind the first, then runs past 1500 ms since it arrived, and is not cut.
  const first = pool.render(huge())
  const second = pool.render(huge())
  await turn()
  t.mock.timers.tick(1000)
  const a = await first
  await turn()
  assert.deepEqual([pool.stats().running, pool.stats().waiting.interactive], [1, 0], 'the second render has the thread')
  t.mock.timers.tick(1000)
  const b = await second
  assert.ok(a.ok && b.ok, JSON.stringify([a.ok || a.code, b.ok || b.code]))
  assert.equal(pool.stats().timeouts, 1)
})

test('once a version has compiled, tasks are sent without the template text', async () => {
  const pool = createRenderPool({ threads: 1, maxQueue: 16, timeoutMs: 10_000 })
  pools.push(pool)
  const base = small('pool:light')
  let reads = 0
  // Structured clone reads every property: counting reads of `definition` counts clones of it.
  const counted = (): RenderInput => Object.defineProperty({ ...base }, 'definition', { enumerable: true, get: () => { reads++; return base.definition } })
  const first = await pool.render(counted())
  assert.ok(first.ok, JSON.stringify(first))
  assert.equal(reads, 1)
  const rest = await Promise.all(Array.from({ length: 10 }, async () => await pool.render(counted())))
  for (const r of rest) {
    assert.ok(r.ok && Buffer.from(r.bytes).equals(first.bytes), JSON.stringify(r.ok ? r.pageCount : r))
  }
  assert.equal(reads, 1, 'the definition was not cloned again')
  assert.equal(pool.stats().definitionsResent, 0)
})

test('a failed compile is not remembered: the next task carries the template again', async () => {
  const pool = createRenderPool({ threads: 1, timeoutMs: 10_000 })
  pools.push(pool)
  const bad = input({ ...def, document: { body: [{ text: '{{ row.x * }}' }] } }, {}, {}, 'pool:bad2')
  for (let i = 0; i < 2; i++) {
    const r = await pool.render(bad)
    assert.ok(!r.ok && r.code === 'RENDER_FAILED' && /document.body.0.text/.test(r.message), JSON.stringify(r))
  }
  assert.equal(pool.stats().definitionsResent, 0)
})

test('labels through the pool: a large ZPL output arrives whole and identical to an in-process render', async () => {
  const pool = createRenderPool({ threads: 2, timeoutMs: 30_000 })
  pools.push(pool)
  const examples = new URL('../../../examples/', import.meta.url)
  const definition = readFileSync(new URL('templates/shipping-label.json', examples), 'utf8')
  const { parcels } = JSON.parse(readFileSync(new URL('data/shipping-label.json', examples), 'utf8')) as { parcels: Array<Record<string, unknown>> }
  const many = Array.from({ length: 3000 }, (_, i) => ({ ...parcels[i % parcels.length], qty: 1 + (i % 2) }))
  const task: RenderInput = { versionKey: 'pool:labels', definition, parameters: { batchId: 1 }, context: { language: 'de' }, datasets: { parcels: many }, limits: { maxPages: 10, maxBytes: 1e8, maxRows: 1e6, maxLabels: 1e6 } }
  const local = renderResult(task)
  assert.ok(local.ok)
  const r = await pool.render(task)
  assert.ok(r.ok, JSON.stringify(r))
  assert.equal(r.labelCount, 4500)
  assert.ok(r.bytes.length > 1_000_000)
  assert.ok(Buffer.from(r.bytes).equals(local.bytes))
})
