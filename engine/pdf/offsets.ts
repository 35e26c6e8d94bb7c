// pdfkit's table of object offsets (`doc._offsets`, written out as the cross-reference table
// at the end) in 4 bytes an object instead of a JS array's 8: a tagged document has an object
// per structure element, a few per table row, and this table is the one thing that must grow
// with them until the end. render-pdf.ts installs it with the matching _refEnd; pdfkit only
// pushes, reads `length`, sets through _refEnd and iterates (test/engine/pdf/pdfkit-contract.test.ts).
export class Offsets implements Iterable<number | null> {
  private a = new Uint32Array(4096)
  length = 0

  /** A new object, not written yet (pdfkit pushes null). */
  push (_unwritten: null): number {
    if (this.length === this.a.length) {
      const b = new Uint32Array(this.a.length * 2)
      b.set(this.a)
      this.a = b
    }
    this.a[this.length] = 0 // offset 0 is the header: never an object's
    return ++this.length
  }

  set (index: number, offset: number): void {
    if (!(index >= 0 && index < this.length && offset > 0 && offset < 2 ** 32)) throw new Error(`offset ${offset} of ${index}`)
    this.a[index] = offset
  }

  /** The offset of object `index + 1`, null if not written yet (as pdfkit's array reads). */
  at (index: number): number | null {
    const v = index >= 0 && index < this.length ? this.a[index]! : 0
    return v === 0 ? null : v
  }

  * [Symbol.iterator] (): Iterator<number | null> {
    for (let i = 0; i < this.length; i++) {
      const v = this.a[i]!
      yield v === 0 ? null : v
    }
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
