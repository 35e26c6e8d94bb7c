import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { validateTemplate } from '../../../engine/template/validate.js'
import { suggest } from '../../../engine/template/paths.js'
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

/** JSON pointer of the first string under `root` that contains `needle`. */
function find (root: unknown, needle: string, at = ''): string | null {
  if (typeof root === 'string') return root.includes(needle) ? at : null
  if (root === null || typeof root !== 'object') return null
  for (const [k, v] of Object.entries(root)) { const p = find(v, needle, `${at}/${k}`); if (p !== null) return p }
  return null
}

/** Replaces `from` by `to` in the first string under `under` that has it; returns that string's pointer. */
function typo (t: Json, from: string, to: string, under = ''): string {
  const rel = find(under.split('/').slice(1).reduce<Json>((o, k) => o[k], t), from)
  assert.ok(rel !== null, `no ${from} in the template`)
  const at = under + rel
  const keys = at.split('/').slice(1)
  const last = keys.pop() as string
  const owner = keys.reduce<Json>((o, k) => o[k], t)
  owner[last] = (owner[last] as string).replace(from, to)
  return at
}

test('every example template passes, with every dataset checked (no warnings)', () => {
  for (const name of ['invoice', 'sales-report', 'shipping-label']) {
    const r = validateTemplate(example(name))
    assert.ok(r.ok, `${name}: ${JSON.stringify(r.ok ? [] : r.errors)}`)
    assert.deepEqual(r.warnings, [], name)
    for (const d of example(name).datasets) {
      assert.ok(d.fields.length > 0, `${name}: dataset ${d.code} declares its fields`)
    }
  }
})

test('a typo in a row field is an error at its JSON path with the expression and a suggestion', () => {
  const t = example('invoice')
  // In the layout (the e-invoice mapping before it reads the same rows: its check is the same).
  const at = typo(t, '{{ row.sku }}', '{{ row.skuu }}', '/document/body')
  assert.match(at, /^\/document\/body\/\d+\/table\/columns\/\d+\/value$/)
  assert.deepEqual(errorsOf(t), [{
    path: at,
    message: "row.skuu: 'skuu' is not a field of dataset 'lines'; did you " +
    'mean row.sku? (in {{ row.skuu }})'
  }])
})

test('a typo in a single dataset, a parameter, a bare name or an aggregate field', () => {
  const t = example('invoice')
  const header = typo(t, '{{ header.number }}', '{{ header.numbr }}')
  assert.deepEqual(errorsOf(t), [{
    path: header,
    message: "header.numbr: 'numbr' is not a field of dataset 'header'; " +
    'did you mean header.number? (in {{ header.numbr }})'
  }])

  const r = example('sales-report')
  const param = typo(r, 'params.from', 'params.form')
  const bare = typo(r, 'formatDate(to,', 'formatDate(too,')
  const agg = typo(r, 'sum(sales, \\"qty\\")'.replace(/\\/g, ''), 'sum(sales, "qyt")')
  const byPath = new Map(errorsOf(r).map(e => [e.path + ' ' + e.message.split(' (in ')[0], e.message]))
  assert.deepEqual([...byPath.keys()].sort(), [
    `${param} params.form: 'form' is not a field of the parameters; did you mean params.from?`,
    `${bare} unknown name 'too': not a parameter, a dataset or a system value; did you mean to?`,
    `${agg} sum(sales, "qyt"): 'qyt' is not a field of dataset 'sales'; did you mean "qty"?`
  ].sort())
})

test('labels check row against the label dataset, in zpl and copies', () => {
  const t = example('shipping-label')
  t.label.copies = '{{ row.qtty }}'
  const at = typo(t, 'row.tracking_no', 'row.trackingno')
  const errors = errorsOf(t)
  assert.deepEqual(errors.map(e => e.path).sort(), ['/label/copies', at].sort())
  assert.ok(errors.some(e => e.message.startsWith("row.qtty: 'qtty' is not a field of dataset 'parcels'; did you " +
    'mean row.qty?')))
  assert.ok(errors.some(e => e.message.includes('did you mean row.tracking_no?')))
})

test('row and group only where the runtime binds them; a list is not a row', () => {
  const t = example('invoice')
  t.document.body.unshift(
    { text: '{{ row.sku }}' }, { text: '{{ group }}' }, { text: '{{ lines.sku }}' },
    { text: '{{ lines[0].sku }} {{ count(lines) }} {{ lines.length }}' }
  )
  const errors = errorsOf(t)
  assert.deepEqual(errors.map(e => e.path), ['/document/body/0/text', '/document/body/1/text', '/document/body/2/text'])
  assert.match(itemAt(errors, 0).message, /^'row' is only set inside a table/)
  assert.match(itemAt(errors, 1).message, /^'group' is only set in the group bands/)
  t.document.body[3].text += ' {{ lines[0].skuu }}'
  const more = errorsOf(t)
  assert.equal(more.length, 4)
  assert.match(itemAt(more, 3).message, /^lines\[0\]\.skuu: 'skuu' is not a field of dataset 'lines'; did you mean lines\[0\]\.sku\?/)
  assert.match(itemAt(errors, 2).message, /^lines\.sku: lines is a list \(dataset 'lines'\): use lines\[0\]\.sku, count\(lines\) or sum\(lines, "sku"\)/)
})

test('"fields": [] opts a dataset out: its paths are not checked, and a warning says so', () => {
  const t = example('invoice')
  typo(t, '{{ row.sku }}', '{{ row.skuu }}')
  t.datasets[1].fields = []
  const r = validateTemplate(t)
  assert.ok(r.ok, JSON.stringify(r.ok ? [] : r.errors))
  assert.deepEqual(r.warnings, [{
    path: '/datasets/1/fields',
    message: "dataset 'lines' declares no fields: paths " +
    'into its rows are not checked'
  }])
  // The other dataset is still checked.
  typo(t, '{{ header.number }}', '{{ header.numbr }}')
  assert.equal(errorsOf(t).length, 1)
})

test('suggestions: nearest name within a small distance, transpositions count once, nothing far', () => {
  assert.equal(suggest('skuu', ['sku', 'qty'], s => s), '; did you mean sku?')
  assert.equal(suggest('qyt', ['sku', 'qty'], s => s), '; did you mean qty?')
  assert.equal(suggest('Total', ['total'], s => s), '; did you mean total?')
  assert.equal(suggest('zzzzz', ['sku', 'qty'], s => s), '')
})
