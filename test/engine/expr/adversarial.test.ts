import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { RenderError, TemplateError } from '../../../engine/errors.js'
import { compileExpression, createScope } from '../../../engine/expr/expressions.js'
import { MAX_NESTING } from '../../../engine/expr/parser.js'
import {
  MAX_DATE_LENGTH, MAX_NUMERIC_LENGTH, isDecimalText, isNumeric, toDate, toNumber, truthy, wholeNumberOf, type Meter
} from '../../../engine/expr/values.js'
import { itemAt } from '../../helpers/item-at.js'

// Property tests with fixed seeds: the same cases on every run. Cost is counted in steps (the
// characters the scanners look at), never in time.
const SEED = 20251122
const params = { seed: SEED, numRuns: 300 }

// The expression the engine used before: the reference for what counts as a number.
const OLD_NUMERIC = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/

const piece = fc.oneof(
  fc.constantFrom(
    '0', '9', '.', 'e', 'E', '+', '-', ' ', '\t', '\u00a0', 'x', '(', ')', '[', ']', '1e999999', '--', '**'
  ),
  fc.stringMatching(/^[0-9]{1,12}$/)
)
/** Short strings over the alphabet of numbers: where the old regex is cheap enough to compare. */
const numberish = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''))
/** Long adversarial strings: digit runs, repeated operators, nested brackets, huge exponents. */
const hostile = fc.tuple(
  fc.constantFrom('1', '9', ' ', '(', '[', '+-', 'e9', '.', '0.'),
  fc.integer({ min: 1_000, max: 100_000 }),
  fc.constantFrom('', 'x', ' a', 'e', 'e+', '.', ')', ']', '1e99999999')
).map(([unit, n, tail]) => unit.repeat(Math.ceil(n / unit.length)) + tail)

test('the linear number scanner accepts exactly what the old regular expression accepted', () => {
  fc.assert(fc.property(numberish, (s) => {
    assert.equal(isDecimalText(s), OLD_NUMERIC.test(s), JSON.stringify(s))
    if (isDecimalText(s)) assert.equal(toNumber(s, 't'), Number(s))
  }), { ...params, numRuns: 2000 })
})

test('number scanning costs at most 2 steps per character, and nothing past the length cap', () => {
  fc.assert(fc.property(fc.oneof(numberish, hostile), (s) => {
    const meter: Meter = { steps: 0 }
    isDecimalText(s, meter)
    if (s.length > MAX_NUMERIC_LENGTH) assert.equal(meter.steps, 0)
    else assert.ok(meter.steps <= 2 * (s.length + 1) + 8, `${meter.steps} steps for ${s.length} characters`)
    const whole: Meter = { steps: 0 }
    wholeNumberOf(s, whole)
    assert.ok(whole.steps <= 3 * (Math.min(s.length, MAX_NUMERIC_LENGTH) + 1) + 8)
  }), params)
})

test('conversions of hostile strings answer (a value or a clear fault), never hang or crash', () => {
  fc.assert(fc.property(hostile, (s) => {
    assert.equal(isNumeric(s), false, 'longer than any number')
    assert.equal(truthy(s), true)
    assert.throws(() => toNumber(s, 'test'), /expects a number/)
    assert.throws(() => toDate(s, 'test'), /expects a date/)
  }), params)
  assert.equal(toDate('2025-02-03', 't')?.toISOString(), '2025-02-03T00:00:00.000Z')
  assert.throws(() => toDate('2025-02-03T00:00:00Z' + ' '.repeat(MAX_DATE_LENGTH), 't'), /expects a date/)
})

// Expressions a template might hold, evaluated over hostile data. The compiled closures have no
// loops of their own; the only per-character work is the conversions counted above.
const EXPRESSIONS = [
  'row.x + 1', 'row.x * 2 > 3', 'row.x ? 1 : 0', '-row.x', 'row.x == 5', 'row.x < row.x',
  'formatNumber(row.x)', 'formatDate(row.x)', 'upper(row.x)', 'substr(row.x, 0, 3)', 'not row.x', 'row.x && row.x'
]
const compiled = EXPRESSIONS.map((src) => compileExpression(src, 'test'))

test('expressions over hostile data end with a value or a RenderError', () => {
  fc.assert(fc.property(fc.oneof(numberish, hostile), fc.integer({ min: 0, max: EXPRESSIONS.length - 1 }), (x, k) => {
    const scope = createScope({ datasets: {}, parameters: {}, context: {} })
    scope.row = { x }
    try {
      itemAt(compiled, k)(scope)
    } catch (err) {
      assert.ok(err instanceof RenderError, `${EXPRESSIONS[k]}: ${String(err)}`)
    }
  }), params)
})

test('hostile expression sources compile or fail with a TemplateError; nesting is bounded', () => {
  const sources = fc.tuple(
    fc.constantFrom('(', '[', '-', '!', 'not ', 'a ? b : ', 'f(', '1 + ', '+', '1e', '9'),
    fc.integer({ min: 1, max: 20_000 }),
    fc.constantFrom('', '1', ')', ']', 'x', '1e999999')
  ).map(([unit, n, tail]) => unit.repeat(n) + tail)
  fc.assert(fc.property(sources, (src) => {
    try {
      compileExpression(src, 'test')
    } catch (err) {
      assert.ok(err instanceof TemplateError, `${src.slice(0, 20)}…: ${String(err)}`)
    }
  }), { ...params, numRuns: 200 })
  const nested = (n: number): string => '('.repeat(n) + '1' + ')'.repeat(n)
  assert.throws(() => compileExpression(nested(MAX_NESTING), 't'), /nested too deeply/)
  assert.equal(compileExpression(nested(20), 't')(createScope({ datasets: {}, parameters: {}, context: {} })), 1)
})
