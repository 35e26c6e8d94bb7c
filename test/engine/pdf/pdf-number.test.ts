// engine/pdf/pdf-number.ts: numbers as a PDF writes them.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { fmt } from '../../../engine/pdf/pdf-number.js'

test('fmt: at most 2 decimals, integers as they are', () => {
  assert.equal(fmt(12), '12')
  assert.equal(fmt(841.889), '841.89')
  assert.equal(fmt(-0.004), '0')
  assert.equal(fmt(0.1 + 0.2), '0.3')
})
