// Exact decimal amounts for e-invoices: a BigInt of units and a scale (digits after the point).
// Binary floating point never touches money: JSON numbers are read from their shortest decimal
// text (String(n)), DECIMAL columns arrive as text. Rounding is half away from zero.

export class Dec {
  readonly units: bigint
  readonly scale: number
  private constructor (units: bigint, scale: number) { this.units = units; this.scale = scale }

  static readonly ZERO = new Dec(0n, 0)

  static of (units: bigint, scale: number): Dec { return new Dec(units, scale) }

  /** `12.50`, `-3`, `1e2`, 7 → Dec; null for anything that is not a finite decimal number. */
  static parse (v: unknown): Dec | null {
    let s: string
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return null
      s = String(v)
    } else if (typeof v === 'string') s = v.trim()
    else if (typeof v === 'bigint') return new Dec(v, 0)
    else return null
    if (s.length === 0 || s.length > 80) return null
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,3}))?$/.exec(s)
    if (m === null) return null
    const [, sign = '', int = '', frac = '', exp = '0'] = m
    if (int.length + frac.length === 0) return null
    let units = BigInt(int + frac)
    let scale = frac.length - Number(exp)
    if (scale < 0) { units *= 10n ** BigInt(-scale); scale = 0 }
    return new Dec(sign === '-' ? -units : units, scale)
  }

  private at (scale: number): bigint {
    return scale >= this.scale ? this.units * 10n ** BigInt(scale - this.scale) : this.units
  }

  plus (o: Dec): Dec {
    const s = Math.max(this.scale, o.scale)
    return new Dec(this.at(s) + o.at(s), s)
  }

  minus (o: Dec): Dec { return this.plus(o.neg()) }
  neg (): Dec { return new Dec(-this.units, this.scale) }
  times (o: Dec): Dec { return new Dec(this.units * o.units, this.scale + o.scale) }

  /** Exact quotient rounded to `scale` digits (half away from zero). */
  div (o: Dec, scale: number): Dec {
    if (o.units === 0n) throw new RangeError('division by zero')
    // this/o = (u1/10^s1) / (u2/10^s2); scaled by 10^(scale+1) for the rounding digit.
    const num = this.units * 10n ** BigInt(scale + 1 + o.scale)
    const den = o.units * 10n ** BigInt(this.scale)
    return new Dec(num / den, scale + 1).round(scale)
  }

  /** Rounded to `scale` digits, half away from zero (EN 16931 amounts: 2). */
  round (scale: number): Dec {
    if (this.scale <= scale) return new Dec(this.at(scale), scale)
    const f = 10n ** BigInt(this.scale - scale)
    const neg = this.units < 0n
    const a = neg ? -this.units : this.units
    let q = a / f
    if ((a % f) * 2n >= f) q += 1n
    return new Dec(neg ? -q : q, scale)
  }

  cmp (o: Dec): number {
    const s = Math.max(this.scale, o.scale)
    const a = this.at(s); const b = o.at(s)
    return a < b ? -1 : a > b ? 1 : 0
  }

  eq (o: Dec): boolean { return this.cmp(o) === 0 }
  isZero (): boolean { return this.units === 0n }
  sign (): number { return this.units < 0n ? -1 : this.units > 0n ? 1 : 0 }

  /** Fixed-point text with at least `minScale` digits after the point, trailing zeros beyond it trimmed. */
  toString (minScale = 0): string {
    const neg = this.units < 0n
    let digits = (neg ? -this.units : this.units).toString()
    let scale = this.scale
    // Trailing zeros beyond minScale go, on the text (BigInt divisions cost more than the rest).
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

export const sum = (xs: Iterable<Dec>): Dec => {
  let t = Dec.ZERO
  for (const x of xs) t = t.plus(x)
  return t
}
