// An e-invoice render is like every document's: byte-deterministic, streamed (the same bytes
// through an OutputSink), limited (maxBytes, maxRows), and the page shows the engine's figures.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { render, renderResult } from '../../../engine/render.js'
import { compileTemplate } from '../../../engine/template/compile.js'
import type { TemplateDefinition } from '../../../engine/template/definition.js'
import { einvoiceTemplate, invoiceData, renderInput } from './fixtures.js'

const template = einvoiceTemplate()
const compiled = compileTemplate(template as unknown as TemplateDefinition)

test('the same input gives the same bytes, and streaming gives them too', () => {
  const a = render(compiled, renderInput(template, invoiceData()))
  const b = render(compiled, renderInput(template, invoiceData()))
  assert.ok(a.bytes.length > 0)
  assert.deepEqual(Buffer.from(a.bytes), Buffer.from(b.bytes))
  const chunks: Uint8Array[] = []
  let counted = -1
  const s = render(compiled, renderInput(template, invoiceData()), {
    count: (n) => { counted = n },
    write: (c) => { chunks.push(c) }
  })
  assert.equal(s.bytes.length, 0)
  assert.equal(counted, a.pageCount)
  assert.deepEqual(Buffer.concat(chunks), Buffer.from(a.bytes))
})

test('limits apply: maxBytes and maxRows', () => {
  const limited = (maxBytes: number, maxRows: number): ReturnType<typeof renderResult> =>
    renderResult({ ...renderInput(template, invoiceData()), limits: { maxPages: 10, maxBytes, maxRows, maxLabels: 0 } })
  assert.ok(renderResult(renderInput(template, invoiceData())).ok)
  const big = limited(2000, 100)
  assert.equal(big.ok ? 'ok' : big.code, 'RENDER_LIMIT_EXCEEDED')
  const many = limited(1e7, 2)
  assert.equal(many.ok ? 'ok' : many.code, 'RENDER_LIMIT_EXCEEDED')
})
