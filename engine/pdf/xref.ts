// The end of a PDF file (ISO 32000-1, 7.5.4 and 7.5.5): the cross-reference table, the trailer,
// startxref and %%EOF, in place of pdfkit's _finalize. pdfkit writes the table a line per object
// (a string padded and sliced for each, then converted): a tagged document has an object per
// structure element, a few per table row, so that loop was ~7% of a tagged invoice's CPU and
// more of a long report's. Here each entry's 20 bytes are written into Buffers of 64,000 bytes.
// The bytes are pdfkit's: `nnnnnnnnnn 00000 n ` and a newline per object, the trailer as its
// PDFObject.convert writes a dictionary (a key per line). A tagged document that is not PDF/A
// ends with a cross-reference stream instead: a fourth of the bytes, the last thing a long
// report writes (625,000 objects: 3 MB instead of 12.5 MB, in the output and in memory).

import type { OffsetTable } from './offsets.js'

/** What of a pdfkit document the end of the file reads. */
export interface XrefOwner {
  /** Byte offset of each object (object number − 1); every one is written by now. */
  _offsets: OffsetTable
  _offset: number
  _root: { id: number }
  _info: { id: number }
  /** The file identifier pdfkit made from the Info dictionary. */
  _id: Uint8Array
  _write (data: string | Uint8Array): void
  push (chunk: Uint8Array | null): boolean
  _finalize (): void
}

/** What follows each offset: ` 00000 n ` and the newline, as bytes. */
const ENTRY = Buffer.from(' 00000 n \n', 'latin1')

/**
 * Makes pdfkit's end of document write the table this way (see above), or, `stream`, a
 * cross-reference stream (7.5.8, PDF 1.5): 5 bytes an object instead of 20. PDF/A-1 has no
 * cross-reference streams (and the PDF/A preflight here applies its rules to every part), so
 * only documents of PDF 1.5 or later that claim no PDF/A conformance get one (render-pdf.ts).
 */
export function useXref (doc: XrefOwner, stream = false): void {
  doc._finalize = stream ? () => { finishStream(doc) } : () => { finish(doc) }
}

/** Bytes written per piece: a long report's table does not sit whole in memory. */
const PIECE = 64000

/** The table's bytes, `size` an entry, written in pieces of at most PIECE bytes. */
class Pieces {
  private readonly doc: XrefOwner
  private readonly size: number
  private readonly per: number
  private left: number
  private piece: Buffer
  private p = 0

  /** `count` entries of `size` bytes will follow. */
  constructor (doc: XrefOwner, size: number, count: number) {
    this.doc = doc
    this.size = size
    this.per = Math.floor(PIECE / size)
    this.left = count
    this.piece = Buffer.allocUnsafe(size * Math.min(this.per, count))
  }

  /** Where the next entry goes in `piece`. */
  next (): number {
    if (this.p === this.piece.length) {
      this.doc._write(this.piece) // bytes: _write adds no newline
      this.piece = Buffer.allocUnsafe(this.size * Math.min(this.per, this.left))
      this.p = 0
    }
    this.left--
    const at = this.p
    this.p += this.size
    return at
  }

  get buffer (): Buffer { return this.piece }

  end (): void {
    if (this.p > 0) this.doc._write(this.piece)
  }
}

/** Object i + 1's offset, which must have been written by now. */
function offsetOf (offsets: OffsetTable, i: number): number {
  const offset = offsets.at(i)
  if (offset === null || offset === undefined || offset <= 0) throw new Error(`xref: object ${i + 1} was never written`)
  return offset
}

function fileId (doc: XrefOwner): string {
  return Buffer.from(doc._id.buffer, doc._id.byteOffset, doc._id.byteLength).toString('hex')
}

function finish (doc: XrefOwner): void {
  const at = doc._offset
  const offsets = doc._offsets
  const n = offsets.length
  doc._write(`xref\n0 ${n + 1}\n0000000000 65535 f `)
  const out = new Pieces(doc, 20, n)
  for (let i = 0; i < n; i++) {
    const offset = offsetOf(offsets, i)
    const p = out.next()
    const piece = out.buffer
    let v = offset
    for (let k = 9; k >= 0; k--) { piece[p + k] = 48 + (v % 10); v = (v / 10) >>> 0 } // offsets < 2^32 (Offsets)
    for (let k = 0; k < 10; k++) piece[p + 10 + k] = ENTRY[k]!
  }
  out.end()
  const id = fileId(doc)
  doc._write(`trailer\n<<\n/Size ${n + 1}\n/Root ${doc._root.id} 0 R\n/Info ${doc._info.id} 0 R\n` +
    `/ID [<${id}> <${id}>]\n>>\nstartxref\n${at}\n%%EOF`)
  doc.push(null)
}

/**
 * The cross-reference stream, object n + 1: per object a type byte and the offset in 4 bytes
 * (/W [1 4 0]: generations are all 0), object 0 the free head (type 0) as qpdf writes it, the
 * stream's own entry last. Not compressed: it is small, and a render pays a deflate per stream.
 */
function finishStream (doc: XrefOwner): void {
  const at = doc._offset
  const offsets = doc._offsets
  const n = offsets.length
  const size = n + 2
  const id = fileId(doc)
  doc._write(`${n + 1} 0 obj\n<< /Type /XRef /Size ${size} /W [1 4 0] /Root ${doc._root.id} 0 R ` +
    `/Info ${doc._info.id} 0 R /ID [<${id}> <${id}>] /Length ${5 * size} >>\nstream`)
  const out = new Pieces(doc, 5, size)
  const head = out.next()
  out.buffer.fill(0, head, head + 5) // object 0: type 0 (free), next free 0
  for (let i = 0; i <= n; i++) {
    const offset = i < n ? offsetOf(offsets, i) : at
    const p = out.next()
    out.buffer[p] = 1
    out.buffer.writeUInt32BE(offset, p + 1)
  }
  out.end()
  doc._write(`\nendstream\nendobj\nstartxref\n${at}\n%%EOF`)
  doc.push(null)
}
