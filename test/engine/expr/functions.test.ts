import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compileExpression, createScope, formattersFor, type EvalScope } from '../../../engine/expr/expressions.js'
import { RenderError, TemplateError } from '../../../engine/errors.js'

const rows = [
  { region: 'North', amount: '10.10', qty: 2 },
  { region: 'South', amount: '20.20', qty: null },
  { region: 'East', amount: '0.70', qty: '5' }
]

function scope (language?: string): EvalScope {
  const s = createScope({
    datasets: {
      sales: rows, header: { total: '1234567.891', issued: '2024-03-05', at: new Date('2024-03-05T23:30:00Z') }
    },
    parameters: {},
    context: language === undefined ? {} : { language }
  })
  s.group = rows.slice(0, 2)
  return s
}

const ev = (src: string, s = scope()): unknown => compileExpression(src, 'fn')(s)

test('formatNumber: decimals, numeric strings, default precision, null', () => {
  assert.equal(ev('formatNumber(1234567.891, 2)'), '1,234,567.89')
  assert.equal(ev('formatNumber(header.total, 0)'), '1,234,568')
  assert.equal(ev('formatNumber("12.50")'), '12.5')
  assert.equal(ev('formatNumber(1.23456)'), '1.235')
  assert.equal(ev('formatNumber(null, 2)'), null)
})

test('formatNumber / formatCurrency / formatDate in en, de, fr', () => {
  const expected: Record<string, string[]> = {
    en: ['1,234,567.89', '€1,234.50', '-$3.00', '3/5/24', 'Mar 5, 2024', 'March 5, 2024'],
    de: ['1.234.567,89', '1.234,50\u00a0€', '-3,00\u00a0$', '05.03.24', '05.03.2024', '5. März 2024'],
    fr: ['1\u202f234\u202f567,89', '1\u202f234,50\u00a0€', '-3,00\u00a0$US', '05/03/2024', '5 mars 2024', '5 mars 2024']
  }
  for (const [lang, want] of Object.entries(expected)) {
    const s = scope(lang)
    const got = [
      'formatNumber(1234567.891, 2)', 'formatCurrency("1234.5", "EUR")', 'formatCurrency(-3, "usd")',
      'formatDate(header.issued, "short")', 'formatDate(header.issued)', 'formatDate(header.issued, "long")'
    ].map(e => ev(e, s))
    assert.deepEqual(got, want, lang)
  }
})

test('formatDate: Date objects, iso style, UTC so DATE columns never shift', () => {
  assert.equal(ev('formatDate(header.at, "iso")'), '2024-03-05')
  assert.equal(ev('formatDate(header.issued, "iso")'), '2024-03-05')
  assert.equal(ev('formatDate("2024-12-31T10:00:00Z", "medium")'), 'Dec 31, 2024')
  assert.equal(ev('formatDate(null)'), null)
  assert.throws(() => ev('formatDate("not a date")'), RenderError)
  assert.throws(() => ev('formatDate(header.issued, "weird")'), /style must be/)
})

test('unknown or malformed language falls back to English; formatters are cached per language', () => {
  assert.equal(ev('formatNumber(1234.5, 1)', scope('!!bad')), '1,234.5')
  assert.equal(formattersFor('de'), formattersFor('de'))
  assert.equal(formattersFor(undefined).language, 'en')
  assert.equal(formattersFor('de-CH').language, 'de-CH')
})

test('formatCurrency rejects a malformed code at run time', () => {
  assert.throws(() => ev('formatCurrency(1, ' +
    '"EURO")'), (e: unknown) => e instanceof RenderError && e.code === 'RENDER_FAILED' && /3-letter/.test(e.message))
})

test('text functions', () => {
  assert.equal(ev('upper("abc")'), 'ABC')
  assert.equal(ev('lower("ÄBC")'), 'äbc')
  assert.equal(ev('trim("  x  ")'), 'x')
  assert.equal(ev('upper(null)'), null)
  assert.equal(ev('upper(12)'), '12')
  assert.equal(ev('substr("abcdef", 2)'), 'cdef')
  assert.equal(ev('substr("abcdef", 1, 3)'), 'bcd')
  assert.equal(ev('substr("abcdef", -2)'), 'ef')
  assert.equal(ev('substr("a😀b", 1, 1)'), '😀')
  assert.equal(ev('padStart(7, 3, "0")'), '007')
  assert.equal(ev('padStart("ab", 4)'), '  ab')
  assert.equal(ev('length("abc")'), 3)
  assert.equal(ev('length(sales)'), 3)
  assert.equal(ev('length(null)'), 0)
  assert.equal(ev('concat("a", 1, null, true)'), 'a1true')
})

test('coalesce and if are lazy', () => {
  assert.equal(ev('coalesce(null, header.missing, "x", upper(header))'), 'x')
  assert.equal(ev('coalesce(null)'), null)
  assert.equal(ev('if(1 > 0, "yes", upper(header))'), 'yes')
  assert.equal(ev('if("0.00", "yes", "no")'), 'no')
})

test('numeric functions', () => {
  assert.equal(ev('round(2.345, 2)'), 2.35)
  assert.equal(ev('round(1.005, 2)'), 1.01)
  assert.equal(ev('round(-2.5)'), -3)
  assert.equal(ev('round("7.49")'), 7)
  assert.equal(ev('abs(-4)'), 4)
  assert.equal(ev('abs("-4.5")'), 4.5)
})

test('aggregates over rows: numeric strings, nulls skipped, empty/null lists', () => {
  assert.equal(ev('sum(sales, "amount")'), 31)
  assert.equal(ev('sum(group, "amount")'), 30.3)
  assert.equal(ev('count(sales)'), 3)
  assert.equal(ev('count(group)'), 2)
  assert.equal(ev('min(sales, "amount")'), 0.7)
  assert.equal(ev('max(sales, "amount")'), 20.2)
  assert.equal(ev('avg(sales, "qty")'), 3.5)
  assert.equal(ev('sum(sales, "nope")'), 0)
  assert.equal(ev('avg(sales, "nope")'), null)
  assert.equal(ev('max(header.none, "amount")'), null)
  assert.equal(ev('count(null)'), 0)
  assert.throws(() => ev('sum(sales, "__proto__")'), /field name/)
  assert.throws(() => ev('sum(header, "total")'), /expects a list of rows/)
})

test('arity is checked at compile time', () => {
  for (const src of ['upper()', 'upper("a", ' +
    '"b")', 'formatCurrency(1)', 'sum(sales)', 'if(1, 2)', 'concat()', 'round(1, 2, 3)']) {
    assert.throws(() => compileExpression(src, 'w'), (e: unknown) => e instanceof TemplateError && /takes/.test(e.message), src)
  }
})
