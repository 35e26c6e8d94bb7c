// engine/pdf/offsets.ts: the tagged documents' table of object offsets, 4 bytes an object, grown
// by chunks past the first 65,536 objects (a long report's table is never copied whole).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Offsets } from '../../../engine/pdf/offsets.js'

test('Offsets: grows by chunks past 65,536 objects, every entry kept', () => {
  const t = new Offsets()
  const n = 3 * 65536 + 17
  for (let i = 0; i < n; i++) t.push(null)
  assert.equal(t.length, n)
  for (const i of [0, 4095, 4096, 65535, 65536, 131071, 131072, n - 1]) t.set(i, i + 1000)
  assert.equal(t.at(65535), 66535)
  assert.equal(t.at(65536), 66536)
  assert.equal(t.at(n - 1), n + 999)
  assert.equal(t.at(1), null)
  assert.equal(t.at(n), null)
  assert.equal([...t].filter((v) => v !== null).length, 8)
  assert.throws(() => { t.set(n, 1) }, /offset 1 of/)
})

test('Offsets: entries written before the table doubles are kept by the copy', () => {
  const t = new Offsets()
  // Written as pdfkit writes them, each soon after its push: every doubling (256, 512, … 65,536)
  // and the first chunk past it find entries already set.
  for (let i = 0; i < 70000; i++) {
    t.push(null)
    t.set(i, i + 1)
  }
  for (const i of [0, 255, 256, 511, 512, 4095, 4096, 65535, 65536, 69999]) assert.equal(t.at(i), i + 1)
})
