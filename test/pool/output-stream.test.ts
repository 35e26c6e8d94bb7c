import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { EventEmitter } from 'node:events'
import { readFileSync } from 'node:fs'
import { after, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { createOutputHub } from '../../pool/output-hub.js'
import { CHUNK_BYTES, CREDIT } from '../../worker/output-protocol.js'
import { HOLD_PAGES } from '../../engine/pdf/render-pdf.js'
import { createRenderPool, type RenderPool, type RenderStream } from '../../pool/render-pool.js'
import type { RenderTaskInput } from '../../worker/task-protocol.js'
import type { RenderInput, RenderResult } from '../../engine/types.js'
import {
  input, invoiceDefinition, invoiceDocument, invoiceHeader, invoiceLines, pdfText
} from '../engine/pdf/fixtures.js'
import { itemAt } from '../helpers/item-at.js'

const datasets = [
  { code: 'header', cardinality: 'single', query: 'SELECT 1', fields: [] },
  { code: 'lines', cardinality: 'multiple', query: 'SELECT 1', fields: [] }
]
const def = { ...invoiceDefinition(), datasets }
// About 43 lines per page; the footer shows `Page X of Y`.
const invoice = (lines: number, limits: Partial<RenderInput['limits']> = {}): RenderInput =>
  input(def, { header: invoiceHeader, lines: invoiceLines(lines) }, { maxRows: 1e6, maxPages: 1e5, ...limits },
    'stream:1')
// The same without a page count in its footer: pages are written as they are laid out.
const noCount = { ...def, document: { ...invoiceDocument, pageFooter: [{ text: 'Page {{ page }}' }] } }
const plain = (lines: number): RenderInput =>
  input(noCount, { header: invoiceHeader, lines: invoiceLines(lines) }, { maxRows: 1e6, maxPages: 1e5 }, 'stream:2')

const pools: RenderPool[] = []
after(async () => { for (const p of pools) await p.close() })
function newPool (timeoutMs = 60_000): RenderPool {
  const pool = createRenderPool({ threads: 1, timeoutMs })
  pools.push(pool)
  return pool
}

/** Streams `inp` and records every event in order. */
async function streamed (pool: RenderPool, inp: RenderInput, onChunk?: RenderStream['onChunk'], holdBytes?: number) {
  const events: string[] = []
  const chunks: Buffer[] = []
  const result = await pool.render(inp, {
    stream: {
      holdBytes,
      onPageCount: (n) => { events.push(`count ${n}`) },
      onChunk: async (c) => { events.push('chunk'); chunks.push(c); await onChunk?.(c) }
    }
  })
  return { result, events, chunks, bytes: Buffer.concat(chunks) }
}

test('streamed bytes equal the returned bytes, the count comes first, pieces are 64 KiB but the last', async () => {
  const pool = newPool()
  const cases: Array<[string, RenderInput, number]> = [
    ['1 page', invoice(10), 1],
    ['page X of Y, held in one pass', invoice(43 * 30), 30],
    ['page X of Y, counted first', invoice(43 * (HOLD_PAGES + 40)), HOLD_PAGES + 40],
    ['no page count, counted first', plain(43 * (HOLD_PAGES + 40)), HOLD_PAGES + 40]
  ]
  for (const [name, inp, approxPages] of cases) {
    const whole = await pool.render(inp)
    assert.ok(whole.ok, name)
    assert.ok(Math.abs(whole.pageCount - approxPages) <= approxPages / 10 + 1, `${name}: ${whole.pageCount} pages`)
    const s = await streamed(pool, inp)
    assert.ok(s.result.ok, `${name}: ${JSON.stringify(s.result)}`)
    assert.equal(s.result.bytes.byteLength, 0, name)
    assert.equal(s.result.pageCount, whole.pageCount, name)
    assert.ok(s.bytes.equals(whole.bytes), `${name}: same bytes`)
    assert.deepEqual(s.events, [`count ${whole.pageCount}`, ...s.chunks.map(() => 'chunk')], name)
    assert.equal(s.chunks.length, Math.ceil(whole.bytes.length / CHUNK_BYTES), name)
    for (const c of s.chunks.slice(0, -1)) assert.equal(c.length, CHUNK_BYTES, name)
    assert.ok(itemAt(s.chunks, -1).length > 0, name)
  }
})

test('output within holdBytes comes whole after its count; past it, in pieces; the task goes without its template ' +
  'once compiled', async () => {
  const pool = newPool()
  const small = invoice(43 * 3)
  const big = invoice(43 * 60)
  const [a, b] = [await pool.render(small), await pool.render(big)]
  assert.ok(a.ok && b.ok)
  const hold = { holdBytes: a.bytes.length + 1 }
  let reads = 0
  // Structured clone reads every property: counting reads of `definition` counts clones of it.
  const counted = (inp: RenderInput): RenderInput =>
    Object.defineProperty({ ...inp }, 'definition', { enumerable: true, get: () => { reads++; return inp.definition } })
  const events: string[] = []
  const chunks: Buffer[] = []
  const held = await pool.render(counted(small), {
    stream: {
      ...hold,
      onPageCount: (n) => { events.push(`count ${n}`) },
      onChunk: (c) => { events.push('chunk'); chunks.push(c) }
    }
  })
  assert.ok(held.ok && held.bytes.byteLength === 0)
  assert.deepEqual(events, [`count ${a.pageCount}`, 'chunk'])
  assert.ok(itemAt(chunks, 0).equals(a.bytes), 'the held output is the document')
  assert.equal(reads, 0, 'a version the worker compiled goes without its template, streamed or not')
  const past = await streamed(pool, big, undefined, hold.holdBytes)
  assert.ok(past.result.ok)
  assert.equal(past.chunks.length, Math.ceil(b.bytes.length / CHUNK_BYTES))
  assert.ok(past.bytes.equals(b.bytes))
  assert.equal(pool.stats().definitionsResent, 0)
})

test('labels stream too: the label count first, then the same ZPL bytes', async () => {
  const pool = newPool()
  const examples = new URL('../../../examples/', import.meta.url)
  const definition = readFileSync(new URL('templates/shipping-label.json', examples), 'utf8')
  const { parcels } = JSON.parse(readFileSync(new URL('data/shipping-label.json', examples), 'utf8')) as
    { parcels: Array<Record<string, unknown>> }
  const many = Array.from({ length: 1000 }, (_, i) => ({ ...parcels[i % parcels.length], qty: 1 }))
  const task: RenderInput = {
    versionKey: 'stream:labels',
    definition,
    parameters: { batchId: 1 },
    context: { language: 'de' },
    datasets: { parcels: many },
    limits: { maxPages: 10, maxBytes: 1e8, maxRows: 1e6, maxLabels: 1e6 }
  }
  const whole = await pool.render(task)
  assert.ok(whole.ok)
  const s = await streamed(pool, task)
  assert.ok(s.result.ok && s.result.format === 'zpl')
  assert.equal(s.events[0], `count ${whole.labelCount}`)
  assert.ok(s.chunks.length > 1)
  assert.ok(s.bytes.equals(whole.bytes))
})

test('page X of Y is right on every page of a streamed document counted first', async () => {
  const pool = newPool()
  const s = await streamed(pool, invoice(43 * (HOLD_PAGES + 10)))
  assert.ok(s.result.ok)
  const n = s.result.pageCount
  assert.ok(n > HOLD_PAGES)
  for (const p of [1, 2, HOLD_PAGES + 1, n]) assert.match(pdfText(s.bytes, p), new RegExp(`Page ${p} of ${n}\\b`))
})

test('a failure mid-stream is the result: maxBytes after some pieces were delivered', async () => {
  const pool = newPool()
  const s = await streamed(pool, invoice(43 * (HOLD_PAGES + 100), { maxBytes: 5 * CHUNK_BYTES }))
  assert.deepEqual({ ok: s.result.ok, code: s.result.ok ? '' : s.result.code },
    { ok: false, code: 'RENDER_LIMIT_EXCEEDED' })
  assert.ok(s.chunks.length >= 1, 'pieces had been delivered before the failure')
  // maxPages is found by the counting pass: no byte leaves before it.
  const t = await streamed(pool, invoice(43 * (HOLD_PAGES + 100), { maxPages: HOLD_PAGES + 20 }))
  assert.ok(!t.result.ok && t.result.code === 'RENDER_LIMIT_EXCEEDED' && /maxPages/.test(t.result.message))
  assert.deepEqual(t.events, [])
  assert.ok((await pool.render(invoice(10))).ok)
})

test('a consumer that fails stops the render: RENDER_FAILED, and the pool goes on', async () => {
  const pool = newPool()
  let calls = 0
  const s = await streamed(pool, invoice(43 * (HOLD_PAGES + 100)), () => {
    if (++calls === 2) throw new Error('socket closed')
  })
  assert.ok(!s.result.ok && s.result.code === 'RENDER_FAILED', JSON.stringify(s.result))
  assert.equal(calls, 2, 'no piece is handed over after the consumer failed')
  assert.ok((await pool.render(invoice(10))).ok)
})

test('a worker blocked on credit by a consumer that never finishes ends at the time limit', async (t) => {
  // Timers mocked from the start (as in pool.test.ts): thread start-up and compiling may take
  // long on a loaded machine, and the limit passes only when the test says so.
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const pool = newPool(20_000)
  assert.ok((await pool.render(invoice(10))).ok) // warm the worker
  let calls = 0
  // ~200 pages, ~430 KB: more than the 1 + CREDIT pieces the worker may post before it blocks.
  const pending = pool.render(invoice(43 * 200), {
    stream: { onChunk: async () => { calls++; await new Promise(() => {}) } }
  })
  const handedOver = (): number => calls // changed by the consumer, another async task
  while (handedOver() === 0) await new Promise((resolve) => setImmediate(resolve))
  assert.equal(pool.stats().running, 1, 'the render holds its thread, waiting for credit')
  t.mock.timers.tick(20_000)
  const r = await pending
  assert.deepEqual({ ok: r.ok, code: r.ok ? '' : r.code }, { ok: false, code: 'RENDER_TIMEOUT' })
  assert.equal(calls, 1, 'the first piece never resolved: no other was handed over')
  assert.equal(pool.stats().timeouts, 1)
  const again = await streamed(pool, invoice(10))
  assert.ok(again.result.ok, 'the pool works again')
})

test('a worker that reaches the time limit by itself, waiting for credit, counts as a timeout', async (t) => {
  // This thread's deadline never fires (its setTimeout is mocked): the worker's own wait, on
  // real time, ends first, as it may when a busy event loop runs the timer late.
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const pool = newPool(300)
  assert.ok((await pool.render(invoice(10))).ok) // warm the worker (no stream: no wait to time)
  const r = await pool.render(invoice(43 * 200), { stream: { onChunk: async () => { await new Promise(() => {}) } } })
  assert.deepEqual({ ok: r.ok, code: r.ok ? '' : r.code }, { ok: false, code: 'RENDER_TIMEOUT' })
  assert.equal(pool.stats().timeouts, 1)
})

test('a slow consumer holds the worker back: never more than CREDIT pieces ahead', async () => {
  const inp = invoice(43 * (HOLD_PAGES + 100)) // counted first, ~1.3 MB: ~20 pieces
  const ahead: number[] = []
  let release = (): void => {}
  const hub = createOutputHub()
  const receiver = hub.open({
    onChunk: async () => {
      ahead.push(receiver.produced() - receiver.delivered())
      if (ahead.length !== 3) return
      // Hold the third piece until the worker has used up its credit and is waiting.
      await new Promise<void>((resolve) => { release = resolve })
    }
  }, 60_000)
  const task: RenderTaskInput = { ...inp, output: receiver.channel }
  const worker = new Worker(fileURLToPath(new URL('./stream-worker.js', import.meta.url)), { workerData: { task } })
  // The worker's output pieces and its result share its parentPort: the hub takes the pieces.
  const done = new Promise<RenderResult>((resolve, reject) => {
    worker.on('message', (m: unknown) => { if (!hub.dispatch(m)) resolve(m as RenderResult) })
    worker.once('error', reject)
  })
  while (!receiver.waiting() || ahead.length < 3) await new Promise((resolve) => setImmediate(resolve))
  // Two delivered, the third in the consumer's hands: the worker posted exactly CREDIT past them.
  assert.equal(receiver.delivered(), 2)
  assert.equal(receiver.produced(), 2 + CREDIT)
  release()
  const result = await done
  assert.ok(result.ok, JSON.stringify(result))
  await receiver.complete(result, Object.assign(new EventEmitter(), { aborted: false }))
  receiver.close()
  await worker.terminate()
  assert.ok(result.ok, JSON.stringify(result))
  assert.equal(receiver.delivered(), receiver.produced())
  assert.ok(ahead.length > 3 * CREDIT)
  assert.ok(Math.max(...ahead) <= CREDIT, `at most ${CREDIT} ahead: ${Math.max(...ahead)}`)
})

test('a render within holdBytes posts no output message: its result carries the bytes', async () => {
  const inp = invoice(43)
  const whole = await newPool().render(inp)
  assert.ok(whole.ok)
  // Past the hold the output leaves in pieces of CHUNK_BYTES: here one (a tagged page is ~40 KB).
  assert.ok(whole.bytes.length < CHUNK_BYTES, `${whole.bytes.length} bytes`)
  for (const [holdBytes, messages] of [[whole.bytes.length, 0], [whole.bytes.length - 1, 2]] as const) {
    const hub = createOutputHub()
    const receiver = hub.open({ holdBytes, onChunk: () => {} }, 60_000)
    const task: RenderTaskInput = { ...inp, output: receiver.channel }
    const worker = new Worker(fileURLToPath(new URL('./stream-worker.js', import.meta.url)), { workerData: { task } })
    let routed = 0
    const result = await new Promise<RenderResult>((resolve, reject) => {
      worker.on('message', (m: unknown) => { if (hub.dispatch(m)) routed++; else resolve(m as RenderResult) })
      worker.once('error', reject)
    })
    await worker.terminate()
    receiver.close()
    assert.ok(result.ok, JSON.stringify(result))
    assert.equal(routed, messages, `hold ${holdBytes}: the count and one piece past the hold, nothing within it`)
    assert.equal(result.bytes.byteLength, messages === 0 ? whole.bytes.length : 0)
    if (messages === 0) assert.ok(Buffer.from(result.bytes).equals(whole.bytes))
  }
})

test('heap kept by a streamed render does not grow with its pages (1,200 pages, measured in the render ' +
  'process)', () => {
  const probe = fileURLToPath(new URL('./heap-probe.js', import.meta.url))
  const { pages, bytes, samples } = JSON.parse(execFileSync(process.execPath, ['--expose-gc', probe, String(43 * 1200)],
    { encoding: 'utf8' })) as { pages: number, bytes: number, samples: Array<[number, number]> }
  // Past HOLD_PAGES: counted first, then every page written as it is finished (the path measured).
  assert.ok(pages > HOLD_PAGES && pages >= 1150, `${pages} pages`)
  /** Heap in KB per page drawn, for a growth of `heap` over the first `upTo` bytes. */
  const kb = (heap: number, upTo: number): number => heap / 1024 / (pages * upTo / bytes)
  // Samples from a fifth of the drawing pass on (fonts, images and the first pages' objects have
  // settled) to nine tenths (the last bytes are font subsets and the cross-reference table).
  const settled = samples.filter(([b]) => b >= bytes / 5 && b <= bytes * 0.9)
  assert.ok(settled.length >= 20, `${settled.length} samples`)
  // The kept heap's growth per byte written (least squares), as heap per page: what is left per
  // page is the PDF's cross-reference bookkeeping (~0.3 KB measured); keeping the written pages'
  // dictionaries kept ~1.1 KB per page.
  const mean = (f: (s: [number, number]) => number): number => settled.reduce((a, s) => a + f(s), 0) / settled.length
  const mb = mean((s) => s[0])
  const mh = mean((s) => s[1])
  const slope = mean((s) => (s[0] - mb) * (s[1] - mh)) / mean((s) => (s[0] - mb) ** 2)
  const first = itemAt(settled, 0)
  const last = itemAt(settled, -1)
  const trace = `${(first[1] / 1048576).toFixed(2)} MB at ${first[0]} bytes, ${(last[1] / 1048576).toFixed(2)} MB ` +
    `at ${last[0]} of ${bytes}`
  assert.ok(kb(slope * bytes, bytes) < 0.6, `kept ${kb(slope * bytes, bytes).toFixed(2)} KB per page: ${trace}`)
  // And from the page count on (samples[0]: the drawing pass's fixed state, ~0.3 MB, included):
  // holding the written output, ~2 KB per page, would show here whatever the slope.
  const atCount = itemAt(samples, 0)[1]
  const grown = kb(last[1] - atCount, last[0])
  assert.ok(grown < 1.5, `grew ${grown.toFixed(2)} KB per page drawn: ${(atCount / 1048576).toFixed(2)} MB at the ` +
    `count, ${trace}`)
})
