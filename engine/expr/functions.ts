// The whitelist of callable functions. Each takes the scope (for the locale) and up to three
// already-evaluated arguments, so a call costs no argument array. `if`, `coalesce` and `concat`
// are special forms compiled in expressions.ts (lazy or variadic).
import type { DateStyle } from './format.js'
import type { EvalScope } from './expressions.js'
import { ExprFault, getMember, isForbidden, toDate, toNumber, typeName } from './values.js'

export interface FunctionDef {
  min: number
  max: number
  fn: (s: EvalScope, a: unknown, b: unknown, c: unknown) => unknown
}

const DATE_STYLES = new Set<DateStyle>(['short', 'medium', 'long', 'iso'])

function finite (v: unknown, name: string): number | null {
  const n = toNumber(v, name)
  if (n !== null && !Number.isFinite(n)) throw new ExprFault(`${name} got a number that is not finite`)
  return n
}

function intArg (v: unknown, name: string, lo: number, hi: number): number {
  const n = toNumber(v, name)
  if (n === null || !Number.isInteger(n) || n < lo || n > hi) {
    throw new ExprFault(`${name} expects a whole number from ${lo} to ${hi}, got ${typeName(v)}`)
  }
  return n
}

/** Text argument: numbers are printed plainly, null stays null, objects are a mistake. */
function str (v: unknown, name: string): string | null {
  if (typeof v === 'string') return v
  if (v === null || v === undefined) return null
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  throw new ExprFault(`${name} expects text, got ${typeName(v)}`)
}

function rowsArg (v: unknown, name: string): unknown[] | null {
  if (Array.isArray(v)) return v as unknown[]
  if (v === null || v === undefined) return null
  throw new ExprFault(`${name} expects a list of rows, got ${typeName(v)}`)
}

function fieldArg (v: unknown, name: string): string {
  if (typeof v !== 'string' || isForbidden(v)) throw new ExprFault(`${name} expects a field name as text`)
  return v
}

/** Sum/min/max/avg over one field; null values are skipped as SQL aggregates do. */
function aggregate (kind: 'sum' | 'min' | 'max' | 'avg', rowsV: unknown, fieldV: unknown): number | null {
  const rows = rowsArg(rowsV, kind)
  const field = fieldArg(fieldV, kind)
  let acc = 0
  let n = 0
  let best: number | null = null
  if (rows !== null) {
    for (let i = 0; i < rows.length; i++) {
      const x = finite(getMember(rows[i], field), kind)
      if (x === null) continue
      acc += x
      n++
      if (best === null || (kind === 'min' ? x < best : x > best)) best = x
    }
  }
  // 15 significant digits drop binary noise (0.1 + 0.2) that DECIMAL columns never had.
  if (kind === 'sum') return Number(acc.toPrecision(15))
  if (kind === 'avg') return n === 0 ? null : Number((acc / n).toPrecision(15))
  return best
}

/** Round half away from zero at `d` decimals, via exponent shifting to avoid 1.005 -> 1.00. */
function roundTo (n: number, d: number): number {
  const shifted = Math.round(Number(`${Math.abs(n)}e${d}`))
  return Math.sign(n) * Number(`${shifted}e${-d}`)
}

export const FUNCTIONS: Record<string, FunctionDef> = {
  formatNumber: {
    min: 1,
    max: 2,
    fn: (s, n, d) => {
      const x = finite(n, 'formatNumber')
      if (x === null) return null
      return s.locale.number(x, d === undefined || d === null ? undefined : intArg(d, 'formatNumber', 0, 20))
    }
  },
  formatCurrency: {
    min: 2,
    max: 2,
    fn: (s, n, cur) => {
      const x = finite(n, 'formatCurrency')
      if (x === null) return null
      if (typeof cur !== 'string' || !/^[A-Za-z]{3}$/.test(cur)) {
        throw new ExprFault(`formatCurrency expects a 3-letter currency code, got ${typeName(cur)}`)
      }
      return s.locale.currency(x, cur.toUpperCase())
    }
  },
  formatDate: {
    min: 1,
    max: 2,
    fn: (s, v, style) => {
      const d = toDate(v, 'formatDate')
      if (d === null) return null
      const st = style === undefined || style === null ? 'medium' : style
      if (!DATE_STYLES.has(st as DateStyle)) {
        throw new ExprFault(`formatDate style must be short, medium, long or iso, got ${typeName(st)}`)
      }
      return s.locale.date(d, st as DateStyle)
    }
  },
  upper: { min: 1, max: 1, fn: (_s, v) => str(v, 'upper')?.toUpperCase() ?? null },
  lower: { min: 1, max: 1, fn: (_s, v) => str(v, 'lower')?.toLowerCase() ?? null },
  trim: { min: 1, max: 1, fn: (_s, v) => str(v, 'trim')?.trim() ?? null },
  length: {
    min: 1,
    max: 1,
    fn: (_s, v) => {
      if (typeof v === 'string' || Array.isArray(v)) return v.length
      if (v === null || v === undefined) return 0
      if (typeof v === 'number') return String(v).length
      throw new ExprFault(`length expects text or a list, got ${typeName(v)}`)
    }
  },
  round: {
    min: 1,
    max: 2,
    fn: (_s, n, d) => {
      const x = finite(n, 'round')
      return x === null ? null : roundTo(x, d === undefined || d === null ? 0 : intArg(d, 'round', 0, 15))
    }
  },
  abs: { min: 1, max: 1, fn: (_s, n) => { const x = toNumber(n, 'abs'); return x === null ? null : Math.abs(x) } },
  substr: {
    min: 2,
    max: 3,
    fn: (_s, v, start, len) => {
      const text = str(v, 'substr')
      if (text === null) return null
      const from = intArg(start, 'substr', -1e6, 1e6)
      const chars = [...text] // by code point, so emoji and accents are never split
      const begin = from < 0 ? Math.max(0, chars.length + from) : from
      const end = len === undefined || len === null ? chars.length : begin + intArg(len, 'substr', 0, 1e6)
      return chars.slice(begin, end).join('')
    }
  },
  padStart: {
    min: 2,
    max: 3,
    fn: (_s, v, len, fill) => {
      const text = str(v, 'padStart') ?? ''
      const f = fill === undefined || fill === null ? ' ' : str(fill, 'padStart')
      return text.padStart(intArg(len, 'padStart', 0, 1000), f === null || f === '' ? ' ' : f)
    }
  },
  count: {
    min: 1,
    max: 1,
    fn: (_s, rows) => rowsArg(rows, 'count')?.length ?? 0
  },
  sum: { min: 2, max: 2, fn: (_s, r, f) => aggregate('sum', r, f) },
  min: { min: 2, max: 2, fn: (_s, r, f) => aggregate('min', r, f) },
  max: { min: 2, max: 2, fn: (_s, r, f) => aggregate('max', r, f) },
  avg: { min: 2, max: 2, fn: (_s, r, f) => aggregate('avg', r, f) }
}

/** Arity of the special forms compiled in expressions.ts, for the same compile-time checks. */
export const SPECIAL_FORMS: Record<string, { min: number, max: number }> = {
  if: { min: 3, max: 3 },
  coalesce: { min: 1, max: 64 },
  concat: { min: 1, max: 64 }
}
