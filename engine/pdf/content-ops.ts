// A page region's content stream as it is drawn, written as bytes into a growing buffer (canvas.ts,
// tags.ts). Built as a string it was a rope of a few appends per line drawn (~100 KB of garbage an
// invoice render) that V8 flattened again to turn it into bytes. Text is Latin-1: every code unit
// is a byte (the content stream's strings are WinAnsi bytes or hex, its syntax ASCII). Numbers are
// written digit by digit as fmt() prints them. Output space comes from the thread's spaces
// (bytes.ts): a pager gives its canvases' back when its pass ends (pager.ts, release()).
import { giveSpace, grown, putAscii, putUint, takeSpace } from '../bytes.js'
import { fmt } from './pdf-number.js'

export class ContentOps {
  private buf: Buffer | null = null
  /** Bytes written since the last reset() or take(). */
  length = 0

  /** Appends `s`, a byte per code unit. */
  str (s: string): void {
    this.length = putAscii(this.room(s.length), this.length, s)
  }

  /** Appends `n` as fmt(n) prints it: an integer, or rounded to 2 decimals, no exponent. */
  num (n: number): void {
    // Past 1e13, n × 100 loses the units: the string's way (as NaN and the infinities).
    if (!(n > -1e13 && n < 1e13)) { this.str(fmt(n)); return }
    let r = Number.isInteger(n) ? n * 100 : Math.round(n * 100)
    const buf = this.room(20)
    let at = this.length
    if (r === 0) { // -0, and what rounds to it, print "0" too
      buf[at] = 48
      this.length = at + 1
      return
    }
    if (r < 0) {
      buf[at++] = 45 // '-'
      r = -r
    }
    const whole = Math.floor(r / 100)
    const cents = r - whole * 100
    at = putUint(buf, at, whole)
    if (cents !== 0) {
      buf[at++] = 46 // '.'
      buf[at++] = 48 + Math.floor(cents / 10)
      if (cents % 10 !== 0) buf[at++] = 48 + (cents % 10)
    }
    this.length = at
  }

  /** The bytes written, as a view: valid until the next write or reset(). */
  view (): Uint8Array {
    return this.buf === null ? EMPTY : this.buf.subarray(0, this.length)
  }

  /** The bytes written, copied out; empty again. */
  take (): Buffer {
    const out = Buffer.from(this.view())
    this.length = 0
    return out
  }

  reset (): void { this.length = 0 }

  /** Inserts `s` (a byte per code unit) at byte `at`, moving what follows. */
  insert (at: number, s: string): void {
    const end = this.length
    const buf = this.room(s.length)
    buf.copyWithin(at + s.length, at, end)
    putAscii(buf, at, s)
    this.length = end + s.length
  }

  /** Gives the buffer back (bytes.ts, giveSpace); the next write takes one again. */
  release (): void {
    const b = this.buf
    this.buf = null
    this.length = 0
    if (b !== null) giveSpace(b)
  }

  /** The buffer, with room for `n` more bytes. */
  private room (n: number): Buffer {
    let b = this.buf
    if (b === null) b = this.buf = takeSpace(n)
    if (this.length + n > b.length) b = this.buf = grown(b, this.length, this.length + n)
    return b
  }
}

const EMPTY = new Uint8Array(0)
