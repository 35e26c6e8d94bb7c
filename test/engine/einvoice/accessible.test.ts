// PDF/A-3a + PDF/UA-1 + Factur-X in one file (issue 34): the e-invoice fixture with
// `standard: PDF/A-3a, ua: PDF/UA-1` passes Preflight part 3 and the Factur-X validator, and its
// XMP holds ONE pdfaExtension:schemas Bag describing both the fx: and the pdfuaid: schema.
// (The structure tree's own checks come with it: this test does not depend on tags.)
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { render } from '../../../engine/render.js'
import { compileTemplate } from '../../../engine/template/compile.js'
import type { TemplateDefinition } from '../../../engine/template/definition.js'
import { el, xmpOf, xpath } from '../pdf/xmp.js'
import { einvoiceTemplate, invoiceData, MAPPING, renderInput } from './fixtures.js'
import { preflight, validate } from './tools.js'

const dir = mkdtempSync(join(tmpdir(), 'einvoice-ua-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

const template = einvoiceTemplate(MAPPING, { standard: 'PDF/A-3a', ua: 'PDF/UA-1' })
const compiled = compileTemplate(template as unknown as TemplateDefinition)
const bytes = render(compiled, renderInput(template, invoiceData())).bytes
const file = join(dir, 'invoice.pdf')
writeFileSync(file, bytes)

test('the XMP: conformance A, pdfuaid:part 1, dc:title, and one extension-schemas Bag holding fx and pdfuaid', () => {
  const xmp = xmpOf(bytes)
  assert.equal(xpath(xmp, `string(${el('conformance')}[namespace-uri()="http://www.aiim.org/pdfa/ns/id/"])`), 'A')
  assert.equal(xpath(xmp, `string(${el('part')}[namespace-uri()="http://www.aiim.org/pdfua/ns/id/"])`), '1')
  assert.equal(xpath(xmp, `string(${el('title')}//*[local-name()="li"])`), 'Invoice')
  assert.equal(xpath(xmp, `count(${el('schemas')})`), '1')
  assert.equal(xpath(xmp, `count(${el('schemas')}/*[local-name()="Bag"])`), '1')
  const prefixes = xpath(xmp, `${el('schemas')}/*/*/*[local-name()="prefix"]`)
  assert.equal(prefixes.replace(/\s+/g, ''), '<pdfaSchema:prefix>pdfuaid</pdfaSchema:prefix>' +
    '<pdfaSchema:prefix>fx</pdfaSchema:prefix>')
  assert.equal(xpath(xmp, `string(${el('ConformanceLevel')})`), 'EN 16931')
})

test('it passes Preflight --part 3 and the Factur-X validator', async () => {
  const [pf, [fx]] = await Promise.all([preflight(file), validate('facturx', [file])])
  assert.equal(pf.code, 0, pf.out)
  assert.ok(fx !== undefined)
  const problems = fx.profiles.flatMap((p) => [...p.xsdErrors, ...p.errors])
  assert.deepEqual(problems, [], JSON.stringify(problems).slice(0, 2000))
})
