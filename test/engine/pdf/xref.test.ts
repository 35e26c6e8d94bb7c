// engine/pdf/xref.ts writes the end of the file in place of pdfkit's _finalize: the same bytes
// as pdfkit's own, with pdfkit's offsets array and with the engine's Offsets table (tagged
// documents), and over several 64,000-byte pieces of the table; or a cross-reference stream,
// which tagged documents that are not PDF/A end with.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { test } from 'node:test'
import PDFDocument from 'pdfkit'
import { compileDocument } from '../../../engine/pdf/compile.js'
import { useOffsets, type OffsetsOwner } from '../../../engine/pdf/offsets.js'
import { renderPdf } from '../../../engine/pdf/render-pdf.js'
import { useXref, type XrefOwner } from '../../../engine/pdf/xref.js'
import { input, invoiceDefinition, invoiceDocument, invoiceHeader, invoiceLines, withPdf } from './fixtures.js'

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

/**
 * The cross-reference stream `startxref` points to (uncompressed, /W [1 4 0]): its dictionary and
 * each entry as [type, offset], object 0 first.
 */
function xrefStream (pdf: Buffer): { dict: string, entries: Array<[number, number]>, at: number } {
  const text = pdf.toString('latin1')
  const at = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(text)?.[1])
  const open = text.indexOf('stream\n', at) + 'stream\n'.length
  const dict = text.slice(at, open)
  assert.match(dict, /^\d+ 0 obj\n<< \/Type \/XRef \/Size \d+ \/W \[1 4 0\] /)
  const size = Number(/\/Size (\d+)/.exec(dict)?.[1])
  assert.equal(Number(/\/Length (\d+)/.exec(dict)?.[1]), 5 * size)
  const entries: Array<[number, number]> = []
  for (let i = 0; i < size; i++) entries.push([pdf[open + 5 * i]!, pdf.readUInt32BE(open + 5 * i + 1)])
  assert.ok(text.startsWith('\nendstream\nendobj\n', open + 5 * size))
  return { dict, entries, at }
}

test('a cross-reference stream: an entry per object at its offset, object 0 free, its own entry last', () => {
  for (const objects of [0, 5, 12800, 30000]) {
    const pdf = write(objects, (d) => { useOffsets(d); useXref(d, true) })
    const { dict, entries, at } = xrefStream(pdf)
    const n = entries.length - 1
    assert.deepEqual(entries[0], [0, 0])
    assert.deepEqual(entries[n], [1, at])
    assert.ok(pdf.toString('latin1').startsWith(`${n} 0 obj`, at))
    const wrong = entries.slice(1).flatMap(([type, offset], i) =>
      type === 1 && pdf.toString('latin1', offset, offset + 16).startsWith(`${i + 1} 0 obj`) ? [] : [i + 1])
    assert.deepEqual(wrong, [], `${objects} objects`)
    // The trailer's entries, in the stream's dictionary.
    assert.match(dict, /\/Root \d+ 0 R \/Info \d+ 0 R \/ID \[<[0-9a-f]{32}> <[0-9a-f]{32}>\]/)
    // The classic table would have taken 20 bytes per object.
    assert.ok(pdf.length < write(objects, (d) => { useOffsets(d); useXref(d) }).length - 14 * objects)
  }
  // qpdf reads the file through the stream: no recovery, no warning.
  const out = withPdf(write(30000, (d) => { useOffsets(d); useXref(d, true) }),
    (file) => execFileSync('qpdf', ['--check', file], { encoding: 'utf8' }))
  assert.match(out, /No syntax or stream encoding errors/)
  assert.doesNotMatch(out, /WARNING|reconstruct/i)
})

test('renders: tagged and not PDF/A ends with a cross-reference stream; untagged or PDF/A with the table', () => {
  const lines = invoiceLines(40)
  const end = (pdf?: unknown): string => {
    const doc = { ...invoiceDocument, ...(pdf !== undefined ? { pdf } : {}), info: { title: 'Invoice' } }
    const def = invoiceDefinition(doc)
    const bytes = renderPdf(compileDocument(doc, def), input(def, { header: invoiceHeader, lines })).bytes
    const text = Buffer.from(bytes).toString('latin1')
    const at = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(text)?.[1])
    return text.slice(at, at + 60)
  }
  assert.match(end(), /^\d+ 0 obj\n<< \/Type \/XRef /) // tagged is the default
  assert.match(end({ ua: 'PDF/UA-1' }), /^\d+ 0 obj\n<< \/Type \/XRef /)
  for (const pdf of [{ tagged: false }, { standard: 'PDF/A-3a' }, { standard: 'PDF/A-2b' }, { standard: 'PDF/A-1b' }]) {
    assert.match(end(pdf), /^xref\n0 \d+\n0000000000 65535 f \n/, JSON.stringify(pdf))
  }
})
