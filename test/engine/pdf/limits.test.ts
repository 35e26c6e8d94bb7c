import assert from 'node:assert/strict'
import { test } from 'node:test'
import { RenderError, TemplateError } from '../../../engine/errors.js'
import { compileDocument } from '../../../engine/pdf/compile.js'
import { renderPdf } from '../../../engine/pdf/render-pdf.js'
import type { RenderLimits } from '../../../engine/types.js'
import { input, invoiceDefinition, invoiceHeader, invoiceLines } from './fixtures.js'

type Lines = number | Array<Record<string, unknown>>
function renderWith (limits: Partial<RenderLimits>, lines: Lines, document?: unknown): unknown {
  const def = invoiceDefinition(document)
  const cd = compileDocument(def.document, def)
  const rows = typeof lines === 'number' ? invoiceLines(lines) : lines
  return renderPdf(cd, input(def, { header: invoiceHeader, lines: rows }, limits))
}

/**
 * Invoice lines that count how often their description is read: only laying out a row's table
 * cell reads it (the totals read `amount`), so the count says how far the layout got.
 */
function countedLines (n: number): { lines: Array<Record<string, unknown>>, laidOut: () => number } {
  let reads = 0
  const lines = invoiceLines(n).map((line) => {
    const { description, ...rest } = line
    return Object.defineProperty(rest, 'description', { enumerable: true, get () { reads++; return description } })
  })
  return { lines, laidOut: () => reads }
}

function expectRenderError (fn: () => unknown, code: string, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof RenderError, String(err))
    assert.equal(err.code, code)
    assert.match(err.message, message)
    return true
  })
}

test('maxPages: stops as soon as the page limit is passed', () => {
  const rows = countedLines(20_000)
  expectRenderError(() => renderWith({ maxPages: 3 }, rows.lines), 'RENDER_LIMIT_EXCEEDED', /^maxPages \(3\) exceeded/)
  // 20,000 rows would be ~600 pages (every description read); page 4 holds ~30 of them.
  assert.ok(rows.laidOut() > 0 && rows.laidOut() <= 5 * 40, `${rows.laidOut()} rows laid out`)
  const all = countedLines(200)
  renderWith({}, all.lines)
  assert.ok(all.laidOut() >= 200, 'a full render lays out every row (the count works)')
  assert.doesNotThrow(() => renderWith({ maxPages: 3 }, 20))
})

test('maxBytes: output larger than the limit is refused', () => {
  expectRenderError(() => renderWith({ maxBytes: 2000 }, 20), 'RENDER_LIMIT_EXCEEDED', /^maxBytes \(2000\) exceeded/)
  assert.doesNotThrow(() => renderWith({ maxBytes: 20_000 }, 20))
})

test('maxBytes: stops while writing pages, before laying out the rest', () => {
  const noCount = { ...invoiceDefinition().document as object, pageFooter: [{ text: 'Page {{ page }}' }] }
  const rows = countedLines(20_000)
  expectRenderError(() => renderWith({ maxBytes: 10_000 }, rows.lines, noCount), 'RENDER_LIMIT_EXCEEDED', /^maxBytes \(10000\) exceeded/)
  // 10 KB is a few pages of this invoice: the layout stopped there, not after all 20,000 rows.
  assert.ok(rows.laidOut() > 0 && rows.laidOut() <= 10 * 40, `${rows.laidOut()} rows laid out`)
})

test('maxRows: counts rows over all datasets', () => {
  // 20 lines + 1 header row = 21 rows.
  expectRenderError(() => renderWith({ maxRows: 20 }, 20), 'RENDER_LIMIT_EXCEEDED', /^maxRows \(20\) exceeded/)
  assert.doesNotThrow(() => renderWith({ maxRows: 21 }, 20))
})

test('an expression error names the element path and the expression', () => {
  const doc = {
    body: [{ text: 'ok' }, {
      table: {
        rows: 'lines',
        columns: [{
          header: 'A',
          value: '{{ row.amount * "x" }}'
        }]
      }
    }]
  }
  expectRenderError(() => renderWith({}, 3, doc), 'RENDER_FAILED', /document\.body\[1\]\.table\.columns\[0\]\.value: row\.amount \* "x"/)
  const bad = { body: [{ text: 'x' }, { columns: [{ items: [{ text: '{{ upper(header.number }}' }] }] }] }
  assert.throws(() => renderWith({}, 1, bad), (err: unknown) => err instanceof TemplateError && /document\.body\[1\]\.columns\[0\]\.items\[0\]\.text/.test(err.message))
})

test('layout errors are TemplateErrors naming the path', () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ body: [{ text: 'x', style: 'nope' }] }, /document\.body\[0\]\.style: unknown style "nope"/],
    [{ body: [{ text: 'x', font: 'Comic' }] }, /document\.body\[0\]: unknown font "Comic"/],
    [{ body: [{ image: { asset: 'logo' } }] }, /document\.body\[0\]\.image\.asset: unknown image asset "logo"/],
    [{ body: [{ barcode: { type: 'aztecx', value: '1' } }] }, /document\.body\[0\]\.barcode\.type: unknown barcode type/],
    [{ body: [{ table: { rows: 'lines', columns: [{ width: 400 }, { width: 400 }] } }] }, /document\.body\[0\]\.table\.columns: column widths \(800pt\) exceed/],
    [{ pageHeader: [{ table: { rows: 'lines', columns: [{}] } }] }, /document\.pageHeader\[0\]: tables are allowed in body/]
  ]
  for (const [doc, re] of cases) {
    const def = invoiceDefinition(doc)
    assert.throws(
      () => compileDocument(def.document, def),
      (err: unknown) => err instanceof TemplateError && re.test(err.message),
      String(re)
    )
  }
})

test('a bad barcode value is RENDER_FAILED naming the element', () => {
  const doc = { body: [{ barcode: { type: 'ean13', value: '{{ header.number }}' } }] }
  expectRenderError(() => renderWith({}, 1, doc), 'RENDER_FAILED', /^document\.body\[0\]\.barcode\.value: ean13 "INV-2026-0042": EAN-13 must contain only digits/)
})
