// XMP of the accessible levels (issue 34): pdfaid:conformance A for PDF/A-2a and 3a; for PDF/UA-1
// pdfuaid:part 1 and dc:title, with the pdfuaid schema declared in the one pdfaExtension:schemas
// Bag when the document is also PDF/A; PDF/UA-1 without PDF/A writes the XMP all the same.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { compileDocument } from '../../../engine/pdf/compile.js'
import { renderPdf } from '../../../engine/pdf/render-pdf.js'
import type { RenderSuccess } from '../../../engine/types.js'
import { input, invoiceDefinition, pdfInfo } from './fixtures.js'
import { preflight } from './preflight.js'
import { el, xmpOf, xpath } from './xmp.js'

const PDFUA = 'http://www.aiim.org/pdfua/ns/id/'

function render (pdf: Record<string, unknown>): RenderSuccess {
  const def = invoiceDefinition({
    pdf,
    info: { title: 'Statement <7> & co' },
    body: [{ text: 'Statement', heading: 1 }, { text: 'Hello' }]
  })
  return renderPdf(compileDocument(def.document, def), input(def, {}))
}

test('PDF/UA-1 without PDF/A: XMP with pdfuaid:part 1 and dc:title, no pdfaid, no extension schema; PDF 1.7', () => {
  const r = render({ ua: 'PDF/UA-1' })
  const xmp = xmpOf(r.bytes)
  assert.equal(xpath(xmp, `string(${el('part')}[namespace-uri()="${PDFUA}"])`), '1')
  assert.equal(xpath(xmp, `string(${el('title')}//*[local-name()="li"])`), 'Statement <7> & co')
  assert.equal(xpath(xmp, 'count(//*[namespace-uri()="http://www.aiim.org/pdfa/ns/id/"])'), '0')
  assert.equal(xpath(xmp, `count(${el('schemas')})`), '0')
  assert.match(pdfInfo(r.bytes).raw, /^PDF version:\s+1\.7$/m)
})

test('PDF/A-2a: conformance A, no extension schema; with PDF/UA-1 the pdfuaid schema is declared, and Preflight ' +
  'passes both', async () => {
  const a = xmpOf(render({ standard: 'PDF/A-2a' }).bytes)
  assert.equal(xpath(a, `string(${el('conformance')})`), 'A')
  assert.equal(xpath(a, `string(${el('part')})`), '2')
  assert.equal(xpath(a, `count(${el('schemas')})`), '0')
  const uaBytes = render({ standard: 'PDF/A-2a', ua: 'PDF/UA-1' }).bytes
  const ua = xmpOf(uaBytes)
  assert.equal(xpath(ua, `string(${el('conformance')})`), 'A')
  assert.equal(xpath(ua, `string(${el('part')}[namespace-uri()="${PDFUA}"])`), '1')
  assert.equal(xpath(ua, `count(${el('schemas')})`), '1')
  assert.equal(xpath(ua, `count(${el('schemas')}/${el('Bag').slice(2)}/*)`), '1')
  assert.equal(xpath(ua, `string(${el('schemas')}//*[local-name()="namespaceURI"])`), PDFUA)
  assert.equal(xpath(ua, `string(${el('schemas')}//*[local-name()="prefix"])`), 'pdfuaid')
  const b = render({ standard: 'PDF/A-2b', ua: 'PDF/UA-1' })
  assert.equal(xpath(xmpOf(b.bytes), `string(${el('conformance')})`), 'B')
  for (const [bytes, name] of [[uaBytes, '2a + UA'], [b.bytes, '2b + UA']] as const) {
    const v = await preflight(bytes, 2)
    assert.equal(v.code, 0, `${name}: ${v.out}`)
  }
})

test('plain and PDF/A-2b documents carry no pdfuaid', () => {
  assert.equal(xpath(xmpOf(render({ standard: 'PDF/A-2b' }).bytes), `count(//*[namespace-uri()="${PDFUA}"])`), '0')
  assert.throws(() => xmpOf(render({}).bytes), /no XMP packet/)
})
