// engine/piece-deflate.ts: a zlib stream written from tagged templates, read back by zlib itself
// (inflateSync checks the Adler-32 too), with the repeats written as back-references.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { inflateSync } from 'node:zlib'
import { blockCode } from '../../engine/deflate-codes.js'
import { PieceDeflater } from '../../engine/piece-deflate.js'

// A code made for tags and digits; the random tests write bytes of every value with it too.
const CODE = blockCode('<ram:LineItem><ram:Name>Spring set</ram:Name></ram:LineItem> 0123456789')

/** A writer and the text it was given, for comparing with what zlib reads back. */
class Both {
  readonly x = new PieceDeflater(CODE)
  text = ''
  t (strings: TemplateStringsArray, ...values: string[]): void {
    this.x.t(strings, ...values)
    this.text += String.raw({ raw: strings }, ...values)
  }

  plain (s: string): void { this.x.t`${s}`; this.text += s }

  /** Finishes the stream, checks it reads back as the text; returns its size in bytes. */
  check (what: string): number {
    const z = this.x.finish()
    assert.equal(inflateSync(z).toString('latin1'), this.text, what)
    assert.equal(this.x.size, this.text.length, `${what}: size`)
    return z.length
  }
}

function prng (seed: number): () => number {
  let s = seed
  return () => { s = (s * 1103515245 + 12345) & 0x7fffffff; return s / 0x80000000 }
}

test('random templates, values and text read back as written, byte for byte', () => {
  const rnd = prng(7)
  const word = (): string => {
    // Mostly short, some empty, one in twenty long; bytes of the whole 0-255 range (9-bit codes).
    const n = rnd() < 0.05 ? Math.floor(rnd() * 3000) : Math.floor(rnd() * 8)
    let s = ''
    for (let i = 0; i < n; i++) {
      s += String.fromCharCode(rnd() < 0.8 ? 97 + Math.floor(rnd() * 3) : Math.floor(rnd() * 256))
    }
    return s
  }
  for (let trial = 0; trial < 200; trial++) {
    const b = new Both()
    const items = Math.floor(rnd() * 300)
    for (let k = 0; k < items; k++) {
      const [v, w] = [rnd() < 0.5 ? 'same' : word(), word()]
      const r = rnd()
      if (r < 0.4) b.t`<line><id>${v}</id><x>${w}</x></line>\n`
      else if (r < 0.6) b.t`${v}ab${w}`
      else if (r < 0.9) b.t`<ram:SpecifiedTradeSettlementLineMonetarySummation>${w}</ram:LineTotalAmount>`
      else b.plain(word())
    }
    b.check(`trial ${trial}`)
  }
})

test('a repeated template is written as back-references: 200 lines, the size of a few', () => {
  const b = new Both()
  for (let i = 0; i < 200; i++) b.t`<ram:IncludedSupplyChainTradeLineItem><ram:Name>${'Spring set'}</ram:Name></ram:Item>\n`
  const size = b.check('identical lines')
  // As literals alone it would be the text's 17,800 bytes; one merged reference (cut in pieces of 258) the rest.
  assert.ok(size < 400, `${size} bytes`)
})

test('lines that differ in a value: a reference each side of it, the value as literals', () => {
  const b = new Both()
  for (let i = 0; i < 200; i++) {
    b.t`<ram:LineItem><ram:LineID>${String(1000 + i)}</ram:LineID><ram:Unit>${'C62'}</ram:Unit><ram:Long>tags tags</ram:Long></ram:LineItem>\n`
  }
  const size = b.check('lines with their own ids')
  assert.ok(size / 200 < 12, `${(size / 200).toFixed(1)} bytes a line`)
})

test('references of more than 258 bytes are cut into pieces of 3 to 258', () => {
  for (const n of [3, 257, 258, 259, 260, 261, 516, 517, 518, 1000]) {
    // Static pieces that long: one call site each (the same strings object each time), around a value.
    const [x, y] = ['<' + 'x'.repeat(n) + '>', 'y'.repeat(n)]
    const site = Object.assign([x, y], { raw: [x, y] })
    const write = (b: Both, times: number): number => {
      for (let i = 0; i < times; i++) b.t(site, String(i))
      return b.check(`length ${n}, ${times} times`)
    }
    const once = write(new Both(), 1)
    // The two repeats of each as references (a piece per 258 bytes, a few bytes each), where
    // literals would triple the size.
    const thrice = write(new Both(), 3)
    assert.ok(thrice < once + 12 * Math.ceil(n / 258) + 20, `length ${n}: ${once} bytes once, ${thrice} thrice`)
  }
})

test('a value longer than 256 bytes is not kept for its slot: written again, not referenced', () => {
  const measure = (value: string, times: number): number => {
    const b = new Both()
    for (let i = 0; i < times; i++) b.t`<ram:Note>${value}</ram:Note>`
    return b.check(`${value.length}-byte value ${times} times`)
  }
  const text = (n: number): string =>
    Array.from({ length: n }, (_, i) => String.fromCharCode(32 + ((i * 37) % 95))).join('')
  const [kept, long] = [text(256), text(257)]
  assert.ok(measure(kept, 2) < measure(kept, 1) + 20, 'a 256-byte value repeated is referenced')
  assert.ok(measure(long, 2) > 1.8 * measure(long, 1), 'a 257-byte value repeated is written again')
})

test('nothing reaches past the 32 KB window: a repeat after 40 KB is written again', () => {
  const b = new Both()
  b.t`<ram:Head>${'value'}</ram:Head>`
  b.plain('z'.repeat(40_000))
  b.t`<ram:Head>${'value'}</ram:Head>`
  b.check('a repeat out of reach')
})

test('text that is not bytes is refused; nothing is written after finish()', () => {
  assert.throws(() => { new PieceDeflater(CODE).t`${'€'}` }, /not bytes/)
  const x = new PieceDeflater(CODE)
  x.t`abc`
  x.finish()
  assert.throws(() => { x.t`more` }, /after finish/)
  assert.throws(() => x.finish(), /twice/)
})

test('two streams in turn do not share offsets: each reads back alone', () => {
  const write = (b: Both, id: string): void => { b.t`<a>${id}</a><b>same</b>` }
  const [one, two] = [new Both(), new Both()]
  write(one, 'first')
  write(two, 'second')
  write(one, 'third')
  write(two, 'fourth')
  one.check('first stream')
  two.check('second stream')
})

test('a template\'s static text is coded once for each code: streams of two codes over the same call site read back', () => {
  const other = blockCode('zzzz qqqq xxxx')
  const site = (x: PieceDeflater, v: string): void => {
    x.t`<?xml version="1.0"?><rsm:Invoice><ram:ID>${v}</ram:ID><ram:Name>Spring set</ram:Name></rsm:Invoice>`
  }
  for (const [code, v] of [[CODE, 'INV-1'], [other, 'INV-2'], [CODE, 'INV-3'], [other, 'INV-4']] as const) {
    const x = new PieceDeflater(code)
    site(x, v)
    const text = `<?xml version="1.0"?><rsm:Invoice><ram:ID>${v}</ram:ID><ram:Name>Spring set</ram:Name></rsm:Invoice>`
    assert.equal(inflateSync(x.finish()).toString('latin1'), text, v)
  }
})
