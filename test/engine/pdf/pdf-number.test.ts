// engine/pdf/pdf-number.ts: numbers as a PDF writes them.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { decimal, fmt } from '../../../engine/pdf/pdf-number.js'

test('decimal: an object number\'s text, the same as String(n) below and past the cached range', () => {
  const ns = [0, 1, 9, 10, 99, 100, 101, 999, 1000, 16383, 16384, 16385, 20000, 100000, 100001, 625066,
    1_000_000, 1_048_576, 99_999_999, 2 ** 31 - 1, 2 ** 32 - 1]
  for (let n = 16000; n < 70000; n += 7) ns.push(n)
  const wrong = ns.filter((n) => decimal(n) !== String(n))
  assert.deepEqual(wrong, [])
})

test('fmt: at most 2 decimals, integers as they are', () => {
  assert.equal(fmt(12), '12')
  assert.equal(fmt(841.889), '841.89')
  assert.equal(fmt(-0.004), '0')
  assert.equal(fmt(0.1 + 0.2), '0.3')
})
