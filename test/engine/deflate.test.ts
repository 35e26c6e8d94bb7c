// engine/deflate.ts: one reused zlib stream per level, byte for byte what deflateSync writes.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { deflateSync, inflateSync } from 'node:zlib'
import { deflate, deflateReuses } from '../../engine/deflate.js'

const text = Buffer.from('<ram:LineTotalAmount>12.50</ram:LineTotalAmount>\n'.repeat(500) + 'Dockstraße 1 ¶ ',
  'utf8')
// Random bytes do not compress: ~200 KB in, more than the 64 KB output space out (several writes).
const noise = randomBytes(200_000)
const inputs: Array<[string, Buffer]> = [
  ['empty', Buffer.alloc(0)],
  ['one byte', Buffer.from('x')],
  ['repetitive text', text],
  ['incompressible', noise]
]

test('the native stream is reused (Node\'s internals are as this module expects)', () => {
  assert.equal(deflateReuses(), true)
})

test('the same bytes as deflateSync at levels 1-9, calls interleaved', () => {
  for (let round = 0; round < 2; round++) {
    for (const level of [1, 2, 3, 4, 5, 6, 7, 8, 9]) {
      for (const [name, data] of inputs) {
        assert.deepEqual(deflate(data, level), deflateSync(data, { level }), `${name} at level ${level}`)
      }
    }
  }
  assert.deepEqual(deflate(text), deflateSync(text), 'default level')
})

test('level 0 (stored) is a valid stream of the same data, its blocks cut where the output space ends', () => {
  for (const [name, data] of inputs) assert.deepEqual(inflateSync(deflate(data, 0)), data, name)
})

test('each result is the caller\'s: later calls do not overwrite it', () => {
  const first = deflate(text, 4)
  const copy = Buffer.from(first)
  deflate(noise, 4)
  deflate(Buffer.from('something else entirely'), 4)
  assert.deepEqual(first, copy)
  assert.deepEqual(inflateSync(first), text)
  const big = deflate(noise, 3)
  deflate(text, 3)
  assert.deepEqual(inflateSync(big), noise)
})

test('a subarray is deflated from its own offset, not from its buffer\'s start', () => {
  const part = text.subarray(100, 2100)
  assert.deepEqual(inflateSync(deflate(part, 4)), part)
})
