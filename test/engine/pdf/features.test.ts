import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import PDFDocument from 'pdfkit'
import { compileDocument } from '../../../engine/pdf/compile.js'
import { renderPdf } from '../../../engine/pdf/render-pdf.js'
import {
  decodeBarcodes, decodeDataMatrix, input, invoiceDefinition, normalisedLines, pdfInfo, pdfText, withPdf
} from './fixtures.js'
import { png2x1 } from '../../helpers/png.js'
import { itemAt } from '../../helpers/item-at.js'

function render (
  document: unknown,
  datasets: Record<string, unknown>,
  assets: Record<string, unknown> = {}
): { bytes: Uint8Array, pageCount: number } {
  const def = invoiceDefinition(document, assets)
  return renderPdf(compileDocument(def.document, def), input(def, datasets))
}

test('groups: consecutive equal keys form a group with header, footer and correct subtotals', () => {
  const sales = [
    { region: 'East', amount: '10.50', qty: 1 }, { region: 'East', amount: '4.25', qty: 2 },
    { region: 'North', amount: '100.00', qty: 3 },
    { region: 'West', amount: '1.10', qty: 1 }, { region: 'West', amount: '2.20', qty: 1 },
    { region: 'West', amount: '3.30', qty: 1 },
    { region: 'East', amount: '7.00', qty: 9 } // not adjacent to the first East rows: a new group
  ]
  const doc = {
    body: [{
      table: {
        rows: 'sales',
        groupBy: '{{ row.region }}',
        groupHeader: [{ text: 'Region {{ row.region }}' }],
        groupFooter: [{
          text: 'Subtotal {{ row.region }}: {{ count(group) }} sales, {{ formatNumber(sum(group, ' +
          '"amount"), 2) }}, {{ sum(group, "qty") }} units',
          align: 'right'
        }],
        columns: [{
          header: 'Region',
          value: '{{ row.region }}'
        }, { header: 'Amount', value: '{{ row.amount }}', width: 80, align: 'right' }]
      }
    }],
    summary: [{ text: 'Grand total {{ formatNumber(sum(sales, "amount"), 2) }}' }]
  }
  const lines = normalisedLines(pdfText(render(doc, { sales }).bytes))
  assert.deepEqual(lines, [
    'Region Amount',
    'Region East', 'East 10.50', 'East 4.25', 'Subtotal East: 2 sales, 14.75, 3 units',
    'Region North', 'North 100.00', 'Subtotal North: 1 sales, 100.00, 3 units',
    'Region West', 'West 1.10', 'West 2.20', 'West 3.30', 'Subtotal West: 3 sales, 6.60, 3 units',
    'Region East', 'East 7.00', 'Subtotal East: 1 sales, 7.00, 9 units',
    'Grand total 128.35'
  ])
})

const DEJAVU = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'
const UNICODE = 'Zürich — Ωμέγα — Łódź'

test('Unicode text with an embedded, subset TTF font comes back out of pdftotext', () => {
  const assets = { fonts: { DejaVu: { data: readFileSync(DEJAVU).toString('base64') } } }
  const doc = {
    styles: { uni: { font: 'DejaVu', size: 14 } },
    body: [{ text: UNICODE, style: 'uni' }, { text: '{{ city }} ← data', style: 'uni', align: 'right' }]
  }
  const r = render(doc, { city: null }, assets)
  // The parameter-free dataset value is null; the static line must still be there.
  const r2 = render({
    ...doc,
    body: [{ text: UNICODE, style: 'uni' }, {
      text: '{{ place.name }} ← data',
      style: 'uni',
      align: 'right'
    }]
  }, { place: { name: 'Kraków' } }, assets)
  assert.deepEqual(normalisedLines(pdfText(r.bytes)), [UNICODE, '← data'])
  assert.deepEqual(normalisedLines(pdfText(r2.bytes)), [UNICODE, 'Kraków ← data'])
  const fonts = withPdf(r2.bytes, (file) => execFileSync('pdffonts', [file], { encoding: 'utf8' }))
  const row = fonts.split('\n').find((l) => l.includes('DejaVuSans'))
  assert.ok(row !== undefined, fonts)
  assert.match(row, /^[A-Z]{6}\+DejaVuSans\s/, 'subset tag')
  assert.match(row, /yes\s+yes\s+yes/, 'embedded, subset, unicode map')
  // Subsetting: the PDF is far smaller than the 750 KB font.
  assert.ok(r2.bytes.length < 60_000, `size ${r2.bytes.length}`)
})

test('fallbackFont: text a standard font cannot show is drawn with the asset font', () => {
  const assets = { fonts: { DejaVu: { data: readFileSync(DEJAVU).toString('base64') } } }
  const doc = { fallbackFont: 'DejaVu', body: [{ text: 'Plain ASCII line' }, { text: UNICODE }] }
  const r = render(doc, {}, assets)
  assert.deepEqual(normalisedLines(pdfText(r.bytes)), ['Plain ASCII line', UNICODE])
  const fonts = withPdf(r.bytes, (file) => execFileSync('pdffonts', [file], { encoding: 'utf8' }))
  assert.match(fonts, /Helvetica/)
  assert.match(fonts, /DejaVuSans/)
})

test('every barcode kind decodes back to its value', () => {
  const doc = {
    page: { margins: 60 },
    body: [
      { barcode: { type: 'code128', value: '{{ v.c128 }}', height: 40, moduleWidth: 1.2, text: true } }, { spacer: 30 },
      { barcode: { type: 'ean13', value: '{{ v.ean }}', height: 50, moduleWidth: 1.2 } }, { spacer: 30 },
      { barcode: { type: 'qr', value: '{{ v.qr }}', size: 100 } }, { spacer: 30 },
      { barcode: { type: 'code39', value: 'CODE39-OK', height: 40, moduleWidth: 1.2 } }
    ]
  }
  const v = { c128: 'ORD-2026/0042', ean: '4006381333931', qr: 'https://example.com/i/42?x=1&y=ABC' }
  const r = render(doc, { v })
  const found = decodeBarcodes(r.bytes).sort()
  assert.deepEqual(found, [v.c128, 'CODE39-OK', v.ean, v.qr].sort())
  assert.ok(normalisedLines(pdfText(r.bytes)).includes(v.c128), 'human-readable text under Code128')
  const dmDoc = { page: { margins: 60 }, body: [{ barcode: { type: 'datamatrix', value: '{{ v.dm }}', size: 90 } }] }
  const dm = render(dmDoc, { v: { dm: 'DM-12345-ABC' } })
  assert.deepEqual(decodeDataMatrix(dm.bytes), ['DM-12345-ABC'])
})

test('page size, orientation, explicit page breaks, ellipsis and conditional elements', () => {
  const doc = {
    page: { size: 'A5', orientation: 'landscape', margins: [30, 30, 30, 30] },
    body: [
      { text: 'First page' },
      { text: 'hidden', if: 'flag == 0' },
      { text: 'shown when flag', if: 'flag' },
      { pageBreak: true },
      { text: 'Second page' },
      { text: 'word '.repeat(400), maxLines: 2 }
    ]
  }
  const def = invoiceDefinition(doc)
  const cd = compileDocument(def.document, def)
  const inp = input(def, {})
  inp.parameters = {}
  const scopeData = { flag: 1 }
  const r = renderPdf(cd, { ...inp, datasets: scopeData as never })
  const info = pdfInfo(r.bytes)
  assert.equal(info.pages, 2)
  assert.match(info.size, /^595\.28 x 419\.53 pts/)
  assert.deepEqual(normalisedLines(pdfText(r.bytes, 1)), ['First page', 'shown when flag'])
  const p2 = normalisedLines(pdfText(r.bytes, 2))
  assert.equal(p2.length, 3)
  assert.equal(p2[0], 'Second page')
  const last = itemAt(p2, 2)
  assert.ok(last.endsWith('…') && last.startsWith('word word'), last)
})

test('a text longer than a page continues on the next pages', () => {
  const text = Array.from({ length: 200 }, (_, i) => `Line ${i + 1}`).join('\n')
  const r = render({ body: [{ text }] }, {})
  assert.ok(r.pageCount >= 3)
  const all = normalisedLines(pdfText(r.bytes))
  assert.deepEqual(all.filter((l) => l.startsWith('Line ')), Array.from({ length: 200 }, (_, i) => `Line ${i + 1}`))
})

test('PNG (opaque and with alpha) and JPEG image assets are embedded with their sizes', () => {
  // Opaque RGB PNG: a page of our own output rasterised by pdftoppm; JPEG the same way.
  const src = render({ body: [{ rect: { height: 40, fill: '#ff0000' } }] }, {}).bytes
  const raster = (fmt: string): string => withPdf(src, (file, dir) => {
    execFileSync('pdftoppm', ['-r', '10', `-${fmt}`, '-singlefile', file, `${dir}/r`])
    return readFileSync(`${dir}/r.${fmt === 'jpeg' ? 'jpg' : 'png'}`).toString('base64')
  })
  // RGBA PNG with transparency, built by hand: 2×1 pixels, filter 0.
  const rgba = pngRgba()
  const assets = { images: { page: { data: raster('png') }, photo: { data: raster('jpeg') }, alpha: { data: rgba } } }
  const doc = {
    body: [
      { image: { asset: 'page', width: 100 } },
      { image: { asset: 'photo', height: 50, align: 'right' } },
      { image: { asset: 'alpha', width: 20 } }
    ]
  }
  const r = render(doc, {}, assets)
  const list = withPdf(r.bytes, (file) => execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' }))
  const rows = list.split('\n').slice(2).filter((l) => l.trim().length > 0).map((l) => l.trim().split(/\s+/))
  // page num type width height color comp bpc enc
  const summary = rows.map((c) => `${c[2]} ${c[3]}x${c[4]} ${c[5]} ${c[8]}`)
  assert.deepEqual(summary, ['image 83x117 rgb ' +
    'image', 'image 83x117 rgb jpeg', 'image 2x1 rgb image', 'smask 2x1 gray image'])
  const checked = withPdf(r.bytes, (file) => {
    execFileSync('qpdf', ['--check', file], { stdio: 'ignore' })
    return 'ok'
  })
  assert.equal(checked, 'ok')
})

/** Opaque red, then blue at half alpha. */
function pngRgba (): string {
  return png2x1(6, Buffer.from([0, 255, 0, 0, 255, 0, 0, 255, 128]))
}

/** yMin of each word, from pdftotext -bbox (points from the top of the page). */
function wordTops (bytes: Uint8Array): Map<string, number> {
  const html = withPdf(bytes, (file) => execFileSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8' }))
  const tops = new Map<string, number>()
  for (const m of html.matchAll(/<word xMin="[\d.]+" yMin="([\d.]+)"[^>]*>([^<]+)<\/word>/g)) tops.set(itemAt(m, 2), Number(m[1]))
  return tops
}

test('lines are as far apart as pdfkit sets them (ascender + descender + the font\'s line gap)', () => {
  for (const [font, size] of [['Helvetica', 10], ['Times-Roman', 20], ['Courier-Bold', 12]] as const) {
    const body = [
      { text: 'Alpha\nBravo\nCharlie', font, size }, { text: 'Delta', font, size, lineGap: 5 }, { text: 'Echo', font, size }
    ]
    const r = render({ body }, {})
    const top = wordTops(r.bytes)
    // Independent reference: pdfkit's own line height for the font, gap included.
    const doc = new PDFDocument({ autoFirstPage: false })
    const pitch = doc.font(font).fontSize(size).currentLineHeight(true)
    assert.ok(pitch > size, `${font}: a line is taller than the font size`)
    const at = (w: string): number => top.get(w) ?? NaN
    assert.ok(Math.abs(at('Bravo') - at('Alpha') - pitch) < 0.05, `${font}: ${at('Bravo') - at('Alpha')} vs ${pitch}`)
    assert.ok(Math.abs(at('Charlie') - at('Bravo') - pitch) < 0.05, font)
    assert.ok(Math.abs(at('Echo') - at('Delta') - pitch - 5) < 0.05, `${font}: lineGap adds below the line`)
  }
})
