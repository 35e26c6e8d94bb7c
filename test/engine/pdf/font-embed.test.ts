// The embedded fonts' PDF objects (font-embed.ts): widths in 1/1000 em (.notdef included),
// small font programs stored, large ones deflated, ToUnicode read back by poppler.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { compileDocument } from '../../../engine/pdf/compile.js'
import { renderPdf } from '../../../engine/pdf/render-pdf.js'
import type { RenderSuccess } from '../../../engine/types.js'
import { input, invoiceDefinition, pdfText } from './fixtures.js'
import { itemAt } from '../../helpers/item-at.js'

const DEJAVU = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'

function render (document: unknown, assets: Record<string, unknown> = {}): RenderSuccess {
  const def = invoiceDefinition(document, assets)
  return renderPdf(compileDocument(def.document, def), input(def, {}))
}

/** The dictionary of the object the descriptor's FontFile2/FontFile3 entry names. */
function fontFileDicts (bytes: Uint8Array): string[] {
  const s = Buffer.from(bytes).toString('latin1')
  return [...s.matchAll(/\/FontFile[23] (\d+) 0 R/g)].map((m) => {
    const at = s.indexOf(`\n${m[1]} 0 obj`) + 1
    return s.slice(at, s.indexOf('stream', at))
  })
}

test('.notdef advances like every glyph, in 1/1000 em, also in a font of 2048 units per em', () => {
  const asset = { data: readFileSync(DEJAVU).toString('base64') }
  const r = render({ styles: { d: { font: 'DejaVu' } }, body: [{ text: 'A\u{1FAE8}B', style: 'd' }] },
    { fonts: { DejaVu: asset } })
  assert.deepEqual(r.warnings, ['1 character(s) no font has, drawn as boxes: U+1FAE8'])
  const w = /\/W \[0 \[([\d. ]+)\]/.exec(Buffer.from(r.bytes).toString('latin1'))
  assert.ok(w !== null)
  // DejaVu Sans: .notdef 1229 units of 2048 = 600/1000 em; A 1401 units = 684.08.
  assert.deepEqual(itemAt(w, 1).split(' ').map(Number).slice(0, 2), [600.097656, 684.082031])
})

test('a small font program is stored, a large one deflated; the text reads back either way', () => {
  const small = render({ body: [{ text: 'Łódź' }] })
  assert.equal(pdfText(small.bytes).trim(), 'Łódź')
  const dict = itemAt(fontFileDicts(small.bytes), 0)
  assert.doesNotMatch(dict, /FlateDecode/)
  // Hundreds of different Latin, Greek and Cyrillic letters: a subset far over 8 KB.
  let text = ''
  for (const [a, b] of [[0x100, 0x17f], [0x391, 0x3a1], [0x3a3, 0x3c9], [0x410, 0x44f]] as const) {
    for (let c = a; c <= b; c++) text += String.fromCodePoint(c)
  }
  const large = render({ body: [{ text }] })
  assert.equal(large.warnings, undefined)
  const ldict = itemAt(fontFileDicts(large.bytes), 0)
  assert.match(ldict, /FlateDecode/)
  assert.ok(Number(/\/Length1? (\d+)/.exec(ldict)?.[1]) > 0)
  assert.equal(pdfText(large.bytes).replace(/\s/g, ''), text.replace(/\s/g, ''))
})
