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

test('a value\'s text is the same whichever minimum scale is asked first (the last text is kept)', () => {
  for (const minScale of [-1, 0, 2, 5]) {
    const fresh = d('12.5').toString(minScale)
    const other = d('12.5')
    other.toString(minScale === 2 ? 0 : 2)
    assert.equal(fresh, other.toString(minScale), `minScale ${minScale}`)
    assert.ok(fresh.startsWith('12.5'), `minScale ${minScale}: ${fresh}`)
  }
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

/** Units on both sides of 2^53 (where the number fast path gives way to BigInt), and small ones. */
const units = fc.oneof(
  fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }),
  fc.bigInt({ min: 2n ** 53n - 2000n, max: 2n ** 53n + 2000n }).map((u) => -u),
  fc.bigInt({ min: 2n ** 53n - 2000n, max: 2n ** 53n + 2000n }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n })
)
const dec = fc.tuple(units, fc.integer({ min: 0, max: 6 }))
const atScale = (u: bigint, from: number, to: number): bigint => u * 10n ** BigInt(to - from)

test('property: every operation agrees with plain BigInt arithmetic, small or large', () => {
  fc.assert(fc.property(dec, dec, fc.integer({ min: 0, max: 4 }), ([ua, sa], [ub, sb], k) => {
    const a = Dec.of(ua, sa); const b = Dec.of(ub, sb)
    const s = Math.max(sa, sb)
    const sumU = atScale(ua, sa, s) + atScale(ub, sb, s)
    const p = a.plus(b)
    assert.deepEqual([p.units, p.scale], [sumU, s])
    const m = a.minus(b)
    assert.deepEqual([m.units, m.scale], [atScale(ua, sa, s) - atScale(ub, sb, s), s])
    const t = a.times(b)
    assert.deepEqual([t.units, t.scale], [ua * ub, sa + sb])
    const diff = atScale(ua, sa, s) - atScale(ub, sb, s)
    assert.equal(a.cmp(b), diff < 0n ? -1 : diff > 0n ? 1 : 0)
    assert.equal(a.sign(), ua < 0n ? -1 : ua > 0n ? 1 : 0)
    const r = a.round(k)
    const f = sa > k ? 10n ** BigInt(sa - k) : 1n
    const abs = ua < 0n ? -ua : ua
    const q = sa > k ? abs / f + ((abs % f) * 2n >= f ? 1n : 0n) : atScale(abs, sa, k)
    assert.deepEqual([r.units, r.scale], [ua < 0n ? -q : q, k])
    assert.ok(d(a.toString(k)).eq(a))
  }))
})

test('property: division agrees with BigInt arithmetic (truncated one digit further, then rounded)', () => {
  const small = fc.tuple(fc.bigInt({ min: -(10n ** 7n), max: 10n ** 7n }), fc.integer({ min: 0, max: 4 }))
  fc.assert(fc.property(fc.oneof(small, dec), fc.oneof(small, dec), fc.integer({ min: 0, max: 4 }),
    ([ua, sa], [ub, sb], k) => {
      fc.pre(ub !== 0n)
      const num = ua * 10n ** BigInt(k + 1 + sb); const den = ub * 10n ** BigInt(sa)
      const q = num / den; const abs = q < 0n ? -q : q
      const r = abs / 10n + (abs % 10n >= 5n ? 1n : 0n)
      const v = Dec.of(ua, sa).div(Dec.of(ub, sb), k)
      assert.deepEqual([v.units, v.scale], [q < 0n ? -r : r, k])
    }), { numRuns: 1000 })
})

test('property: parsing plain decimal text gives its exact units and scale', () => {
  const digits = fc.stringMatching(/^\d{0,20}$/)
  fc.assert(fc.property(fc.constantFrom('', '-', '+'), digits, fc.option(digits), (sign, int, frac) => {
    const text = sign + int + (frac === null ? '' : '.' + frac)
    const x = Dec.parse(text)
    if (int.length + (frac ?? '').length === 0) { assert.equal(x, null); return }
    const u = BigInt(int + (frac ?? ''))
    assert.ok(x !== null, text)
    assert.deepEqual([x.units, x.scale], [sign === '-' ? -u : u, (frac ?? '').length])
  }))
})
