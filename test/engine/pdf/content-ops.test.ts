// engine/pdf/content-ops.ts: a page's content written as bytes, numbers as fmt() prints them.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ContentOps } from '../../../engine/pdf/content-ops.js'
import { fmt } from '../../../engine/pdf/pdf-number.js'

const text = (o: ContentOps): string => Buffer.from(o.view()).toString('latin1')

function prng (seed: number): () => number {
  let s = seed
  return () => { s = (s * 1103515245 + 12345) & 0x7fffffff; return s / 0x80000000 }
}

test('num() writes what fmt() prints: integers, 2 decimals rounded as Math.round, -0, huge and odd values', () => {
  const o = new ContentOps()
  const fixed = [0, -0, 1, -1, 0.5, -0.5, 0.005, -0.005, 0.004, -0.004, 1.005, 2.675, 0.1 + 0.2, 841.889, 595.28,
    -841.89, 9_999_999_999_999, -9_999_999_999_999.99, 1e13, -1e13, 1e21, 123e-9, NaN, Infinity, -Infinity]
  const rnd = prng(7)
  const values = [...fixed]
  for (let i = 0; i < 20000; i++) {
    values.push((rnd() - 0.5) * 10 ** Math.floor(rnd() * 15 - 2))
    values.push(Math.round((rnd() - 0.5) * 1e6) / 1000)
  }
  for (const v of values) {
    o.reset()
    o.num(v)
    assert.equal(text(o), fmt(v), String(v))
  }
})

test('str() writes a byte per code unit (Latin-1); take() copies out and empties; view() is what was written', () => {
  const o = new ContentOps()
  o.str('BT\n(Gr\u00fc\u00dfe) Tj\n')
  o.num(12.5)
  assert.equal(text(o), 'BT\n(Gr\u00fc\u00dfe) Tj\n12.5')
  assert.deepEqual([...o.view()].slice(4, 9), [71, 114, 0xfc, 0xdf, 101])
  const out = o.take()
  assert.equal(out.toString('latin1'), 'BT\n(Gr\u00fc\u00dfe) Tj\n12.5')
  assert.equal(o.length, 0)
  o.str('ET\n')
  assert.equal(text(o), 'ET\n')
  assert.equal(out.toString('latin1'), 'BT\n(Gr\u00fc\u00dfe) Tj\n12.5', 'what take() gave is a copy')
})

test('insert() puts text in before what follows it; the buffer grows past its first 16 KB', () => {
  const o = new ContentOps()
  o.str('BT\n')
  const at = o.length
  o.str('(a) Tj\n')
  o.insert(at, '/Span <</ActualText <FEFF0061>>> BDC\n')
  o.str('EMC\nET\n')
  assert.equal(text(o), 'BT\n/Span <</ActualText <FEFF0061>>> BDC\n(a) Tj\nEMC\nET\n')
  o.reset()
  const line = '0.5 0.5 10 10 re f\n'
  for (let i = 0; i < 2000; i++) o.str(line)
  o.insert(0, 'q\n')
  assert.equal(o.length, 2 + 2000 * line.length)
  assert.equal(text(o), 'q\n' + line.repeat(2000))
})

test('release() hands the buffer on: a released writer is empty and writes again; another writer gets the buffer', () => {
  const a = new ContentOps()
  a.str('first page')
  const before = a.view().buffer
  a.release()
  assert.equal(a.length, 0)
  assert.equal(a.view().length, 0)
  const b = new ContentOps()
  b.str('next')
  assert.equal(b.view().buffer, before, 'the free buffer is taken again')
  assert.equal(text(b), 'next')
  a.str('again')
  assert.equal(text(a), 'again')
  assert.notEqual(a.view().buffer, b.view().buffer)
  a.release()
  b.release()
})
