// What a screen reader reads walking the structure tree (issue 34): the Arabic and Hebrew
// example invoices' customer in logical order, and lines of a paragraph with a word separator
// between them (tagged documents only; untagged output keeps its bytes).
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { compileDocument } from '../../../engine/pdf/compile.js'
import { renderPdf } from '../../../engine/pdf/render-pdf.js'
import type { RenderSuccess } from '../../../engine/types.js'
import { renderExample } from './examples.js'
import { input, invoiceDefinition, withPdf } from './fixtures.js'
import { structureOrderText } from './structure-order.js'

const examples = join(import.meta.dirname, '..', '..', '..', '..', 'examples')

for (const data of ['invoice-arabic', 'invoice-hebrew']) {
  test(`${data}: the demo invoice (PDF/A-3a + PDF/UA-1) reads its customer in logical order, in structure order`,
    async () => {
      const file = join(examples, 'data', `${data}.json`)
      const { header } = JSON.parse(readFileSync(file, 'utf8')) as { header: Record<string, string> }
      const text = await structureOrderText(renderExample('invoice', data).bytes)
      const name = text.indexOf(header.customer_name!)
      assert.ok(name > 0, JSON.stringify(text))
      assert.equal(text[name - 1], 'Bill to')
      // The address lines, in logical order, one word separator between them.
      assert.equal(text[name + 1], header.customer_address!.split('\n').join(' '))
    })
}

function render (pdf: Record<string, unknown>, body: unknown[]): RenderSuccess {
  const def = invoiceDefinition({ pdf, info: { title: 'Lines' }, page: { size: [300, 400], margins: 20 }, body })
  return renderPdf(compileDocument(def.document, def), { ...input(def, {}), context: { language: 'en' } })
}

const BODY = [
  { text: 'ACME Supplies GmbH\nDockstraße 1\n20457 Hamburg' },
  { text: 'A sentence long enough that it needs to wrap in a box this narrow', width: 120, align: 'right' },
  { text: 'Internationalization', width: 60, hyphenate: true }
]

// pdf.js (5.6) cannot show this: getTextContent trims a line's trailing space and marks the item
// hasEOL by position alone, with or without the separator; poppler reads the glyphs as drawn.
test('tagged: the lines of a paragraph read with a space between them (pdfinfo -struct-text)', () => {
  const bytes = render({ tagged: true }, BODY).bytes
  const struct = withPdf(bytes, (file) => execFileSync('pdfinfo', ['-struct-text', file], { encoding: 'utf8' }))
  const paras = [...struct.matchAll(/^ *"(.*)"$/gm)].map((m) => m[1]!.replace(/ +$/, ''))
  assert.equal(paras[0], 'ACME Supplies GmbH Dockstraße 1 20457 Hamburg')
  assert.equal(paras[1], BODY[1]!.text)
  // A hyphenated break reads as the word split by its hyphen, with no space after it.
  assert.match(paras[2] ?? '', /^Inter[a-z]*-[a-z]+/, struct)
  assert.doesNotMatch(paras[2] ?? '', /- /)
})

test('untagged: lines are drawn as they always were, no separator glyph', () => {
  const bytes = render({ tagged: false }, BODY).bytes
  const qdf = withPdf(bytes, (file, dir) => {
    const out = join(dir, 'qdf.pdf')
    execFileSync('qpdf', ['--qdf', '--object-streams=disable', file, out])
    return readFileSync(out).toString('latin1')
  })
  assert.match(qdf, /\(ACME Supplies GmbH\) Tj/)
  assert.doesNotMatch(qdf, / \) Tj/)
})

/** Every non-blank text item's text and where pdf.js places it (x, y to 0.01 pt). */
async function placed (bytes: Uint8Array): Promise<string[]> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise
  try {
    const items = (await (await pdf.getPage(1)).getTextContent()).items as Array<{ str?: string, transform?: number[] }>
    return items.filter((i) => (i.str ?? '').trim() !== '')
      .map((i) => `${i.str!.trim()} @ ${i.transform![4]!.toFixed(2)},${i.transform![5]!.toFixed(2)}`)
  } finally {
    await pdf.destroy()
  }
}

test('the separator moves nothing: right-aligned and right-to-left lines sit where the untagged ones do', async () => {
  const body = [...BODY, { text: 'שלום עולם, זו פסקה ארוכה שצריכה לעבור לשורה הבאה', width: 120 }]
  const tagged = await placed(render({ tagged: true }, body).bytes)
  const untagged = await placed(render({ tagged: false }, body).bytes)
  assert.ok(untagged.length >= 10, JSON.stringify(untagged))
  assert.deepEqual(tagged, untagged)
})
