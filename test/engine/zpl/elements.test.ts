// Declarative label elements through publish validation: the schema, the compile at every
// resolution, and the expression paths of their data checked against the rows' fields.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { validateTemplate } from '../../../engine/template/validate.js'

const template = (elements: unknown[]): unknown => ({
  code: 'pallet-label',
  format: 'label',
  datasets: [{
    code: 'pallets',
    cardinality: 'multiple',
    query: 'SELECT sscc, gtin, n FROM pallets',
    fields: [{ name: 'sscc', type: 'string' }, { name: 'gtin', type: 'string' }, { name: 'n', type: 'integer' }]
  }],
  label: { widthIn: 4, heightIn: 3, rows: 'pallets', unit: 'mm', elements }
})

test('an elements label publishes; its data paths are checked against the dataset fields', () => {
  const ok = validateTemplate(template([
    { type: 'text', x: 5, y: 5, text: 'SSCC {{ row.sscc }}', size: 4, maxWidth: 80, maxLines: 2, align: 'center' },
    { type: 'barcode', x: 5, y: 15, symbology: 'gs1-128', data: '(00){{ row.sscc }}', module: 0.25, height: 12 },
    { type: 'line', x: 2, y: 40, length: 96 }
  ]))
  assert.equal(ok.ok, true, JSON.stringify(ok))
  const bad = validateTemplate(template([{ type: 'text', x: 5, y: 5, text: '{{ row.ssc }}', size: 4 }]))
  assert.equal(bad.ok, false)
  assert.match(JSON.stringify(bad), /\/label\/elements\/0\/text/)
  const unknown = validateTemplate(template([{ type: 'barcode', x: 5, y: 5, symbology: 'aztec', data: 'x', module: 0.3 }]))
  assert.equal(unknown.ok, false, 'a symbology outside the list is refused by the schema')
  // A linear symbol without a height cannot be drawn: refused at publish, naming the element.
  const noHeight = validateTemplate(template([{ type: 'barcode', x: 5, y: 5, symbology: 'code128', data: 'x', module: 0.3 }]))
  assert.match(JSON.stringify(noHeight), /elements\/0.*a code128 barcode needs a height/)
})
