// GS1-128 and GS1 DataMatrix in PDF documents: read back by ZXing from the page at 300 dpi with
// their GS1 symbology identifiers; an invalid element string fails the render naming the AI.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { compileDocument } from '../../../engine/pdf/compile.js'
import { renderPdf } from '../../../engine/pdf/render-pdf.js'
import { RenderError } from '../../../engine/errors.js'
import { input, invoiceDefinition, withPdf } from './fixtures.js'
import { decodeGrayPng } from './gray-png.js'
import { readRegion } from '../zpl/zxing.js'

function render (value128: string, valueDm: string): Uint8Array {
  const doc = {
    page: { margins: 60 },
    body: [
      { barcode: { type: 'gs1-128', value: '{{ v.a }}', height: 50, moduleWidth: 1.2 } }, { spacer: 40 },
      { barcode: { type: 'gs1-datamatrix', value: '{{ v.b }}', size: 80 } }
    ]
  }
  const def = invoiceDefinition(doc, {})
  return renderPdf(compileDocument(def.document, def), input(def, { v: { a: value128, b: valueDm } })).bytes
}

test('GS1-128 and GS1 DataMatrix in a PDF decode with ]C1 and ]d2 and their element strings', () => {
  const bytes = render('(00)106141411234567897(02)10614141000019(37)12', '(01)10614141000019(10)LOT7(17)261231')
  const g = withPdf(bytes, (file, dir) => {
    execFileSync('pdftoppm', ['-r', '300', '-gray', '-png', '-singlefile', '-f', '1', '-l', '1', file, join(dir, 'p')])
    return decodeGrayPng(readFileSync(join(dir, 'p.png')))
  })
  // 60 pt margins: the linear symbol from y ≈ 250 px, the DataMatrix from ≈ 625 px.
  const c = readRegion(g, 'Code128', 0, 0, g.width, 500)
  assert.equal(c.identifier, ']C1')
  assert.equal(c.text, '0010614141123456789702106141410000193712') // (37) last: no separator
  const dm = readRegion(g, 'DataMatrix', 0, 560, 1000, 600)
  assert.equal(dm.identifier, ']d2')
  assert.equal(dm.text, '011061414100001910LOT7<GS>17261231')
})

test('an invalid element string fails the PDF render naming the AI', () => {
  assert.throws(() => render('(00)106141411234567898', '(01)10614141000019'),
    (e: unknown) => e instanceof RenderError && e.code === 'RENDER_FAILED' && /GS1 AI \(00\): check digit is 8, should be 7/.test(e.message))
  assert.throws(() => render('(00)106141411234567897', '(01)10614141000019(99)'),
    (e: unknown) => e instanceof RenderError && /GS1 AI \(99\): "" has 0 characters/.test(e.message))
})
