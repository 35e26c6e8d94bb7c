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
