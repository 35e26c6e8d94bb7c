// Text of every script with no template change: font stacks, right-to-left text, shaping and
// line breaking, read back with poppler (pdftotext, pdffonts, pdftoppm against reviewed images).
// SVC_UPDATE_REFERENCES=1 rewrites the reference images (look at them before committing).
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { compileDocument } from '../../../engine/pdf/compile.js'
import { renderPdf } from '../../../engine/pdf/render-pdf.js'
import { fontCacheStats } from '../../../engine/pdf/system-fonts.js'
import type { RenderSuccess } from '../../../engine/types.js'
import { input, invoiceDefinition, pdfText, withPdf } from './fixtures.js'
import { decodeGrayPng, diffShare, inkShare, pagePng } from './gray-png.js'

const REFERENCES = join(import.meta.dirname, '..', '..', '..', '..', 'test', 'engine', 'pdf', 'references')

/**
 * Untagged: these tests read the glyphs as drawn (visual order, shaping) through poppler, and
 * poppler 22.12 reorders a tagged document's /ActualText, which is already in logical order, a
 * second time: right-to-left text comes out reversed. The text of tagged documents is checked
 * in actual-text.test.ts.
 */
const untagged = (document: Record<string, unknown>): Record<string, unknown> =>
  ({ ...document, pdf: { tagged: false, ...(document.pdf as object | undefined) } })

function render (document: Record<string, unknown>, assets: Record<string, unknown> = {}): RenderSuccess {
  const def = invoiceDefinition(untagged(document), assets)
  return renderPdf(compileDocument(def.document, def), input(def, {}))
}

const fontsOf = (bytes: Uint8Array): string =>
  withPdf(bytes, (file) => execFileSync('pdffonts', [file], { encoding: 'utf8' }))
// pdftotext wraps right-to-left runs in embedding marks (U+202A-U+202E): not part of the text.
const plain = (s: string): string =>
  s.replace(/[\u202a-\u202e]/g, '').split('\n').map((l) => l.trim()).filter((l) => l !== '').join('\n')

const SAMPLES: Array<{ name: string, text: string, font: string }> = [
  { name: 'polish', text: 'Łódź Hurt Sp. z o.o., ul. Piotrkowska 12', font: 'NotoSans-Regular' },
  { name: 'greek', text: 'Αθήνα Εμπορική Α.Ε., Ερμού 5', font: 'NotoSans-Regular' },
  { name: 'cyrillic', text: 'Москва Торговый дом, улица Ленина', font: 'NotoSans-Regular' },
  { name: 'arabic', text: 'شركة النور للتجارة في القاهرة', font: 'NotoSansArabic-Regular' },
  { name: 'hebrew', text: 'חברת האור בעמ תל אביב', font: 'NotoSansHebrew-Regular' },
  { name: 'chinese', text: '上海贸易有限公司，南京路100号', font: 'NotoSansCJKsc-Regular' },
  { name: 'japanese', text: '東京商事株式会社、銀座の本店', font: 'NotoSansCJKsc-Regular' }
]

for (const s of SAMPLES) {
  test(`${s.name}: logical text, embedded subset font and page image as reviewed`, () => {
    const r = render({
      page: { size: [300, 60], orientation: 'landscape', margins: 10 }, body: [{ text: s.text, size: 12 }]
    })
    assert.equal(r.warnings, undefined)
    assert.equal(plain(pdfText(r.bytes)), s.text)
    const line = fontsOf(r.bytes).split('\n').find((l) => l.includes('+' + s.font + ' '))
    assert.ok(line !== undefined, `${s.font} embedded`)
    assert.match(line, /Identity-H\s+yes yes yes/)
    const png = pagePng(r.bytes, 100)
    const ref = join(REFERENCES, `${s.name}.png`)
    if (process.env.SVC_UPDATE_REFERENCES === '1' || !existsSync(ref)) writeFileSync(ref, png)
    const share = diffShare(decodeGrayPng(png), decodeGrayPng(readFileSync(ref)))
    assert.ok(share < 0.005, `${(share * 100).toFixed(2)}% of the pixels differ from ${ref}`)
  })
}

test('right-to-left paragraphs are right-aligned by default; direction and align override it', () => {
  const page = { size: [300, 100], orientation: 'landscape', margins: 10 }
  const heb = 'שלום עולם'
  const body = [
    { text: heb, size: 14 }, { text: heb, size: 14, direction: 'ltr' }, { text: heb, size: 14, align: 'left' }
  ]
  const g = decodeGrayPng(pagePng(render({ page, body }).bytes, 72))
  // Helvetica's line height at 14 pt (the primary font gives the metrics): 16.2 pt, 72 dpi = 1 px/pt.
  const lh = 16.2
  const band = (i: number): [number, number] => [Math.ceil(10 + i * lh + 1), Math.floor(10 + (i + 1) * lh - 1)]
  // Line 1 (auto → rtl): ink at the right, none at the left; lines 2 and 3 the other way round.
  let [t, b] = band(0)
  assert.ok(inkShare(g, 200, t, 290, b) > 0.02)
  assert.equal(inkShare(g, 10, t, 100, b), 0)
  for (const i of [1, 2]) {
    [t, b] = band(i)
    assert.ok(inkShare(g, 10, t, 100, b) > 0.02)
    assert.equal(inkShare(g, 200, t, 290, b), 0)
  }
})

test('numbers and Latin words inside right-to-left text keep their own order', () => {
  const r = render({
    page: { size: [400, 60], orientation: 'landscape', margins: 10 },
    body: [{ text: 'فاتورة رقم 2026 من ACME Tools', size: 12 }]
  })
  const text = plain(pdfText(r.bytes))
  assert.match(text, /2026/)
  assert.match(text, /ACME Tools/)
  assert.match(text, /فاتورة رقم/)
})

test('a long Chinese paragraph wraps between characters inside its column, never before closing punctuation', () => {
  const para = '这是一个很长的中文段落，用于测试换行是否在列内进行，而不会超出列的边界。我们需要确保每一行都在正确的位置断开，并且标点符号不会出现在行首。'.repeat(3)
  const left = 20; const width = 150
  const r = render({ page: { size: [400, 600], margins: [20, 230, 20, left] }, body: [{ text: para, size: 10 }] })
  const bbox = withPdf(r.bytes, (file) => execFileSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8' }))
  const words = [...bbox.matchAll(/xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</g)]
  assert.ok(words.length > 0)
  for (const w of words) {
    assert.ok(Number(w[1]) >= left - 0.5, `starts inside: ${w[3]}`)
    assert.ok(Number(w[2]) <= left + width + 0.5, `ends inside the column: ${w[3]} at ${w[2]}`)
  }
  const lines = plain(pdfText(r.bytes)).split('\n')
  assert.ok(lines.length >= 10, `${lines.length} lines`)
  assert.equal(lines.join(''), para)
  for (const l of lines) assert.doesNotMatch(l, /^[，。、）」]/)
})

test('closing punctuation that does not fit pulls the character before it onto the next line (UAX #14)', () => {
  // 10 pt ideographs in a 150 pt column: 15 per line; the 16th character is a closing comma.
  const para = '中'.repeat(15) + '，' + '文'.repeat(5)
  const r = render({
    page: { size: [400, 200], orientation: 'landscape', margins: [20, 230, 20, 20] }, body: [{ text: para, size: 10 }]
  })
  assert.deepEqual(plain(pdfText(r.bytes)).split('\n'), ['中'.repeat(14), '中，' + '文'.repeat(5)])
})

test('a character no font has is a visible .notdef box and a warning, never "?"', () => {
  const r = render({
    page: { size: [200, 50], orientation: 'landscape', margins: 10 }, body: [{ text: 'A\u{1FAE8}B', size: 20 }]
  })
  assert.deepEqual(r.warnings, ['1 character(s) no font has, drawn as boxes: U+1FAE8'])
  assert.doesNotMatch(pdfText(r.bytes), /\?/)
  const g = decodeGrayPng(pagePng(r.bytes, 72))
  // Between the A (≈10-24 pt) and the B: the box's ink.
  assert.ok(inkShare(g, 25, 10, 40, 35) > 0.03)
})

test('a style names a font stack; template font assets join every stack before the defaults', () => {
  const dejavu = { data: readFileSync('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf').toString('base64') }
  const greek = 'Ωμέγα'
  const own = render({ body: [{ text: greek }] }, { fonts: { DejaVu: dejavu } })
  assert.match(fontsOf(own.bytes), /\+DejaVuSans /)
  assert.doesNotMatch(fontsOf(own.bytes), /NotoSans-Regular/)
  const stack = render({
    styles: { s: { font: ['Helvetica', 'Noto Sans Hebrew', 'Noto Sans Arabic'] } }, body: [{ text: 'ש ش', style: 's' }]
  })
  assert.match(fontsOf(stack.bytes), /NotoSansHebrew-Regular/)
  const unknown = { styles: { s: { font: ['Helvetica', 'No Such Font'] } }, body: [{ text: 'x', style: 's' }] }
  assert.throws(() => render(unknown), /unknown font "No Such Font"/)
})

test('installed fonts are parsed once per worker, not per render or per template', () => {
  render({ body: [{ text: 'Łódź שלום 中文' }] })
  const loads = fontCacheStats.loads
  for (let i = 0; i < 3; i++) render({ body: [{ text: `Kraków ${i} שלום 上海` }] })
  assert.equal(fontCacheStats.loads, loads)
  assert.ok(fontCacheStats.hits > 0)
})

test('the same input gives the same bytes', () => {
  const doc = { body: [{ text: 'Łódź — مرحبا 123 — 中文，日本語' }] }
  assert.deepEqual(Buffer.from(render(doc).bytes), Buffer.from(render(doc).bytes))
})

test('the example invoice with an Arabic customer (examples/data/invoice-arabic.json) draws the name and ' +
  'address', () => {
  const root = join(import.meta.dirname, '..', '..', '..', '..', 'examples')
  const def = JSON.parse(readFileSync(join(root, 'templates', 'invoice.json'), 'utf8')) as { document: Record<string, unknown> }
  // The example is PDF/A-3a + PDF/UA-1, tagged by definition: its page as untagged PDF/A-3b (the
  // e-invoice needs PDF/A-3), for the reason `untagged` gives.
  def.document = { ...def.document, pdf: { standard: 'PDF/A-3b', tagged: false } }
  const data = JSON.parse(readFileSync(join(root, 'data', 'invoice-arabic.json'), 'utf8')) as Record<string, unknown>
  const r = renderPdf(compileDocument(def.document, def as never), {
    ...input(def, data),
    parameters: { invoiceId: 1 }
  })
  assert.equal(r.warnings, undefined)
  const text = plain(pdfText(r.bytes))
  // (pdftotext puts a number at the left end of a right-to-left line first: visual order there.)
  for (const s of ['شركة النور ' +
    'للتجارة', 'شارع التحرير', 'القاهرة', '11511', 'مصر', 'INV-2024-0043']) assert.ok(text.includes(s), s)
  assert.match(fontsOf(r.bytes), /NotoSansArabic-Bold/)
})

test('what a document extracts to does not depend on what the worker rendered before (fontkit glyph cache)', () => {
  const page = { size: [300, 60], orientation: 'landscape', margins: 10 }
  render({ page, body: [{ text: 'شركة النور للتجارة في القاهرة' }] })
  const r = render({ page, body: [{ text: 'شارع التحرير' }] })
  assert.equal(plain(pdfText(r.bytes)), 'شارع التحرير')
})
