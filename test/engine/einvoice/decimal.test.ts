// Exact decimal money (engine/einvoice/decimal.ts, money.ts): no binary floating point, half
// away from zero, VAT on the category total.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { Dec } from '../../../engine/einvoice/decimal.js'
import { lineNet } from '../../../engine/einvoice/money.js'

const d = (s: string | number): Dec => {
  const x = Dec.parse(s)
  assert.ok(x !== null, String(s))
  return x
}

test('sums that binary floating point gets wrong are exact', () => {
  assert.equal(d('0.1').plus(d('0.2')).toString(), '0.3')
  assert.equal(d(1.005).times(d(1000)).toString(), '1005')
  assert.equal(d('1e2').toString(), '100')
  assert.equal(d('-0.5').toString(2), '-0.50')
  for (const bad of ['', 'abc', '1.2.3', NaN, Infinity, null, {}]) assert.equal(Dec.parse(bad), null)
})

test('rounding is half away from zero, at any scale', () => {
  assert.equal(d('2.345').round(2).toString(2), '2.35')
  assert.equal(d('-2.345').round(2).toString(2), '-2.35')
  assert.equal(d('2.3449999').round(2).toString(2), '2.34')
  assert.equal(d('0.005').round(2).toString(2), '0.01')
  assert.equal(d('39.216').round(2).toString(2), '39.22')
  assert.equal(d('100').div(d('3'), 2).toString(2), '33.33')
  assert.equal(d('-2').div(d('3'), 2).toString(2), '-0.67')
})

test('line net = quantity × price − allowance + charge, rounded once', () => {
  assert.equal(lineNet(d('2.5'), d('85.00'), d('12.50'), null).toString(2), '200.00')
  assert.equal(lineNet(d('3'), d('0.3333'), null, d('0.01')).toString(2), '1.01')
  assert.equal(lineNet(d('1.333'), d('1.5'), null, null).toString(2), '2.00') // 1.9995
})

test('property: rounding matches integer arithmetic on cents for any amount with 3 decimals', () => {
  fc.assert(fc.property(fc.integer({ min: -1e9, max: 1e9 }), (mils) => {
    const r = Dec.of(BigInt(mils), 3).round(2)
    const a = Math.abs(mils)
    const cents = Math.floor(a / 10) + (a % 10 >= 5 ? 1 : 0)
    assert.equal(r.units, BigInt(mils < 0 ? -cents : cents))
  }))
})

test('property: toString(minScale) reads back as the same value, with no zeros past minScale beyond need', () => {
  fc.assert(fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: 0, max: 8 }),
    fc.integer({ min: 0, max: 4 }), (units, scale, minScale) => {
      const x = Dec.of(units, scale)
      const s = x.toString(minScale)
      assert.ok(d(s).eq(x), `${s} for ${units}e-${scale}`)
      const frac = s.split('.')[1] ?? ''
      assert.ok(frac.length >= minScale, s)
      if (frac.length > minScale) assert.notEqual(frac.at(-1), '0', s)
      assert.match(s, /^-?(0|[1-9]\d*)(\.\d+)?$/)
    }))
  assert.equal(Dec.of(0n, 3).toString(2), '0.00')
  assert.equal(Dec.of(0n, 3).toString(), '0')
  assert.equal(Dec.of(-5n, 3).toString(), '-0.005')
})
