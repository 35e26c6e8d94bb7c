import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import PDFDocument from 'pdfkit'
import { useOffsets, type OffsetsOwner } from '../../../engine/pdf/offsets.js'
import { PdfRaw } from '../../../engine/pdf/pdf-raw.js'

// The engine uses pdfkit as an object/xref writer and reaches a few of its private internals
// (render-pdf.ts, fonts.ts, font-embed.ts, metrics.ts, images.ts, pdfa-metadata.ts). One test per
// internal, against pdfkit alone: an upgrade that changes one of them fails here, by name, before
// any layout test does.

const DEJAVU = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'
type Doc = PDFKit.PDFDocument & Record<string, unknown>
const newDoc = (options: Record<string, unknown> = {}): Doc =>
  new PDFDocument({
    autoFirstPage: false,
    font: null,
    compress: false,
    ...options
  } as unknown as PDFKit.PDFDocumentOptions) as Doc

interface Ref { end (b?: Buffer): void, data: Record<string, unknown>, id: number }
const refOf = (doc: Doc, data?: unknown): Ref => (doc as unknown as { ref (d?: unknown): Ref }).ref(data)

/** Every byte pdfkit writes, through the same push() override render-pdf.ts installs. */
function capture (doc: Doc): () => string {
  const head = doc.read() as Buffer | null
  const chunks: Buffer[] = head === null ? [] : [head]
  doc.push = (chunk: Uint8Array | null): boolean => { if (chunk !== null) chunks.push(Buffer.from(chunk)); return true }
  return () => Buffer.concat(chunks).toString('latin1')
}

test('render-pdf: the constructor has already pushed the header, readable at once with read()', () => {
  const head = newDoc().read() as Buffer | null
  assert.ok(head !== null)
  assert.match(head.toString('latin1'), /^%PDF-1\.\d/)
})

test('render-pdf: all later output goes through push(), synchronously, up to %%EOF at end()', () => {
  const doc = newDoc()
  const out = capture(doc)
  doc.addPage({ size: [100, 100], margins: { top: 0, left: 0, bottom: 0, right: 0 } })
  doc.end()
  const text = out()
  assert.match(text, /^%PDF-/)
  assert.match(text, /%%EOF\s*$/)
})

test('render-pdf: `font: null` means no default font is loaded or written', () => {
  const doc = newDoc()
  const out = capture(doc)
  assert.equal(doc._font, null)
  doc.addPage({ size: [100, 100] })
  doc.end()
  assert.ok(!out().includes('/Helvetica'), 'no Helvetica resource')
})

test('render-pdf: doc.page.fonts and doc.page.xobjects are the resource dictionaries written for the page', () => {
  const doc = newDoc()
  const out = capture(doc)
  doc.addPage({ size: [100, 100] })
  const page = doc.page as unknown as { fonts: Record<string, unknown>, xobjects: Record<string, unknown> }
  const font = refOf(doc, { Type: 'Font', Subtype: 'Type1', BaseFont: 'Courier' })
  font.end()
  page.fonts.S0 = font
  const img = refOf(doc, { Type: 'XObject', Subtype: 'Image', Width: 1, Height: 1, BitsPerComponent: 8, ColorSpace: 'DeviceGray' })
  img.end(Buffer.from([0]))
  page.xobjects.I0 = img
  doc.end()
  const text = out()
  assert.match(text, /\/Font <<\s*\/S0 \d+ 0 R/)
  assert.match(text, /\/XObject <<\s*\/I0 \d+ 0 R/)
})

test('render-pdf: doc.addContent() appends raw operators to the current page content stream', () => {
  const doc = newDoc()
  const out = capture(doc)
  doc.addPage({ size: [100, 100] })
  ;(doc.addContent as (s: string) => unknown)('0 0 m 10 10 l S')
  doc.end()
  assert.ok(out().includes('0 0 m 10 10 l S'))
})

test('images, fonts: doc.ref(dict) makes an indirect object; end(bytes) writes its stream', () => {
  const doc = newDoc()
  const out = capture(doc)
  const ref = refOf(doc, { Type: 'XObject', Note: 'x' })
  assert.equal(typeof ref.id, 'number')
  assert.equal(ref.data.Type, 'XObject')
  ref.end(Buffer.from('abc'))
  doc.end()
  assert.match(out(), new RegExp(`${ref.id} 0 obj\\s*<<[^>]*/Note /x[\\s\\S]*?stream\\s*abc\\s*endstream`))
})

test('metrics: after font(<standard name>), doc._font.font is the AFM with widths and vertical metrics', () => {
  const doc = newDoc({ font: 'Helvetica' })
  const afm = (doc._font as { font: Record<string, unknown> }).font as {
    characterToGlyph (c: number): string
    widthOfGlyph (g: string): number
    ascender: number
    descender: number
    lineGap: number
  }
  assert.equal(afm.characterToGlyph(65), 'A')
  assert.equal(afm.widthOfGlyph('A'), 667)
  assert.equal(afm.ascender, 718)
  assert.equal(afm.descender, -207)
  assert.equal(typeof afm.lineGap, 'number')
})

test('fonts: after font(<TTF bytes>), doc._font.font is the fontkit font (asset fonts are parsed this way)', () => {
  const doc = newDoc()
  doc.font(readFileSync(DEJAVU))
  const ef = doc._font as { font: { layout (s: string): unknown, unitsPerEm: number, createSubset (): unknown } }
  assert.equal(typeof ef.font.layout, 'function')
  assert.equal(typeof ef.font.createSubset, 'function')
  assert.equal(ef.font.unitsPerEm, 2048)
})

test('fonts: a compressing document writes a ref whose `compress` was set false without FlateDecode', () => {
  const doc = newDoc({ compress: true })
  const out = capture(doc)
  const stored = refOf(doc, { Note: 'stored' }) as Ref & { compress: boolean }
  stored.compress = false
  stored.end(Buffer.from('plain bytes'))
  const deflated = refOf(doc, { Note: 'deflated' })
  deflated.end(Buffer.from('deflated bytes'))
  doc.end()
  const pdf = out()
  assert.match(pdf, new RegExp(`${stored.id} 0 obj\\s*<<[^>]*/Note /stored[^>]*>>\\s*stream\\s*plain ` +
    'bytes\\s*endstream'))
  assert.doesNotMatch(pdf.slice(pdf.indexOf(`${stored.id} 0 obj`), pdf.indexOf('plain bytes')), /FlateDecode/)
  assert.match(pdf, new RegExp(`${deflated.id} 0 obj\\s*<<[^>]*/Filter /FlateDecode`))
})

/** Every object's offset in `pdf` against its entry in the cross-reference table. */
function xrefMismatches (pdf: string): string[] {
  const table = /xref\n0 (\d+)\n0000000000 65535 f \n((?:\d{10} 00000 n \n)*)/.exec(pdf)
  assert.ok(table !== null, 'a cross-reference table')
  const entries = table[2]!.trim().split('\n')
  assert.equal(entries.length, Number(table[1]) - 1)
  return entries.flatMap((e, i) => pdf.startsWith(`${i + 1} 0 obj`, Number(e.slice(0, 10))) ? [] : [`${i + 1}: ${e}`])
}

test('tagging: objects counted with _offsets.push(null) and .length, set by _refEnd, iterated by the xref ' +
  '(offsets.ts replaces the array)', () => {
  const doc = newDoc()
  const out = capture(doc)
  useOffsets(doc as unknown as OffsetsOwner)
  doc.addPage({ size: [100, 100], margins: { top: 0, left: 0, bottom: 0, right: 0 } })
  for (let i = 0; i < 5000; i++) refOf(doc, { N: i }).end()
  doc.end()
  const pdf = out()
  assert.match(pdf, /%%EOF\n$/)
  assert.deepEqual(xrefMismatches(pdf), [])
})

test('tagging: the page dictionary is written under its ref\'s id at the time (render-pdf.ts renumbers it), ' +
  'in the page tree too', () => {
  const doc = newDoc()
  const out = capture(doc)
  doc.addPage({ size: [100, 100], margins: { top: 0, left: 0, bottom: 0, right: 0 } })
  const page = (doc as unknown as { page: { dictionary: Ref } }).page
  const spare = refOf(doc)
  const old = page.dictionary.id
  page.dictionary.id = spare.id
  refOf(doc, { Old: old }).end() // as render-pdf.ts fills the number pdfkit took: its place in the xref
  ;(spare as unknown as { id: number }).id = old
  spare.end()
  doc.end()
  const pdf = out()
  assert.match(pdf, new RegExp(`/Kids \\[${page.dictionary.id} 0 R\\]`))
  assert.match(pdf, new RegExp(`${page.dictionary.id} 0 obj\\s*<<\\s*/Type /Page\\b`))
})

test('tagging: end() calls end() on the catalog\'s StructTreeRoot, MarkInfo and ViewerPreferences; a value with ' +
  'a no-op end() is written as its text', () => {
  class Written extends PdfRaw { ended = 0; end (): void { this.ended++ } }
  const doc = newDoc()
  const out = capture(doc)
  const root = (doc as unknown as { _root: { data: Record<string, unknown> } })._root.data
  const values = [new Written('9 0 R'), new Written('<< /Marked true >>'), new Written('<< /DisplayDocTitle true >>')]
  ;[root.StructTreeRoot, root.MarkInfo, root.ViewerPreferences] = values
  doc.end()
  assert.deepEqual(values.map((v) => v.ended), [1, 1, 1])
  assert.match(out(), /\/StructTreeRoot 9 0 R\n\/MarkInfo << \/Marked true >>\n\/ViewerPreferences << \/DisplayDocTitle true >>/)
})

test('metadata (pdfa-metadata.ts): end() calls endMetadata() once, before it writes the catalog, whose /Metadata ' +
  'the replacement sets', () => {
  const doc = newDoc({ pdfVersion: '1.7' })
  const out = capture(doc)
  let calls = 0
  const d = doc as unknown as { endMetadata (): void, _root: { data: Record<string, unknown> } }
  d.endMetadata = () => { calls++; d._root.data.Metadata = new PdfRaw('7 0 R') }
  doc.end()
  assert.equal(calls, 1)
  assert.match(out(), /\/Type \/Catalog[^>]*\/Metadata 7 0 R/)
})
