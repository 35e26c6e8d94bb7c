// pdfkit's table of object offsets (`doc._offsets`, written out as the cross-reference table
// at the end) in 4 bytes an object instead of a JS array's 8: a tagged document has an object
// per structure element, a few per table row, and this table is the one thing that must grow
// with them until the end. It grows by chunks: doubling one array copied it whole and held both
// copies at the end of a long report (625,000 objects: 2 + 4 MB, where 2.5 MB are used).
// render-pdf.ts installs it with the matching _refEnd; pdfkit only pushes, reads `length`, sets
// through _refEnd and iterates (test/engine/pdf/pdfkit-contract.test.ts).

/** Entries per chunk of the table (2^16, 256 KB): past the first, it grows by chunks, not by copies. */
const CHUNK = 65536

/**
 * Entries the table starts with (1 KB), doubled as it fills: a tagged invoice has ~250 objects.
 * Starting at 4,096 (16 KB, allocated and zeroed outside V8's heap) cost a one-paragraph tagged
 * document ~3 µs of its ~55 (bench/RESULTS.md, 2026-11-27 (last)).
 */
const FIRST = 256

export class Offsets implements Iterable<number | null> {
  /** Objects 1 … CHUNK: starts small, doubled up to CHUNK (most documents stay within it). */
  private a = new Uint32Array(FIRST)
  /** Objects past CHUNK, CHUNK a chunk. */
  private readonly more: Uint32Array[] = []
  length = 0

  /** A new object, not written yet (pdfkit pushes null); its entry stays 0 (the header's offset, never an object's). */
  push (_unwritten: null): number {
    const i = this.length
    if (i === this.a.length && i < CHUNK) {
      const b = new Uint32Array(i * 2)
      b.set(this.a)
      this.a = b
    } else if (i >= CHUNK && (i & 0xffff) === 0) this.more.push(new Uint32Array(CHUNK))
    return ++this.length
  }

  set (index: number, offset: number): void {
    if (!(index >= 0 && index < this.length && offset > 0 && offset < 2 ** 32)) throw new Error(`offset ${offset} of ${index}`)
    if (index < CHUNK) this.a[index] = offset
    else this.more[(index >>> 16) - 1]![index & 0xffff] = offset
  }

  /** The offset of object `index + 1`, null if not written yet (as pdfkit's array reads). */
  at (index: number): number | null {
    if (!(index >= 0 && index < this.length)) return null
    const v = index < CHUNK ? this.a[index]! : this.more[(index >>> 16) - 1]![index & 0xffff]!
    return v === 0 ? null : v
  }

  * [Symbol.iterator] (): Iterator<number | null> {
    for (let i = 0; i < this.length; i++) yield this.at(i)
  }
}

/**
 * A document's table of object offsets as the engine uses it: pdfkit's own array (untagged
 * documents) or an Offsets (tagged). at(i) is object i + 1's offset, null until it is written.
 */
export interface OffsetTable extends Iterable<number | null> {
  push (unwritten: null): number
  readonly length: number
  at (index: number): number | null | undefined
}

/** What of a pdfkit document the offsets table replaces. */
export interface OffsetsOwner {
  _offsets: OffsetTable
  _waiting: number
  _ended: boolean
  _finalize (): void
  _refEnd (ref: { id: number, offset: number }): void
}

/** Gives the document an Offsets table (with what it holds already) and the _refEnd that fills it. */
export function useOffsets (doc: OffsetsOwner): void {
  const offsets = new Offsets()
  for (const v of doc._offsets) {
    offsets.push(null)
    if (v !== null) offsets.set(offsets.length - 1, v)
  }
  doc._offsets = offsets
  // pdfkit's _refEnd, with set() for the array's index assignment.
  doc._refEnd = (ref) => {
    offsets.set(ref.id - 1, ref.offset)
    if (--doc._waiting === 0 && doc._ended) {
      doc._finalize()
      doc._ended = false
    }
  }
}
