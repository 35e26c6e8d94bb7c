import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { validateTemplate } from '../../../engine/template/validate.js'
import { itemAt } from '../../helpers/item-at.js'

/* eslint-disable @typescript-eslint/no-explicit-any
  -- these tests edit the example templates in place, as untyped JSON */
type Json = Record<string, any>
const templatesDir = new URL('../../../../examples/templates/', import.meta.url)
const example = (name: string): Json => JSON.parse(readFileSync(new URL(`${name}.json`, templatesDir), 'utf8'))

function errorsOf (json: unknown): Array<{ path: string, message: string }> {
  const r = validateTemplate(json)
  assert.ok(!r.ok, 'expected the template to be rejected')
  return r.errors
}

const tableAt = (t: Json): number => (t.document.body as Json[]).findIndex(e => e.table !== undefined)

test('a wrong column width is one error at the width, with the allowed forms', () => {
  const t = example('invoice')
  const i = tableAt(t)
  t.document.body[i].table.columns[1].width = 'wide'
  assert.deepEqual(errorsOf(t), [{
    path: `/document/body/${i}/table/columns/1/width`,
    message: 'expected a number, "*" or a percentage'
  }])
})

test('a value of the right type that breaks a bound says why', () => {
  const t = example('invoice')
  const i = tableAt(t)
  t.document.body[i].table.columns[0].width = -5
  assert.deepEqual(errorsOf(t), [{
    path: `/document/body/${i}/table/columns/0/width`,
    message: 'expected a number, "*" or a percentage (must be >= 0)'
  }])
})

test('an element is judged as the kind it names, also inside nested flows', () => {
  const t = example('invoice')
  t.document.body[0].size = 'big'
  t.document.pageFooter = [{ columns: [{ items: [{ text: 'x', colour: 'red' }] }] }]
  assert.deepEqual(errorsOf(t), [
    { path: '/document/pageFooter/0/columns/0/items/0/colour', message: 'is not allowed here' },
    { path: '/document/body/0/size', message: 'must be number' }
  ])
})

test('an element with no kind, two kinds, or a table outside a table flow', () => {
  const t = example('invoice')
  t.document.body.push({ txt: 'hello' }, { text: 'a', spacer: 4 })
  t.document.pageHeader = [{ table: { rows: 'lines', columns: [{ value: 'x' }] } }]
  const n = t.document.body.length
  assert.deepEqual(errorsOf(t), [
    {
      path: `/document/body/${n - 2}`,
      message: 'expected an element: an object with one of text, columns, barcode, ' +
      'line, rect, image, pageBreak, spacer, table'
    },
    {
      path: `/document/body/${n - 1}`,
      message: 'an element has exactly one of text, columns, barcode, line, rect, ' +
      'image, pageBreak, spacer, table; this one has text and spacer'
    },
    { path: '/document/pageHeader/0', message: 'tables are allowed in body, reportHeader and summary only' }
  ])
})

test('other unions collapse too: page size, margins, label copies; no oneOf/anyOf wording ever', () => {
  const doc = example('invoice')
  doc.document.page = { size: 'B7', margins: 'wide' }
  const errors = errorsOf(doc)
  assert.deepEqual(errors.map(e => e.path), ['/document/page/size', '/document/page/margins'])
  assert.match(itemAt(errors, 0).message, /^expected a page size name \(A3, A4/)
  assert.match(itemAt(errors, 1).message, /^expected a number or an array of 2 to 4 numbers/)
  const label = example('shipping-label')
  label.label.copies = 2.5
  assert.deepEqual(errorsOf(label), [{
    path: '/label/copies',
    message: 'expected a whole number from 0 to 10000 or an expression such as "{{ row.qty }}"'
  }])
  for (const e of [...errors, ...errorsOf(label)]) assert.doesNotMatch(e.message, /oneOf|anyOf|must match/)
})

test('the deepest error comes first', () => {
  const t = example('invoice')
  delete t.code
  t.document.body[0].size = 'big'
  assert.deepEqual(errorsOf(t).map(e => e.path), ['/document/body/0/size', '/code'])
})
