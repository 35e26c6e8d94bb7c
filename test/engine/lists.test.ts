// engine/lists.ts: map() and map().join('') as loops (why: the module's comment).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { joined, mapped } from '../../engine/lists.js'

test('mapped is map: each item with its index, in order, into a new array', () => {
  const xs = ['a', 'b', 'c']
  const out = mapped(xs, (x, i) => `${i}:${x}`)
  assert.deepEqual(out, ['0:a', '1:b', '2:c'])
  assert.notEqual(out, xs)
  assert.deepEqual(mapped([], (x: number) => x), [])
})

test('joined is map().join(""): no separator, empty for an empty list', () => {
  assert.equal(joined([1, 2, 3], (n) => `<${n}>`), '<1><2><3>')
  assert.equal(joined([], (n: number) => String(n)), '')
})
