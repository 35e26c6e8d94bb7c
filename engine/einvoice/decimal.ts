// Exact decimal amounts for e-invoices: an integer of units and a scale (digits after the point).
// Binary floating point never touches money: JSON numbers are read from their shortest decimal
// text (String(n)), DECIMAL columns arrive as text. Rounding is half away from zero.
// The units are held as a JS number while they are a safe integer (every amount an invoice
// carries), as a BigInt beyond: BigInt allocation and arithmetic were the larger part of an
// e-invoice's build. Integer +, −, × on safe integers is exact whenever the result is safe, and a
// result that is not safe shows as one (|x| > 2^53 − 1), so each fast step checks and falls back.

const MAX = Number.MAX_SAFE_INTEGER
/** 10^k exactly, for k <= 22 (beyond, a float power of ten is not exact). */
const POW: readonly number[] = Array.from({ length: 23 }, (_, k) => 10 ** k)
const pow10 = (k: number): number => POW[k] ?? NaN
const safe = (x: number): boolean => x <= MAX && x >= -MAX

export class Dec {
  /** The units while they are a safe integer, else NaN (then `big` holds them). */
  private readonly n: number
  private readonly big: bigint
  readonly scale: number
  /** The last toString's text and its minScale: the XML, the view and the VAT keys ask for the same texts. */
  private text = ''
  /** NaN while there is no text yet: equal to no minScale, whatever a caller passes. */
  private textScale = NaN
  private constructor (n: number, big: bigint, scale: number) { this.n = n; this.big = big; this.scale = scale }

  static readonly ZERO = new Dec(0, 0n, 0)

  /** From BigInt units: held as a number when they fit. */
  static of (units: bigint, scale: number): Dec {
    return units <= 9007199254740991n && units >= -9007199254740991n
      ? new Dec(Number(units), 0n, scale)
      : new Dec(NaN, units, scale)
  }

  get units (): bigint { return Number.isNaN(this.n) ? this.big : BigInt(this.n) }

  /** `12.50`, `-3`, `1e2`, 7 → Dec; null for anything that is not a finite decimal number. */
  static parse (v: unknown): Dec | null {
    let s: string
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return null
      s = String(v)
    } else if (typeof v === 'string') s = v.trim()
    else if (typeof v === 'bigint') return Dec.of(v, 0)
    else return null
    if (s.length === 0 || s.length > 80) return null
    return Dec.plain(s) ?? Dec.parseText(s)
  }

  /** Any form the grammar allows (exponents, long digit strings), through BigInt. */
  private static parseText (s: string): Dec | null {
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,3}))?$/.exec(s)
    if (m === null) return null
    const [, sign = '', int = '', frac = '', exp = '0'] = m
    if (int.length + frac.length === 0) return null
    let units = BigInt(int + frac)
    let scale = frac.length - Number(exp)
    if (scale < 0) { units *= 10n ** BigInt(-scale); scale = 0 }
    return Dec.of(sign === '-' ? -units : units, scale)
  }

  /**
   * `-12.50`, `7`, `.5`: sign, digits, an optional point and digits, at most 15 digits in all
   * (always a safe integer) → Dec without a regular expression or a BigInt; undefined for
   * anything else (exponents, more digits, junk), which the full grammar then decides.
   */
  private static plain (s: string): Dec | undefined {
    let i = 0
    let neg = false
    const c0 = s.charCodeAt(0)
    if (c0 === 45 || c0 === 43) { neg = c0 === 45; i = 1 }
    let n = 0
    let digits = 0
    let point = -1
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i)
      if (c >= 48 && c <= 57) { n = n * 10 + (c - 48); digits++ } else if (c === 46 && point < 0) point = digits
      else return undefined
    }
    if (digits === 0 || digits > 15) return undefined
    return new Dec(neg ? 0 - n : n, 0n, point < 0 ? 0 : digits - point)
  }

  /** The units at a larger scale, as a number, or NaN when they are not safe there. */
  private nAt (scale: number): number {
    const x = scale === this.scale ? this.n : this.n * pow10(scale - this.scale)
    return safe(x) ? x : NaN
  }

  private at (scale: number): bigint {
    return scale >= this.scale ? this.units * 10n ** BigInt(scale - this.scale) : this.units
  }

  plus (o: Dec): Dec {
    const s = Math.max(this.scale, o.scale)
    const r = this.nAt(s) + o.nAt(s)
    return safe(r) ? new Dec(r, 0n, s) : Dec.of(this.at(s) + o.at(s), s)
  }

  minus (o: Dec): Dec { return this.plus(o.neg()) }
  neg (): Dec {
    return Number.isNaN(this.n) ? new Dec(NaN, -this.big, this.scale) : new Dec(0 - this.n, 0n, this.scale)
  }

  times (o: Dec): Dec {
    const r = this.n * o.n
    return safe(r) ? new Dec(r + 0, 0n, this.scale + o.scale) : Dec.of(this.units * o.units, this.scale + o.scale)
  }

  /** Exact quotient rounded to `scale` digits (half away from zero). */
  div (o: Dec, scale: number): Dec {
    if (o.sign() === 0) throw new RangeError('division by zero')
    // this/o = (u1/10^s1) / (u2/10^s2); scaled by 10^(scale+1) for the rounding digit.
    const n = this.n * pow10(scale + 1 + o.scale)
    const d = o.n * pow10(this.scale)
    // Truncated like BigInt's: n % d is exact on safe integers, and n − n % d a multiple of d.
    if (safe(n) && safe(d)) return new Dec((n - n % d) / d + 0, 0n, scale + 1).round(scale)
    const num = this.units * 10n ** BigInt(scale + 1 + o.scale)
    const den = o.units * 10n ** BigInt(this.scale)
    return Dec.of(num / den, scale + 1).round(scale)
  }

  /** Rounded to `scale` digits, half away from zero (EN 16931 amounts: 2). */
  round (scale: number): Dec {
    if (this.scale <= scale) {
      const x = this.nAt(scale)
      return Number.isNaN(x) ? Dec.of(this.at(scale), scale) : new Dec(x, 0n, scale)
    }
    const f = pow10(this.scale - scale)
    if (!Number.isNaN(this.n) && !Number.isNaN(f)) {
      // a % f and (a − r) / f are exact on safe integers.
      const a = Math.abs(this.n)
      const r = a % f
      const q = (a - r) / f + (r * 2 >= f ? 1 : 0)
      return new Dec(this.n < 0 ? 0 - q : q, 0n, scale)
    }
    const fb = 10n ** BigInt(this.scale - scale)
    const units = this.units
    const neg = units < 0n
    const a = neg ? -units : units
    let q = a / fb
    if ((a % fb) * 2n >= fb) q += 1n
    return Dec.of(neg ? -q : q, scale)
  }

  cmp (o: Dec): number {
    const s = Math.max(this.scale, o.scale)
    const x = this.nAt(s); const y = o.nAt(s)
    if (!Number.isNaN(x) && !Number.isNaN(y)) return x < y ? -1 : x > y ? 1 : 0
    const a = this.at(s); const b = o.at(s)
    return a < b ? -1 : a > b ? 1 : 0
  }

  eq (o: Dec): boolean { return this.cmp(o) === 0 }
  isZero (): boolean { return this.sign() === 0 }
  sign (): number {
    if (Number.isNaN(this.n)) return this.big < 0n ? -1 : this.big > 0n ? 1 : 0
    return this.n < 0 ? -1 : this.n > 0 ? 1 : 0
  }

  /** Fixed-point text with at least `minScale` digits after the point, trailing zeros beyond it trimmed. */
  toString (minScale = 0): string {
    if (this.textScale === minScale) return this.text
    this.text = this.format(minScale)
    this.textScale = minScale
    return this.text
  }

  private format (minScale: number): string {
    const small = !Number.isNaN(this.n)
    const neg = small ? this.n < 0 : this.big < 0n
    // A safe integer prints as plain digits (String uses exponents only from 1e21).
    let digits = small ? String(Math.abs(this.n)) : (neg ? -this.big : this.big).toString()
    let scale = this.scale
    // Trailing zeros beyond minScale go, on the text.
    if (digits === '0') scale = Math.min(scale, minScale)
    else {
      let end = digits.length
      while (scale > minScale && digits.charCodeAt(end - 1) === 48) { end--; scale-- }
      if (end < digits.length) digits = digits.slice(0, end)
    }
    if (scale < minScale) { digits += '0'.repeat(minScale - scale); scale = minScale }
    if (scale > 0) {
      digits = digits.padStart(scale + 1, '0')
      digits = digits.slice(0, -scale) + '.' + digits.slice(-scale)
    }
    return (neg ? '-' : '') + digits
  }

  /** For the layout's expressions (formatCurrency, formatNumber): the exact text, which they read as a number. */
  toJSON (): string { return this.toString(2) }
}
