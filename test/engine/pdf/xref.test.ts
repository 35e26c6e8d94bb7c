// engine/pdf/xref.ts writes the end of the file in place of pdfkit's _finalize: the same bytes
// as pdfkit's own, with pdfkit's offsets array and with the engine's Offsets table (tagged
// documents), and over several 64,000-byte pieces of the table.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import PDFDocument from 'pdfkit'
import { useOffsets, type OffsetsOwner } from '../../../engine/pdf/offsets.js'
import { useXref, type XrefOwner } from '../../../engine/pdf/xref.js'

type Doc = PDFKit.PDFDocument & XrefOwner & OffsetsOwner
const CREATED = new Date(Date.UTC(2026, 0, 2, 3, 4, 5))

/** A document of `objects` small objects and a page, all its output as bytes. */
function write (objects: number, setup: (doc: Doc) => void): Buffer {
  const doc = new PDFDocument({ autoFirstPage: false, font: null, compress: false, info: { CreationDate: CREATED } } as
    unknown as PDFKit.PDFDocumentOptions) as Doc
  const chunks: Buffer[] = []
  const head = doc.read() as Buffer | null
  if (head !== null) chunks.push(head)
  doc.push = (chunk: Uint8Array | null): boolean => { if (chunk !== null) chunks.push(Buffer.from(chunk)); return true }
  setup(doc)
  const ref = (doc as unknown as { ref (d: unknown): { end (): void } }).ref.bind(doc)
  for (let i = 0; i < objects; i++) ref({ N: i * 997 }).end()
  doc.addPage({ size: [200, 100] })
  doc.end()
  return Buffer.concat(chunks)
}

test('the table and trailer are pdfkit\'s bytes, for small and large tables', () => {
  for (const objects of [0, 5, 3200, 7000]) {
    const pdfkit = write(objects, () => {})
    assert.match(pdfkit.toString('latin1'), /\nxref\n0 \d+\n0000000000 65535 f \n[^]*\ntrailer\n<<\n\/Size [^]*%%EOF\n$/)
    assert.ok(write(objects, useXref).equals(pdfkit), `${objects} objects`)
    assert.ok(write(objects, (d) => { useOffsets(d); useXref(d) }).equals(pdfkit), `${objects} objects, Offsets table`)
  }
})

test('an object never written is an error, not an entry that points nowhere', () => {
  assert.throws(() => write(3, (doc) => {
    useXref(doc)
    // A number taken and counted as written, but never written: what a bug in a writer would leave.
    doc._offsets.push(null)
  }), /xref: object \d+ was never written/)
})
