// engine/lists.ts: map() and map().join('') as loops, a scratch array emptied in place (why: the
// module's comment).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { emptied, joined, mapped } from '../../engine/lists.js'

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

test('emptied empties the array itself, whatever it held, and it fills again from index 0', () => {
  for (const n of [0, 1, 3, 200]) {
    const xs: unknown[] = Array.from({ length: n }, (_, i) => i)
    const same = xs
    emptied(xs)
    assert.equal(xs, same)
    assert.equal(xs.length, 0)
    assert.equal(0 in xs, false)
    xs.push('a', 'b')
    assert.deepEqual(xs, ['a', 'b'])
  }
})
