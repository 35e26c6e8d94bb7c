// The CII XML's text (engine/einvoice/cii-xml.ts): markup characters escaped, characters XML 1.0
// cannot carry dropped, everything else (tab, line breaks, letters of any script) kept as is.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { inflateSync } from 'node:zlib'
import { utf8Units } from '../../../engine/einvoice/cii-xml.js'
import { einvoiceOf } from '../../../engine/einvoice/render-einvoice.js'
import { compileTemplate } from '../../../engine/template/compile.js'
import type { TemplateDefinition } from '../../../engine/template/definition.js'
import { einvoiceTemplate, invoiceData, renderInput } from './fixtures.js'

const template = einvoiceTemplate()
const compiled = compileTemplate(template as unknown as TemplateDefinition)

function xmlWithBuyer (name: string): string {
  const input = renderInput(template, invoiceData({ header: { customer_name: name } }))
  if (compiled.einvoice === undefined) throw new Error('not an e-invoice template')
  return einvoiceOf(compiled.einvoice, input).xml
}

const buyerName = (xml: string): string | undefined =>
  /<ram:BuyerTradeParty><ram:Name>([^]*?)<\/ram:Name>/.exec(xml)?.[1]

test('markup characters are escaped; control characters and U+FFFE/U+FFFF are dropped', () => {
  assert.equal(buyerName(xmlWithBuyer('Tom & "Jerry" <Ltd>')), 'Tom &amp; &quot;Jerry&quot; &lt;Ltd&gt;')
  assert.equal(buyerName(xmlWithBuyer('A\u0001B\u001fC\ufffeD\uffffE')), 'ABCDE')
  assert.equal(buyerName(xmlWithBuyer('x\u0000 & y')), 'x &amp; y')
})

test('text XML 1.0 can carry is written unchanged', () => {
  for (const name of ['Müller Söhne', 'Line one\nline\rtwo\tand three', 'شركة الاختبار', 'C1\u0085 DEL\u007f']) {
    assert.equal(buyerName(xmlWithBuyer(name)), name)
  }
})

test('values above ASCII are written as their UTF-8 bytes, as Buffer encodes them', () => {
  // Astral characters, a lone surrogate either way round (U+FFFD), two- and three-byte characters.
  const names = ['Zoë 🧾 Ltd', 'half \ud83e pair', 'lo \udd7e first', '€ & ¥ – “Ⅻ”', 'ĳ\u0800\u07ff\uffe0']
  for (const name of names) {
    const input = renderInput(template, invoiceData({ header: { customer_name: name } }))
    const built = einvoiceOf(compiled.einvoice!, input)
    const encoded = Buffer.from(name.replace('&', '&amp;'), 'utf8')
    assert.ok(inflateSync(built.file.deflated).includes(Buffer.concat([Buffer.from('<ram:BuyerTradeParty><ram:Name>'), encoded])), name)
    assert.equal(buyerName(built.xml), encoded.toString('utf8'), name)
  }
})

test('utf8Units is the UTF-8 of Buffer, a byte a code unit', () => {
  for (const s of ['plain', 'Müller', 'شركة', '🧾', '\ud83e', '\udd7e', 'a\ud83ez', '\u0080\u07ff\u0800\uffff']) {
    assert.equal(utf8Units(s), Buffer.from(s, 'utf8').toString('latin1'), JSON.stringify(s))
  }
})
