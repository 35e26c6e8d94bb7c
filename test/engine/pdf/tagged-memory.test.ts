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
