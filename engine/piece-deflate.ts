// A zlib stream (RFC 1950/1951) written while the text is generated, for text made of tagged
// templates that repeat: the CII XML of an invoice (einvoice/cii-xml.ts) is a few templates per
// line item, ~1 KB of tags around a few values, twenty to hundreds of times. zlib finds such
// repeats by hashing every byte of a string that first had to be joined and copied into bytes;
// inside a render that cost the example invoice's 24 KB ~90 µs for zlib (its ~270 KB of state is
// cold each time, ~3× what it costs alone) and as much again for the string. Here the writer
// knows the repeats: a template call site's static pieces, and a value equal to the one its slot
// had last time, were written before at a known offset, so each becomes a back-reference, merged
// with the one before when the distance is the same (a line item like the last is one reference
// per differing value); everything else is written as literals. One block, whose Huffman code the
// caller made once for text like it (deflate-codes.ts, blockCode): no symbols to count and no tree
// to build per stream. The Adler-32 of static pieces is precomputed, so a back-reference never
// reads its bytes, and so are their bits as literals of the stream's code (made the first time),
// so static text written for the first time in a stream is copied a byte at a time, not coded.
//
// Text is bytes: every code unit of a piece is one byte (0–255); UTF-8 text is put in already
// encoded, one code unit a byte (cii-xml.ts, esc). The price is size: text not written before is
// not searched for matches, so the example invoice's XML makes 4.4 KB where zlib level 3 made 2.3 KB
// (bench/RESULTS.md, 2026-11-27 (midday)).

import { giveSpace, grown, takeSpace } from './bytes.js'
import { DIST_BASE, distCode, distExtra, type BlockCode } from './deflate-codes.js'

/** The adler-32 modulus. */
const MOD = 65521
/** Deflate's window: no back-reference reaches further. */
const WINDOW = 32768
/** Values longer than this are not kept for matching (amounts, codes and names are far shorter). */
const KEEP_TEXT = 256

/** Where a template call site's pieces were last written, in the current stream. */
interface Site {
  /** The stream (PieceDeflater.id) the offsets below belong to. */
  stream: number
  /**
   * Per piece i, from i × STRIDE: where its static text was last written (-1: not in this
   * stream), where its value slot's was (-1), its static text's Adler-32 parts (byte sum and
   * weighted sum, mod 65521), and how many bits it takes as literals of `code` (coded when first
   * written so). One array a site, a piece's five together: a template call reads one or two
   * cache lines of it, where five arrays of its own were five places to fetch from memory in a
   * render that has moved everything else through the caches since the last call.
   */
  data: Int32Array
  /**
   * Text of value slot j, last written; a text longer than KEEP_TEXT is not kept ('': nothing to
   * match), so a thread holds no tenant's long values after its render.
   */
  texts: string[]
  /** The static pieces as literals of `code`: their bits packed from bit 0 (see data). */
  code: BlockCode | null
  encoded: Array<Uint8Array | null>
}

const STRIDE = 5
const STATIC = 0
const VALUE = 1
const SUM = 2
const WEIGHTED = 3
const BITS = 4

const sites = new Map<TemplateStringsArray, Site>()
let streams = 0

function siteOf (strings: TemplateStringsArray): Site {
  let s = sites.get(strings)
  if (s === undefined) {
    const n = strings.length
    s = {
      stream: -1,
      data: new Int32Array(n * STRIDE),
      texts: new Array<string>(n).fill(''),
      code: null,
      encoded: new Array<Uint8Array | null>(n).fill(null)
    }
    for (let i = 0; i < n; i++) {
      const t = strings[i]!
      // Below the window, so len × adler stays a 32-bit integer (see t()).
      if (t.length >= WINDOW) throw new Error('piece-deflate: a template piece of 32 KB or more')
      let a = 0
      let b = 0
      for (let k = 0; k < t.length; k++) {
        const c = t.charCodeAt(k)
        if (c > 255) throw new Error('piece-deflate: a template piece is not bytes')
        a = (a + c) % MOD
        b = (b + (t.length - k) * c) % MOD
      }
      s.data[i * STRIDE + SUM] = a
      s.data[i * STRIDE + WEIGHTED] = b
    }
    sites.set(strings, s)
  }
  return s
}

export class PieceDeflater {
  private readonly id = ++streams
  private readonly code: BlockCode
  private out: Buffer
  private at = 2
  /** Bits not yet written, and how many (< 8 between calls). */
  private bits = 0
  private nbits = 0
  /** Bytes of text so far. */
  private pos = 0
  private adlerA = 1
  private adlerB = 0
  /** The back-reference being extended: its distance (0: none) and length. */
  private dist = 0
  private len = 0
  /** finish() has handed the output space on: nothing more may be written. */
  private done = false

  /** `code`: the block's Huffman code, made once for text like this stream's (deflate-codes.ts). */
  constructor (code: BlockCode) {
    this.code = code
    this.out = takeSpace()
    this.out[0] = 0x78 // deflate, 32 KB window
    this.out[1] = 0x01 // no dictionary, "fastest"; (0x78 << 8 | 0x01) % 31 === 0
    this.room(code.header.length + 8)
    this.put(5, 3) // BFINAL 1, BTYPE 10: the one block, with its own code
    const h = code.header
    const whole = code.headerBits >> 3
    for (let i = 0; i < whole; i++) this.put(h[i]!, 8)
    if ((code.headerBits & 7) !== 0) this.put(h[whole]! & ((1 << (code.headerBits & 7)) - 1), code.headerBits & 7)
  }

  /** Bytes of text written. */
  get size (): number { return this.pos }

  /** A tagged template: `x.t\`<a>${v}</a>\``. Its pieces and values are bytes (see above). */
  t (strings: TemplateStringsArray, ...values: string[]): void {
    if (this.done) throw new Error('piece-deflate: written after finish()')
    const s = siteOf(strings)
    const d = s.data
    if (s.stream !== this.id) {
      s.stream = this.id
      for (let k = 0; k < d.length; k += STRIDE) {
        d[k + STATIC] = -1
        d[k + VALUE] = -1
      }
    }
    const n = values.length
    for (let i = 0; ; i++) {
      const t = strings[i]!
      const len = t.length
      const k = i * STRIDE
      if (len > 0) {
        const o = d[k + STATIC]!
        if (o >= 0 && this.pos - o <= WINDOW && this.refer(this.pos - o, len)) {
          // Its checksum precomputed: a reference never reads the piece's bytes.
          this.adlerB = (this.adlerB + len * this.adlerA + d[k + WEIGHTED]!) % MOD
          this.adlerA = (this.adlerA + d[k + SUM]!) % MOD
        } else {
          this.staticLiteral(s, i, t)
        }
        d[k + STATIC] = this.pos
        this.pos += len
      }
      if (i === n) return
      const v = values[i]!
      if (v.length === 0) continue
      const o = d[k + VALUE]!
      if (o >= 0 && s.texts[i] === v && this.pos - o <= WINDOW && this.refer(this.pos - o, v.length)) this.adlerOf(v)
      else this.literal(v)
      d[k + VALUE] = this.pos
      s.texts[i] = v.length <= KEEP_TEXT ? v : ''
      this.pos += v.length
    }
  }

  /** The zlib stream, copied out (the output space is reused). */
  finish (): Buffer {
    if (this.done) throw new Error('piece-deflate: finish() twice')
    this.done = true
    this.endRef()
    this.room(8)
    this.put(this.code.end & 0xffff, this.code.end >>> 16) // end of block
    if (this.nbits > 0) this.put(0, 8 - this.nbits)
    const o = this.out
    const a = this.adlerA
    const b = this.adlerB
    o[this.at++] = b >>> 8
    o[this.at++] = b & 255
    o[this.at++] = a >>> 8
    o[this.at++] = a & 255
    const res = Buffer.from(o.subarray(0, this.at))
    giveSpace(o)
    return res
  }

  /**
   * The next `len` bytes equal those `dist` back: a reference, or the current one extended.
   * False (write them as literals) when shorter than 3 and not extending one.
   */
  private refer (dist: number, len: number): boolean {
    if (this.dist === dist) {
      this.len += len
      return true
    }
    if (len < 3) return false
    this.endRef()
    this.dist = dist
    this.len = len
    return true
  }

  private endRef (): void {
    let len = this.len
    if (len === 0) return
    const code = this.code
    const dc = distCode(this.dist)
    const d = code.dist[dc]!
    const dx = this.dist - DIST_BASE[dc]!
    const dxn = distExtra(dc)
    while (len > 0) {
      // Pieces of at most 258, none shorter than 3.
      const l = len <= 258 ? len : len - 258 < 3 ? len - 3 : 258
      this.room(8)
      this.put(code.len[l]!, code.lenBits[l]!)
      this.put(d & 0xffff, d >>> 16)
      if (dxn > 0) this.put(dx, dxn)
      len -= l
    }
    this.dist = 0
    this.len = 0
  }

  /** `v` as literals, and its checksum. */
  private literal (v: string): void {
    this.endRef()
    this.room(v.length * 2 + 8) // ≤ 15 bits a byte
    const o = this.out
    let bits = this.bits
    let nbits = this.nbits
    let at = this.at
    let a = this.adlerA
    let b = this.adlerB
    const lit = this.code.lit
    for (let k = 0; k < v.length; k++) {
      const c = v.charCodeAt(k)
      a += c
      b += a
      if ((k & 1023) === 1023) { a %= MOD; b %= MOD }
      if (c > 255) throw new Error('piece-deflate: text is not bytes')
      const e = lit[c]!
      bits |= (e & 0xffff) << nbits
      nbits += e >>> 16
      while (nbits >= 8) { o[at++] = bits; bits >>>= 8; nbits -= 8 }
    }
    this.bits = bits
    this.nbits = nbits
    this.at = at
    this.adlerA = a % MOD
    this.adlerB = b % MOD
  }

  /**
   * Static piece i of site `s` (text `t`) as literals: its bits made once (encode()) and copied a
   * byte at a time, its checksum from the precomputed parts. The header and one-off parts of an
   * invoice are most of its text and are written once per stream: coding them byte by byte was
   * most of the writer's time.
   */
  private staticLiteral (s: Site, i: number, t: string): void {
    const code = this.code
    if (s.code !== code) {
      s.code = code
      s.encoded.fill(null)
    }
    const d = s.data
    const k = i * STRIDE
    let e = s.encoded[i] ?? null
    if (e === null) {
      e = encode(t, code.lit)
      s.encoded[i] = e
      d[k + BITS] = bitLength(t, code.lit)
    }
    this.endRef()
    this.room(e.length + 8)
    const o = this.out
    let bits = this.bits
    let at = this.at
    const n = d[k + BITS]!
    const whole = n >>> 3
    // `bits` holds fewer than 8 bits: a byte shifted past them fits, the low 8 go out.
    for (let q = 0; q < whole; q++) {
      bits |= e[q]! << this.nbits
      o[at++] = bits & 255
      bits >>>= 8
    }
    this.bits = bits
    this.at = at
    if ((n & 7) !== 0) this.put(e[whole]!, n & 7)
    this.adlerB = (this.adlerB + t.length * this.adlerA + d[k + WEIGHTED]!) % MOD
    this.adlerA = (this.adlerA + d[k + SUM]!) % MOD
  }

  private adlerOf (v: string): void {
    let a = this.adlerA
    let b = this.adlerB
    for (let k = 0; k < v.length; k++) {
      a += v.charCodeAt(k)
      b += a
      if ((k & 1023) === 1023) { a %= MOD; b %= MOD }
    }
    this.adlerA = a % MOD
    this.adlerB = b % MOD
  }

  private put (v: number, n: number): void {
    let bits = this.bits | (v << this.nbits)
    let nbits = this.nbits + n
    while (nbits >= 8) { this.out[this.at++] = bits & 255; bits >>>= 8; nbits -= 8 }
    this.bits = bits
    this.nbits = nbits
  }

  private room (n: number): void {
    if (this.at + n > this.out.length) this.out = grown(this.out, this.at, this.at + n)
  }
}

/** The number of bits `t` takes as literals of the code `lit`. */
function bitLength (t: string, lit: Int32Array): number {
  let n = 0
  for (let k = 0; k < t.length; k++) n += lit[t.charCodeAt(k)]! >>> 16 // pieces are bytes (siteOf)
  return n
}

/** `t` as literals of the code `lit`, packed from bit 0 of the first byte; unused bits are 0. */
function encode (t: string, lit: Int32Array): Uint8Array {
  const out = new Uint8Array((bitLength(t, lit) + 7) >>> 3)
  let bits = 0
  let nbits = 0
  let at = 0
  for (let k = 0; k < t.length; k++) {
    const e = lit[t.charCodeAt(k)]!
    bits |= (e & 0xffff) << nbits
    nbits += e >>> 16
    while (nbits >= 8) { out[at++] = bits & 255; bits >>>= 8; nbits -= 8 }
  }
  if (nbits > 0) out[at] = bits & 255
  return out
}
