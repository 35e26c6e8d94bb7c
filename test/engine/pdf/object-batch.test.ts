// engine/pdf/object-batch.ts: structure objects written as bytes (numbers digit by digit), one
// batch per thread handed from tree to tree.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { putBytes } from '../../../engine/bytes.js'
import { ObjectBatch, ascii, giveBack, takeBatch } from '../../../engine/pdf/object-batch.js'

test('int() writes the digits String(n) would, str() the ASCII text, take() copies them out and starts again', () => {
  const b = new ObjectBatch()
  const ns = [0, 7, 9, 10, 99, 100, 16383, 16384, 65536, 625066, 1_048_576, 99_999_999, 2 ** 31 - 1, 2 ** 32 - 1]
  for (let n = 0; n < 20000; n += 13) ns.push(n)
  for (const n of ns) { b.int(n); b.str(' 0 R ') }
  const text = b.take().toString('latin1')
  assert.equal(text, ns.map((n) => `${n} 0 R `).join(''))
  assert.equal(b.length, 0)
  b.str('<</S/P>>')
  assert.equal(b.take().toString('latin1'), '<</S/P>>')
})

test('room() and putBytes: bytes made once by ascii(), written between str() and int() writes, grow the batch', () => {
  const b = new ObjectBatch()
  const head = ascii(' 0 obj\n<</S/TD/P ')
  const end = ascii('>>\nendobj\n')
  assert.deepEqual([...ascii('/K [')], [47, 75, 32, 91])
  const expected: string[] = []
  for (let i = 0; i < 3000; i++) {
    b.int(i)
    b.length = putBytes(b.room(head.length), b.length, head)
    b.int(i * 7)
    b.str(' 0 R')
    b.length = putBytes(b.room(end.length), b.length, end)
    expected.push(`${i} 0 obj\n<</S/TD/P ${i * 7} 0 R>>\nendobj\n`)
  }
  assert.ok(b.capacity > 32 * 1024, 'grown past its first 32 KB')
  assert.equal(b.take().toString('latin1'), expected.join(''))
})

test('a batch grows past its first 32 KB, keeping what was written', () => {
  const b = new ObjectBatch()
  const piece = '<</S/TD/P 123456 0 R/Pg 98765 0 R/K 17 >>\nendobj\n'
  for (let i = 0; i < 5000; i++) { b.int(i); b.str(piece) }
  const out = b.take().toString('latin1')
  assert.ok(out.length > 250_000)
  assert.equal(out, Array.from({ length: 5000 }, (_, i) => i + piece).join(''))
})

test('takeBatch: a tree has its batch alone until it gives it back; a tree given up keeps its own', () => {
  const first = takeBatch()
  const second = takeBatch() // the first tree never gave its batch back (a counting pass)
  assert.notEqual(first, second)
  first.str('first')
  second.str('second')
  giveBack(second)
  const third = takeBatch()
  assert.equal(third, second)
  assert.equal(third.length, 0, 'given back empty')
  assert.equal(first.take().toString('latin1'), 'first')
  giveBack(third)
})

test('takeBatch: a batch grown past 256 KB is not kept for the next tree', () => {
  const big = takeBatch()
  for (let i = 0; i < 40_000; i++) big.str('123456 0 R ')
  assert.ok(big.capacity > 256 * 1024)
  big.take()
  giveBack(big)
  const next = takeBatch()
  assert.notEqual(next, big)
  assert.ok(next.capacity <= 256 * 1024)
  giveBack(next)
  assert.equal(takeBatch(), next, 'a small one is kept')
})
