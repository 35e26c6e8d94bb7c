import assert from 'node:assert/strict'
import { test } from 'node:test'
import { RenderError, TemplateError } from '../../../workers/errors.js'
import { compileDocument } from '../../../workers/pdf/compile.js'
import { renderPdf } from '../../../workers/pdf/render-pdf.js'
import type { RenderLimits } from '../../../workers/types.js'
import { input, invoiceDefinition, invoiceHeader, invoiceLines } from './fixtures.js'

function renderWith (limits: Partial<RenderLimits>, lines: number, document?: unknown): unknown {
  const def = invoiceDefinition(document)
  const cd = compileDocument(def.document, def as never)
  return renderPdf(cd, input(def, { header: invoiceHeader, lines: invoiceLines(lines) }, limits))
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
  const t0 = performance.now()
  expectRenderError(() => renderWith({ maxPages: 3 }, 20_000), 'RENDER_LIMIT_EXCEEDED', /^maxPages \(3\) exceeded/)
  // 20,000 rows would be ~600 pages; stopping at page 4 takes a fraction of that.
  assert.ok(performance.now() - t0 < 2000)
  assert.doesNotThrow(() => renderWith({ maxPages: 3 }, 20))
})

test('maxBytes: output larger than the limit is refused', () => {
  expectRenderError(() => renderWith({ maxBytes: 2000 }, 20), 'RENDER_LIMIT_EXCEEDED', /^maxBytes \(2000\) exceeded/)
  assert.doesNotThrow(() => renderWith({ maxBytes: 20_000 }, 20))
})

test('maxBytes: stops while writing pages, before laying out the rest', () => {
  const noCount = { ...invoiceDefinition().document as object, pageFooter: [{ text: 'Page {{ page }}' }] }
  const t0 = performance.now()
  expectRenderError(() => renderWith({ maxBytes: 10_000 }, 20_000, noCount), 'RENDER_LIMIT_EXCEEDED', /^maxBytes \(10000\) exceeded/)
  assert.ok(performance.now() - t0 < 2000)
})

test('maxRows: counts rows over all datasets', () => {
  // 20 lines + 1 header row = 21 rows.
  expectRenderError(() => renderWith({ maxRows: 20 }, 20), 'RENDER_LIMIT_EXCEEDED', /^maxRows \(20\) exceeded/)
  assert.doesNotThrow(() => renderWith({ maxRows: 21 }, 20))
})

test('an expression error names the element path and the expression', () => {
  const doc = { body: [{ text: 'ok' }, { table: { rows: 'lines', columns: [{ header: 'A', value: '{{ row.amount * "x" }}' }] } }] }
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
      () => compileDocument(def.document, def as never),
      (err: unknown) => err instanceof TemplateError && re.test(err.message),
      String(re)
    )
  }
})

test('a bad barcode value is RENDER_FAILED naming the element', () => {
  const doc = { body: [{ barcode: { type: 'ean13', value: '{{ header.number }}' } }] }
  expectRenderError(() => renderWith({}, 1, doc), 'RENDER_FAILED', /^document\.body\[0\]\.barcode\.value: ean13 "INV-2026-0042": EAN-13 must contain only digits/)
})
