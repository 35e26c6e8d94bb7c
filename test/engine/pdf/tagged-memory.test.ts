// Bounded memory, tagged (issue 34): the structure tree is written as it grows, so a long tagged
// report peaks at about the RSS of the same report untagged. Fresh processes (rss-probe.ts),
// streamed, past the held pages; an RSS bound, not a time bound.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'
import { HOLD_PAGES } from '../../../engine/pdf/render-pdf.js'

const probe = fileURLToPath(new URL('./rss-probe.js', import.meta.url))
const peak = (rows: number, mode: string): { pages: number, rssMB: number } =>
  JSON.parse(execFileSync(process.execPath, [probe, String(rows), mode], { encoding: 'utf8', timeout: 300_000 })) as {
    pages: number
    rssMB: number
  }

// The bound is the tree not being held: a held tree peaked at 2.4× (308 vs 126 MB). The issue's
// 15% is a benchmark target (bench/RESULTS.md, measured 1.10–1.15× here): peak RSS moves with the
// timing of garbage collection, and a test bound on it that tight fails at random (139 vs 121 MB once).
test('a 30,000-row report tagged peaks within 1.4× the RSS of the same report untagged (the tree is not held)', () => {
  const untagged = peak(30_000, 'untagged')
  const tagged = peak(30_000, 'tagged')
  assert.equal(tagged.pages, untagged.pages)
  assert.ok(tagged.pages > 2 * HOLD_PAGES, `${tagged.pages} pages`)
  assert.ok(tagged.rssMB <= untagged.rssMB * 1.4,
    `tagged ${tagged.rssMB.toFixed(0)} MB, untagged ${untagged.rssMB.toFixed(0)} MB`)
})

// The counting pass held its first pages' output (tagged: ~10 KB a page): that output must be let
// go when the pass gives up holding, not carried through the second pass (as it was while pdfkit's
// stream kept each document reachable from a queued nextTick). Measured against the same report
// untagged (fonts, pools): +0.5 MB let go, +4.6 MB carried.
test('a long tagged report lets go of the counting pass\'s held output before the second pass', () => {
  const between = (mode: string): number => {
    const out = execFileSync(process.execPath, ['--expose-gc', probe, '15000', mode], { encoding: 'utf8', timeout: 300_000 })
    const r = JSON.parse(out) as { pages: number, betweenMB?: number }
    assert.ok(r.pages > HOLD_PAGES, `${r.pages} pages`)
    assert.ok(r.betweenMB !== undefined)
    return r.betweenMB
  }
  const untagged = between('untagged')
  const tagged = between('tagged')
  assert.ok(tagged < untagged + 1.5, `array buffers between the passes: tagged ${tagged} MB, untagged ${untagged} MB`)
})

// pdfkit's document is a Readable stream: its constructor's first push queued a process.nextTick
// holding it, so a caller rendering in one synchronous loop (a benchmark, a batch) kept every
// document of the loop, with its fonts, until the loop ended (~7 KB of heap a small report, 2.7 MB
// over 400). Documents now write around the stream (output-document.ts): nothing is queued.
test('documents rendered in one synchronous loop are not kept until the loop ends', () => {
  const probeLoop = fileURLToPath(new URL('./loop-probe.js', import.meta.url))
  const run = (n: number, mode: string): { documentMB: number, arrayBuffersMB: number, heapMB: number } =>
    JSON.parse(execFileSync(process.execPath, ['--expose-gc', probeLoop, String(n), mode], {
      encoding: 'utf8',
      timeout: 300_000
    })) as { documentMB: number, arrayBuffersMB: number, heapMB: number }
  for (const mode of ['untagged', 'tagged', 'pdfa']) {
    const few = run(400, mode)
    const many = run(1600, mode)
    // What the heap grows by per render beyond the first 400 (caches and compiled code are warm).
    const perRender = (many.heapMB - few.heapMB) * 2 ** 20 / 1200
    assert.ok(perRender < 1024, `${mode}: ${perRender.toFixed(0)} bytes a render (${JSON.stringify(many)})`)
    assert.ok(many.arrayBuffersMB < 2, `${mode}: ${JSON.stringify(many)}`)
  }
})
