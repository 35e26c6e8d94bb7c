// Objects written straight into bytes until they go out (struct-tree.ts): a tagged document has
// an object per structure element, and built as strings they were ropes of a few pieces each
// (numbers, names, delimiters) that V8 flattened again to encode the batch. Here every piece is
// written where it goes, numbers digit by digit. No string is made for an object number either:
// String(n) keeps each number it converts in V8's number-to-string cache until another takes its
// slot, and a long document's object numbers, each converted a few times close together and
// never again, outlived two young-generation collections there and were moved to the old
// generation (a tagged 100,000-row report: ~15 MB, its peak RSS 20% above untagged).
// What is written is ASCII only: names, numbers, delimiters, and the text strings of pdfText()
// (struct-tree.ts), which escape everything else.
import { grown, putAscii, putUint } from '../bytes.js'

/** Bytes a new batch holds before it first grows. */
const INITIAL = 32 * 1024

export class ObjectBatch {
  private buf: Buffer = Buffer.allocUnsafeSlow(INITIAL)
  /** Bytes written since the last take(). */
  length = 0

  /** Appends `s`, ASCII. */
  str (s: string): void {
    this.length = putAscii(this.room(s.length), this.length, s)
  }

  /** Appends the decimal digits of `v`, a non-negative integer below 2^32. */
  int (v: number): void {
    this.length = putUint(this.room(10), this.length, v)
  }

  /**
   * The buffer, with room for `n` more bytes from `length`: a writer that knows an object's
   * longest form writes it with bytes.ts's put functions and sets `length` (struct-tree.ts).
   */
  room (n: number): Buffer {
    if (this.length + n > this.buf.length) this.buf = grown(this.buf, this.length, this.length + n)
    return this.buf
  }

  /** Bytes it holds before it grows again. */
  get capacity (): number { return this.buf.length }

  /** The bytes written since the last take(), copied out; the batch starts again empty. */
  take (): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.length))
    this.length = 0
    return out
  }
}

/**
 * The batch a new tree takes: one per thread, kept by the tree that finished last. A render is
 * synchronous, so a tree has it alone from its start to its finish(); a tree given up before its
 * finish (a counting pass, a render that failed) keeps its own, and the next tree makes a new one.
 */
let free: ObjectBatch | null = null

/**
 * A batch grown past this is not kept for the next tree: one object can be long (a table body
 * naming 100,000 rows is ~1.1 MB), and the thread would hold that for every later render.
 */
const KEEP = 256 * 1024

export function takeBatch (): ObjectBatch {
  const b = free ?? new ObjectBatch()
  free = null
  return b
}

export function giveBack (b: ObjectBatch): void {
  b.length = 0
  free = b.capacity <= KEEP ? b : null
}

/** The ASCII bytes of `s`: a constant piece of syntax, written with bytes.ts's putBytes. */
export function ascii (s: string): Uint8Array {
  return Uint8Array.from(Buffer.from(s, 'latin1'))
}
