// Text a screen reader can read (issue 34): in a tagged document a line whose glyphs do not read
// back as its text (right-to-left runs drawn in visual order, Arabic joining forms, ligatures,
// reordered Devanagari) is wrapped in `/Span << /ActualText (logical text) >> BDC … EMC`.
// Neither pdf.js 5.6 (getTextContent ignores ActualText) nor poppler 22.12 (it takes the
// ActualText of right-to-left text for visual order and reverses it) extracts it, so the spans
// are read from the decoded content streams (qpdf), in content order.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { hasRtl } from '../../../engine/pdf/bidi.js'
import { compileDocument } from '../../../engine/pdf/compile.js'
import { renderPdf } from '../../../engine/pdf/render-pdf.js'
import type { RenderSuccess } from '../../../engine/types.js'
import { input, invoiceDefinition, withPdf } from './fixtures.js'

const examples = join(import.meta.dirname, '..', '..', '..', '..', 'examples')

/** The ActualText of every marked-content span, in content-stream order. */
function actualTexts (bytes: Uint8Array): string[] {
  const qdf = withPdf(bytes, (file, dir) => {
    const out = join(dir, 'qdf.pdf')
    execFileSync('qpdf', ['--qdf', '--normalize-content=n', '--object-streams=disable', file, out])
    return readFileSync(out).toString('latin1')
  })
  return [...qdf.matchAll(/\/Span <<\/ActualText <FEFF([0-9A-F]*)>>> BDC\n[\s\S]*?\nEMC\n/g)]
    .map((m) => Buffer.from(m[1]!, 'hex').swap16().toString('utf16le'))
}

/** The example invoice with the customer of `data` (examples/data), with `pdf` as its PDF options. */
function invoice (data: string, pdf: Record<string, unknown>): RenderSuccess {
  const json = (path: string): unknown => JSON.parse(readFileSync(join(examples, path), 'utf8'))
  const def = json('templates/invoice.json') as { document: Record<string, unknown> }
  def.document.pdf = pdf
  const datasets = json(`data/${data}.json`) as Record<string, unknown>
  const cd = compileDocument(def.document, def as never)
  const r = renderPdf(cd, { ...input(def, datasets), parameters: { invoiceId: 1 } })
  assert.equal(r.warnings, undefined)
  return r
}

for (const data of ['invoice-arabic', 'invoice-hebrew']) {
  test(`${data}: as PDF/UA-1 the customer's name and address lines read in logical order`, () => {
    const file = join(examples, 'data', `${data}.json`)
    const { header } = JSON.parse(readFileSync(file, 'utf8')) as { header: Record<string, string> }
    const lines = header.customer_address!.split('\n')
    assert.ok([header.customer_name!, ...lines].every(hasRtl))
    // A line that is not its paragraph's last reads with a word separator at its logical end.
    const source = [header.customer_name!, ...lines.map((l, i) => i < lines.length - 1 ? l + ' ' : l)]
    for (const pdf of [{ ua: 'PDF/UA-1' }, { standard: 'PDF/A-3a', ua: 'PDF/UA-1' }, { tagged: true }]) {
      const spans = actualTexts(invoice(data, pdf).bytes)
      assert.deepEqual(spans.filter(hasRtl), source, JSON.stringify(pdf))
    }
  })
}

function render (pdf: Record<string, unknown>, body: unknown[]): RenderSuccess {
  const def = invoiceDefinition({ pdf, info: { title: 'Text' }, page: { size: [400, 300], orientation: 'landscape', margins: 10 }, body })
  return renderPdf(compileDocument(def.document, def), input(def, {}))
}

test('shaped runs carry their text: ligatures, reordered Devanagari, numbers reordered in a right-to-left line', () => {
  const body = [
    { text: 'office fit', font: 'Noto Sans' },
    { text: 'हिन्दी', font: 'Noto Sans' },
    { text: 'Invoice 42 of 2026' },
    { text: 'plain Latin, no ligature', font: 'Noto Sans' },
    { text: '123 abc', direction: 'rtl' },
    { text: 'שלום (עולם) 123 abc' }
  ]
  assert.deepEqual(actualTexts(render({ tagged: true }, body).bytes),
    ['office fit', 'हिन्दी', '123 abc', 'שלום (עולם) 123 abc'])
})

test('untagged documents keep their bytes: no ActualText, even for right-to-left text', () => {
  const body = [{ text: 'שלום (עולם) 123 abc' }, { text: 'office fit', font: 'Noto Sans' }]
  assert.deepEqual(actualTexts(render({ tagged: false }, body).bytes), [])
  assert.deepEqual(actualTexts(render({ standard: 'PDF/A-2b', tagged: false }, body).bytes), [])
})

test('PDF/UA-1 refuses to render a character no font has (its .notdef glyph maps to no Unicode); untagged warns', () => {
  const body = [{ text: 'private \uE000 use' }]
  assert.throws(() => render({ ua: 'PDF/UA-1' }, body), (err: Error & { code?: string }) =>
    err.code === 'RENDER_FAILED' && /^PDF\/UA-1 cannot show characters no font has: U\+E000$/.test(err.message))
  assert.deepEqual(render({}, body).warnings, ['1 character(s) no font has, drawn as boxes: U+E000'])
})
