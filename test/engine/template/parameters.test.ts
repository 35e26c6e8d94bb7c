import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compileParameterCheck, parameterAjv, parameterSchema, publicTemplateView } from '../../../engine/template/parameters.js'
import type { TemplateDefinition } from '../../../engine/template/definition.js'

const def: TemplateDefinition = {
  code: 't',
  format: 'document',
  document: {},
  parameters: [
    { name: 'invoiceId', type: 'integer', required: true, minimum: 1, description: 'Invoice' },
    { name: 'note', type: 'string', maxLength: 5 },
    { name: 'rate', type: 'decimal', minimum: 0, maximum: 100 },
    { name: 'draft', type: 'boolean', defaultValue: false },
    { name: 'day', type: 'date' },
    { name: 'at', type: 'datetime' },
    { name: 'ids', type: 'integer[]' },
    { name: 'codes', type: 'string[]', enum: ['A', 'B'] },
    { name: 'kind', type: 'string', enum: ['x', 'y'], defaultValue: 'x', required: true }
  ],
  datasets: [
    {
      code: 'header',
      description: 'Head',
      cardinality: 'single',
      query: 'SELECT secret FROM t WHERE id = :invoiceId',
      fields: [{ name: 'secret', type: 'string' }]
    },
    { code: 'lines', cardinality: 'multiple', query: 'SELECT 1', fields: [] }
  ]
}

const check = compileParameterCheck(def)

test('parameterSchema compiles in Ajv 2020 and agrees with the checker', () => {
  const schema = parameterSchema(def)
  assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema')
  assert.equal(schema.additionalProperties, false)
  assert.deepEqual(schema.required, ['invoiceId'])
  const validate = parameterAjv().compile(schema)
  const cases: Array<[unknown, boolean]> = [
    [{ invoiceId: 7 }, true],
    [{ invoiceId: 7, rate: '12.50', ids: [1, 2], codes: ['A'], day: '2024-02-29', at: '2024-02-29T10:00:00Z', note: null }, true],
    [{}, false],
    [{ invoiceId: 0 }, false],
    [{ invoiceId: 1.5 }, false],
    [{ invoiceId: '7' }, false],
    [{ invoiceId: 7, other: 1 }, false],
    [{ invoiceId: 7, note: 'toolong' }, false],
    [{ invoiceId: 7, rate: 'abc' }, false],
    [{ invoiceId: 7, rate: 101 }, false],
    [{ invoiceId: 7, ids: [] }, false],
    [{ invoiceId: 7, ids: ['1'] }, false],
    [{ invoiceId: 7, codes: ['C'] }, false],
    [{ invoiceId: 7, kind: 'z' }, false],
    [{ invoiceId: 7, day: '2024-2-1' }, false],
    [{ invoiceId: 7, draft: 'yes' }, false]
  ]
  for (const [value, ok] of cases) {
    assert.equal(validate(value), ok, `ajv ${JSON.stringify(value)}`)
    assert.equal(check(value).ok, ok, `check ${JSON.stringify(value)}`)
  }
})

test('check applies defaults, nulls absent optionals and normalises decimals to strings', () => {
  const r = check({ invoiceId: 3, rate: 12.5 })
  assert.deepEqual(r, {
    ok: true,
    values: { invoiceId: 3, note: null, rate: '12.5', draft: false, day: null, at: null, ids: null, codes: null, kind: 'x' }
  })
  const r2 = check({ invoiceId: 3, rate: '0.10', ids: [5, 6], codes: ['B'], day: '2024-01-31', at: '2024-01-31T23:59:59.5+01:00', draft: true })
  assert.ok(r2.ok)
  assert.equal(r2.values.rate, '0.10')
  assert.deepEqual(r2.values.ids, [5, 6])
})

test('check reports messages per parameter name, unknown names included', () => {
  const r = check({ note: 'far too long', day: '2024-02-30', at: 'yesterday', ids: [1, 'x'], evil: 1, rate: '1e5' })
  assert.equal(r.ok, false)
  assert.ok(!r.ok)
  assert.deepEqual(r.errors, {
    evil: ['is not a parameter of this template'],
    invoiceId: ['is required'],
    note: ['must be at most 5 characters'],
    rate: ['must be a decimal number (number or numeric string)'],
    day: ['must be a date YYYY-MM-DD'],
    at: ['must be an ISO 8601 date-time'],
    ids: ['item 1 must be an integer']
  })
})

test('check coerces nothing else: strings are not integers or booleans', () => {
  const r = check({ invoiceId: '5', draft: 'true' })
  assert.ok(!r.ok)
  assert.deepEqual(Object.keys(r.errors).sort(), ['draft', 'invoiceId'])
})

test('a "__proto__" key from JSON is an unknown parameter, not a prototype', () => {
  const r = check(JSON.parse('{ "invoiceId": 1, "__proto__": { "polluted": 1 } }'))
  assert.ok(!r.ok)
  assert.deepEqual(Object.keys(r.errors), ['__proto__'])
  assert.equal(Object.getPrototypeOf(r.errors), Object.prototype)
  assert.equal(({} as Record<string, unknown>).polluted, undefined)
})

test('non-object parameters are rejected; missing parameters mean {}', () => {
  assert.deepEqual(check([1]), { ok: false, errors: { parameters: ['must be an object'] } })
  assert.deepEqual(check(undefined), { ok: false, errors: { invoiceId: ['is required'] } })
  assert.deepEqual(compileParameterCheck({})(undefined), { ok: true, values: {} })
})

test('publicTemplateView: spec 2.3 pieces, never the SQL', () => {
  const v = publicTemplateView(def)
  assert.deepEqual(v.parameters[0], { name: 'invoiceId', type: 'integer', required: true, defaultValue: null, description: 'Invoice' })
  assert.deepEqual(v.parameters[3], { name: 'draft', type: 'boolean', required: false, defaultValue: false, description: '' })
  assert.deepEqual(v.parameters[8]?.required, false, 'a default makes a parameter optional for callers')
  assert.deepEqual(v.datasets, [
    { code: 'header', description: 'Head', cardinality: 'single', fields: [{ name: 'secret', type: 'string' }] },
    { code: 'lines', description: '', cardinality: 'multiple', fields: [] }
  ])
  assert.ok(!JSON.stringify(v).includes('SELECT'))
  assert.deepEqual(v.parameterSchema, parameterSchema(def))
})
