import assert from 'node:assert/strict'
import { test } from 'node:test'
import { compileDocument } from '../../../engine/pdf/compile.js'
import { renderPdf } from '../../../engine/pdf/render-pdf.js'
import { decodeBarcodes, input, invoiceDefinition, invoiceHeader, invoiceLines, pdfInfo, pdfText } from './fixtures.js'

function renderInvoice (lines: number): { bytes: Uint8Array, pageCount: number } {
  const def = invoiceDefinition()
  const cd = compileDocument(def.document, def)
  return renderPdf(cd, input(def, { header: invoiceHeader, lines: invoiceLines(lines) }))
}

test('invoice: one A4 page with header, addresses, table, total, footer and barcode', () => {
  const r = renderInvoice(20)
  const info = pdfInfo(r.bytes)
  assert.equal(r.pageCount, 1)
  assert.equal(info.pages, 1)
  assert.match(info.size, /595\.28 x 841\.89 pts \(A4\)/)
  const text = pdfText(r.bytes)
  const lines = text.split('\n').map((l) => l.trim().replace(/\s+/g, ' ')).filter((l) => l.length > 0)
  assert.deepEqual(lines.slice(0, 8), [
    'ACME Tools Ltd',
    'Invoice INV-2026-0042',
    'Bill to Date: 2026-11-21',
    'Globex Corporation Due: 2026-12-21',
    '12 Industrial Way, Springfield',
    'SKU Item Qty Amount',
    'SKU-0001 Widget model 1 with a reasonably long description 2 7.25',
    'SKU-0002 Widget model 2 with a reasonably long description 3 14.50'
  ])
  assert.ok(lines.includes('SKU-0020 Widget model 20 with a reasonably long description 1 145.00'))
  assert.ok(lines.includes('Total 1,522.50 EUR'))
  assert.ok(lines.includes('INV-2026-0042'))
  assert.equal(lines.at(-1), 'Page 1 of 1')
  // Right alignment: the amounts end in the same column.
  const amountEnds = text.split('\n').filter((l) => /^SKU-00\d\d/.test(l.trim())).map((l) => l.trimEnd().length)
  assert.equal(new Set(amountEnds).size, 1)
  assert.deepEqual(decodeBarcodes(r.bytes), ['INV-2026-0042'])
})

test('identical input gives byte-identical PDFs', () => {
  const a = renderInvoice(30)
  const b = renderInvoice(30)
  assert.ok(Buffer.from(a.bytes).equals(Buffer.from(b.bytes)))
  // …and the output is not trivially constant.
  assert.ok(!Buffer.from(a.bytes).equals(Buffer.from(renderInvoice(31).bytes)))
})

test('a table crossing pages repeats its header and numbers pages X of Y', () => {
  const r = renderInvoice(120)
  const info = pdfInfo(r.bytes)
  assert.ok(r.pageCount >= 3, `pages ${r.pageCount}`)
  assert.equal(info.pages, r.pageCount)
  const seen = new Set<string>()
  for (let p = 1; p <= r.pageCount; p++) {
    const text = pdfText(r.bytes, p)
    const lines = text.split('\n').map((l) => l.trim().replace(/\s+/g, ' ')).filter((l) => l.length > 0)
    assert.equal(lines[0], 'ACME Tools Ltd', `page ${p} header`)
    assert.equal(lines.at(-1), `Page ${p} of ${r.pageCount}`)
    const headerRow = lines.findIndex((l) => l === 'SKU Item Qty Amount')
    const firstRow = lines.findIndex((l) => l.startsWith('SKU-0'))
    if (firstRow >= 0) assert.ok(headerRow >= 0 && headerRow < firstRow, `page ${p} repeats the table header`)
    for (const l of lines) {
      const sku = /^(SKU-\d{4}) /.exec(l)?.[1]
      if (sku !== undefined) { assert.ok(!seen.has(sku), `${sku} twice`); seen.add(sku) }
    }
  }
  assert.equal(seen.size, 120, 'every row exactly once')
})
