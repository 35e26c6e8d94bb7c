// The end of a PDF file (ISO 32000-1, 7.5.4 and 7.5.5): the cross-reference table, the trailer,
// startxref and %%EOF, in place of pdfkit's _finalize. pdfkit writes the table a line per object
// (a string padded and sliced for each, then converted): a tagged document has an object per
// structure element, a few per table row, so that loop was ~7% of a tagged invoice's CPU and
// more of a long report's. Here each entry's 20 bytes are written into Buffers of 64,000 bytes.
// The bytes are pdfkit's: `nnnnnnnnnn 00000 n ` and a newline per object, the trailer as its
// PDFObject.convert writes a dictionary (a key per line).

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

/** Makes pdfkit's end of document write the table this way (see above). */
export function useXref (doc: XrefOwner): void {
  doc._finalize = () => { finish(doc) }
}

/** Entries per piece written: 64,000 bytes, so a long report's table does not sit whole in memory. */
const PIECE = 3200

function finish (doc: XrefOwner): void {
  const at = doc._offset
  const n = doc._offsets.length
  doc._write(`xref\n0 ${n + 1}\n0000000000 65535 f `)
  let piece = Buffer.allocUnsafe(20 * Math.min(PIECE, n))
  let p = 0
  const offsets = doc._offsets
  for (let i = 0; i < n; i++) {
    const offset = offsets.at(i)
    if (offset === null || offset === undefined || offset <= 0) throw new Error(`xref: object ${i + 1} was never written`)
    if (p === piece.length) {
      doc._write(piece) // bytes: _write adds no newline
      piece = Buffer.allocUnsafe(20 * Math.min(PIECE, n - i))
      p = 0
    }
    let v = offset
    for (let k = 9; k >= 0; k--) { piece[p + k] = 48 + (v % 10); v = (v / 10) >>> 0 } // offsets < 2^32 (Offsets)
    for (let k = 0; k < 10; k++) piece[p + 10 + k] = ENTRY[k]!
    p += 20
  }
  if (p > 0) doc._write(piece)
  const fileId = Buffer.from(doc._id.buffer, doc._id.byteOffset, doc._id.byteLength).toString('hex')
  doc._write(`trailer\n<<\n/Size ${n + 1}\n/Root ${doc._root.id} 0 R\n/Info ${doc._info.id} 0 R\n` +
    `/ID [<${fileId}> <${fileId}>]\n>>\nstartxref\n${at}\n%%EOF`)
  doc.push(null)
}
