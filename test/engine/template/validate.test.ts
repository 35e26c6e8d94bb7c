import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { queryPlaceholders, toPointer, validateTemplate } from '../../../engine/template/validate.js'
import { itemAt } from '../../helpers/item-at.js'

const templatesDir = new URL('../../../../examples/templates/', import.meta.url)
const example = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`${name}.json`, templatesDir), 'utf8')) as Record<string, unknown>

function base (): Record<string, unknown> {
  return {
    code: 'demo',
    format: 'document',
    parameters: [{ name: 'id', type: 'integer', required: true }],
    datasets: [
      {
        code: 'head',
        cardinality: 'single',
        query: 'SELECT a FROM t WHERE id = :id',
        fields: [{ name: 'a', type: 'string' }]
      },
      {
        code: 'items',
        cardinality: 'multiple',
        query: 'SELECT b FROM u WHERE t_id = :id AND lang = :context.language',
        fields: []
      }
    ],
    document: {
      body: [{
        text: 'Hello {{ head.a }}'
      }, { table: { rows: 'items', columns: [{ header: 'B', value: '{{ row.b }}' }] } }]
    }
  }
}

function errorsOf (json: unknown): Array<{ path: string, message: string }> {
  const r = validateTemplate(json)
  assert.equal(r.ok, false, 'expected the template to be rejected')
  return r.errors
}

const paths = (json: unknown): string[] => errorsOf(json).map(e => e.path)

test('the three examples validate', () => {
  for (const name of ['invoice', 'sales-report', 'shipping-label']) {
    const r = validateTemplate(example(name))
    assert.ok(r.ok, `${name}: ${JSON.stringify(r.ok ? [] : r.errors)}`)
    assert.equal(r.template.code, name)
  }
})

test('a minimal valid document template passes', () => {
  assert.ok(validateTemplate(base()).ok)
})

test('schema errors name JSON paths (all of them at once)', () => {
  const t = base()
  t.code = 'Bad Code'
  t.extra = 1
  const datasets = t.datasets as Array<Record<string, unknown>>
  itemAt(t.parameters as Array<Record<string, unknown>>, 0).type = 'float'
  itemAt(datasets, 1).cardinality = 'many'
  delete itemAt(datasets, 0).query
  const errs = errorsOf(t)
  const byPath = new Map(errs.map(e => [e.path, e.message]))
  assert.match(byPath.get('/code') ?? '', /pattern/)
  assert.equal(byPath.get('/extra'), 'is not allowed here')
  assert.match(byPath.get('/parameters/0/type') ?? '', /must be equal to one of the allowed values: "string"/)
  assert.match(byPath.get('/datasets/1/cardinality') ?? '', /"single", "multiple"/)
  assert.equal(byPath.get('/datasets/0/query'), 'is required')
})

test('format decides which member is required', () => {
  const t = base()
  delete t.document
  assert.deepEqual(paths(t), ['/document'])
  const l = example('shipping-label')
  l.document = { body: [] }
  assert.ok(paths(l).includes('/document'))
  delete l.document
  delete l.label
  assert.deepEqual(paths(l), ['/label'])
  assert.deepEqual(paths('not an object'), ['/'])
})

test('duplicate names, reserved dataset codes and name clashes', () => {
  const t = base()
  const params = t.parameters as unknown[]
  params.push({ name: 'id', type: 'string' })
  const ds = t.datasets as Array<Record<string, unknown>>
  ds.push({ ...ds[0] }, { code: 'row', cardinality: 'single', query: 'SELECT 1', fields: [] }, { code: 'id', cardinality: 'single', query: 'SELECT 1', fields: [] })
  assert.deepEqual(paths(t), ['/parameters/1/name', '/datasets/2/code', '/datasets/3/code', '/datasets/4/code'])
})

test('parameter names that could touch prototypes are refused', () => {
  const t = base()
  ;(t.parameters as unknown[]).push({ name: '__proto__', type: 'string' })
  assert.ok(paths(t).includes('/parameters/1/name'))
})

test('defaultValue must satisfy its own parameter; minimum <= maximum', () => {
  const t = base()
  ;(t.parameters as unknown[]).push({ name: 'n', type: 'integer', defaultValue: 'five', minimum: 3, maximum: 1 })
  const errs = errorsOf(t)
  assert.deepEqual(errs.map(e => e.path), ['/parameters/1/minimum', '/parameters/1/defaultValue'])
  assert.match(itemAt(errs, 1).message, /must be an integer/)
})

test('queries may only use declared parameters and :context.xxx', () => {
  const t = base()
  itemAt(t.datasets as Array<Record<string, unknown>>, 0).query = 'SELECT a FROM t WHERE id = :id AND x = :secret ' +
    "AND y = :context.a.b AND z = '10:30' -- :ignored\n"
  const errs = errorsOf(t)
  assert.deepEqual(errs, [
    { path: '/datasets/0/query', message: 'placeholder :secret is not a declared parameter' },
    { path: '/datasets/0/query', message: 'placeholder :context.a.b is not a declared parameter' }
  ])
})

test('queryPlaceholders ignores strings, comments and casts', () => {
  assert.deepEqual(queryPlaceholders("SELECT ':no', \"x:y\" /* :c */ FROM t WHERE a = :a AND b IN (:ids) AND c = " +
    ':context.companyId # :d'), ['a', 'ids', 'context.companyId'])
  assert.deepEqual(queryPlaceholders('SELECT a::text FROM t'), [])
})

test('expressions must compile; errors point at the element', () => {
  const t = base()
  const doc = t.document as { body: Array<Record<string, unknown>> }
  itemAt(doc.body, 0).text = 'Hello {{ head.a + }}'
  doc.body.push({ text: '{{ evil(1) }}' })
  const errs = errorsOf(t)
  assert.deepEqual(errs.map(e => e.path), ['/document/body/0/text', '/document/body/2/text'])
  assert.match(itemAt(errs, 1).message, /unknown function 'evil'/)
})

test('table rows must name a multiple dataset', () => {
  const t = base()
  const table = itemAt((t.document as { body: Array<{ table?: Record<string, unknown> }> }).body, 1).table as Record<
    string,
    unknown
  >
  table.rows = 'head'
  assert.deepEqual(errorsOf(t), [{
    path: '/document/body/1/table/rows',
    message: "dataset 'head' must have cardinality 'multiple'"
  }])
  table.rows = '{{ nothing }}'
  assert.deepEqual(errorsOf(t), [{
    path: '/document/body/1/table/rows',
    message: "'nothing' is not a dataset of this " +
    'template'
  }])
})

test('label rows must name a multiple dataset; bad ZPL is reported at /label/zpl', () => {
  const l = example('shipping-label')
  ;(l.label as Record<string, unknown>).rows = 'missing'
  assert.deepEqual(paths(l), ['/label/rows'])
  const l2 = example('shipping-label')
  ;(l2.label as Record<string, unknown>).zpl = '^XA^FD{{ row.x }}^FS^XZ^XA^XZ'
  assert.deepEqual(paths(l2), ['/label/zpl'])
})

test('toPointer converts dotted element paths', () => {
  assert.equal(toPointer('document.body[3].table.columns[1].value'), '/document/body/3/table/columns/1/value')
  assert.equal(toPointer('/already/pointer'), '/already/pointer')
  assert.equal(toPointer(''), '/')
})
