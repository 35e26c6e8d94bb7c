import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import type { ParameterDef } from '../../../engine/template/definition.js'
import {
  MAX_DECIMAL_LENGTH, compileParameterCheck, parameterAjv, parameterSchema
} from '../../../engine/template/parameters.js'

// One validator: what the server enforces (compileParameterCheck) is what the published schema
// accepts (compiled here by a fresh Ajv), and both accept exactly what the documented rules
// (docs/templates.md) say, written out below without JSON Schema or regular expressions.
const SEED = 424242

const isDigits = (s: string): boolean => s.length > 0 && [...s].every((c) => c >= '0' && c <= '9')
const realDay = (s: string): boolean => {
  if (s.length !== 10 || s[4] !== '-' || s[7] !== '-') return false
  if (!isDigits(s.slice(0, 4) + s.slice(5, 7) + s.slice(8))) return false
  const d = new Date(`${s}T00:00:00Z`)
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s
}
const hhmm = (s: string): boolean => s.length === 5 && s[2] === ':' && isDigits(s.slice(0, 2) + s.slice(3)) &&
  Number(s.slice(0, 2)) <= 23 && Number(s.slice(3)) <= 59
function dateTime (s: string): boolean {
  if (!realDay(s.slice(0, 10)) || s[10] !== 'T') return false
  let rest = s.slice(11)
  if (!hhmm(rest.slice(0, 5))) return false
  rest = rest.slice(5)
  if (rest.startsWith(':')) {
    if (!isDigits(rest.slice(1, 3)) || Number(rest.slice(1, 3)) > 59) return false
    rest = rest.slice(3)
    if (rest.startsWith('.')) {
      let n = 1
      while (isDigits(rest.charAt(n))) n++
      if (n === 1 || n > 10) return false
      rest = rest.slice(n)
    }
  }
  return rest === '' || rest === 'Z' || ((rest[0] === '+' || rest[0] === '-') && hhmm(rest.slice(1)))
}
const decimalText = (s: string): boolean => {
  const body = s.startsWith('-') ? s.slice(1) : s
  const [whole = '', frac, more] = body.split('.') // split() may yield fewer parts than destructured
  return s.length <= MAX_DECIMAL_LENGTH && more === undefined && isDigits(whole) &&
    (frac === undefined || isDigits(frac))
}

/** The documented rules for one non-null value. */
function documented (p: ParameterDef, type: string, v: unknown): boolean {
  const inRange = (n: number): boolean =>
    (p.minimum === undefined || n >= p.minimum) && (p.maximum === undefined || n <= p.maximum)
  switch (type) {
    case 'string':
      return typeof v === 'string' && (p.maxLength === undefined || [...v].length <= p.maxLength) &&
        (p.enum === undefined || p.enum.includes(v))
    case 'integer':
      return Number.isSafeInteger(v) && inRange(v as number) && (p.enum === undefined || p.enum.includes(v as number))
    case 'decimal': {
      if (!(typeof v === 'number' || (typeof v === 'string' && decimalText(v)))) return false
      const n = Number(v)
      return inRange(n) && (p.enum === undefined || p.enum.some((e) => Number(e) === n))
    }
    case 'boolean': return typeof v === 'boolean'
    case 'date': return typeof v === 'string' && realDay(v)
    case 'datetime': return typeof v === 'string' && dateTime(v) && !Number.isNaN(Date.parse(v))
  }
  return false
}

const types = ['string', 'integer', 'decimal', 'boolean', 'date', 'datetime', 'integer[]', 'string[]'] as const
const bound = fc.option(
  fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.double({ min: -1000, max: 1000, noNaN: true })),
  { nil: undefined }
)
const param = fc.record({
  type: fc.constantFrom(...types),
  required: fc.boolean(),
  minimum: bound,
  maximum: bound,
  maxLength: fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }),
  enum: fc.option(
    fc.array(fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom('A', 'b', '1.50', '2', '-0.5')),
      { minLength: 1, maxLength: 4 }),
    { nil: undefined }
  )
}).map((r) => {
  const p: ParameterDef = { name: 'p', type: r.type, required: r.required }
  const scalar = r.type.replace('[]', '')
  if (r.minimum !== undefined && (scalar === 'integer' || scalar === 'decimal')) p.minimum = r.minimum
  if (r.maximum !== undefined && (scalar === 'integer' || scalar === 'decimal')) p.maximum = r.maximum
  if (r.maxLength !== undefined && scalar === 'string') p.maxLength = r.maxLength
  if (r.enum !== undefined && (scalar === 'string' || scalar === 'integer' || scalar === 'decimal')) p.enum = r.enum
  return p
})

const tricky = fc.constantFrom(
  '2025-02-30', '2024-02-29', '2023-02-29', '2000-02-29', '1900-02-29', '2025-04-31', '2025-12-31', '2025-13-01',
  '2025-1-01',
  '2025-01-01T25:61:00Z', '2025-01-01T23:59:59Z', '2025-01-01T10:00', '2025-01-01T10:00:00.123456789+01:00',
  '2025-01-01T10:00:00.1234567890Z', '2025-01-01T24:00:00Z', '2025-01-01T10:00:60Z', '2025-02-30T10:00:00Z',
  '2025-01-01T10:00+24:00',
  '1.50', '1.5', '-0.5', '2', '2.0', '1e5', '.5', '5.', '--1', '0'.repeat(120), '00012', 'A', 'b', 'abc', 'ü', '',
  2 ** 53, 2 ** 53 - 1, -(2 ** 53), 1e21, 1.5, 0, -0, 2, -5, 1000, 1001, -1000.5, true, false, null
)
const scalarValue = fc.oneof(
  tricky,
  fc.integer({ min: -2000, max: 2000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 12 }),
  fc
    .date({ min: new Date('1899-01-01'), max: new Date('2101-01-01'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10))
)
const two = (lo: number, hi: number): fc.Arbitrary<string> =>
  fc.integer({ min: lo, max: hi }).map((n) => String(n).padStart(2, '0'))
/** Calendar-shaped strings with every field one past its range now and then. */
const year = fc.constantFrom('1900', '2000', '2023', '2024', '2025', '2100', '0000')
const dayText = fc.tuple(year, two(0, 13), two(0, 32))
  .map((p) => p.join('-'))
const timeText = fc.tuple(dayText, two(0, 25), two(0, 61), fc.option(two(0, 61)),
  fc.option(fc.stringMatching(/^[0-9]{0,11}$/)), fc.constantFrom('', 'Z', '+01:00', '-23:59', '+24:00', '+01:60', 'z'))
  .map(([d, h, m, sec, frac, zone]) => {
    const seconds = sec === null ? '' : `:${sec}${frac === null ? '' : `.${frac}`}`
    return `${d}T${h}:${m}${seconds}${zone}`
  })
/** Numbers and numeric strings around the bounds and enums the generator uses. */
const decimalValue = fc.oneof(fc.integer({ min: -1001, max: 1001 }), fc.double({ min: -1001, max: 1001, noNaN: true }),
  fc.tuple(fc.constantFrom('', '-'), fc.integer({ min: 0, max: 1001 }),
    fc.constantFrom('', '.0', '.5', '.50', '.', '.001'))
    .map(([sign, n, frac]) => `${sign}${n}${frac}`))
const valueFor = (p: ParameterDef): fc.Arbitrary<unknown> => {
  const scalar = p.type.replace('[]', '')
  const own = scalar === 'date'
    ? dayText
    : scalar === 'datetime' ? timeText : scalar === 'decimal' ? decimalValue : scalarValue
  const one = fc.oneof({ weight: 3, arbitrary: own }, { weight: 1, arbitrary: scalarValue })
  return p.type.endsWith('[]')
    ? fc.oneof(fc.array(one, { maxLength: 3 }), one)
    : fc.oneof({ weight: 4, arbitrary: one }, { weight: 1, arbitrary: fc.array(one, { maxLength: 2 }) })
}
const paramAndValue = param.chain((p) => valueFor(p).map((v) => [p, v] as const))

test('the server accepts a parameter exactly when the published schema does, and both follow the documented ' +
  'rules', () => {
  const ajv = parameterAjv()
  fc.assert(fc.property(paramAndValue, ([p, v]) => {
    const def = { parameters: [p] }
    const server = compileParameterCheck(def)({ p: v })
    const schema = ajv.compile(parameterSchema(def))({ p: v })
    assert.equal(server.ok, schema, `server ${JSON.stringify(server)} / schema ${String(schema)}`)
    const list = p.type.endsWith('[]')
    const scalar = p.type.replace('[]', '')
    const expected = v === null
      ? p.required !== true
      : list
        ? Array.isArray(v) && v.length > 0 && v.every((x) => documented(p, scalar, x))
        : documented(p, scalar, v)
    assert.equal(server.ok, expected, `documented rules say ${String(expected)}`)
    if (server.ok && scalar === 'decimal' && v !== null) {
      assert.equal(typeof server.values.p, 'string', 'decimals are normalised to strings')
    }
  }), { seed: SEED, numRuns: 500 })
})

test('the cases that used to disagree', () => {
  const ajv = parameterAjv()
  const cases: Array<[ParameterDef, unknown, boolean]> = [
    [{ name: 'p', type: 'date' }, '2025-02-30', false],
    [{ name: 'p', type: 'datetime' }, '2025-01-01T25:61:00Z', false],
    [{ name: 'p', type: 'integer' }, 2 ** 53, false],
    [{ name: 'p', type: 'decimal', maximum: 100 }, '100.5', false],
    [{ name: 'p', type: 'decimal', enum: [1.5] }, '1.50', true]
  ]
  for (const [p, v, ok] of cases) {
    const def = { parameters: [p] }
    assert.equal(compileParameterCheck(def)({ p: v }).ok, ok, `server: ${p.type} ${JSON.stringify(v)}`)
    assert.equal(ajv.compile(parameterSchema(def))({ p: v }), ok, `schema: ${p.type} ${JSON.stringify(v)}`)
  }
})
