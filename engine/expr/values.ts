// Value rules shared by operators and functions. Data comes from mysql2 (DECIMAL as "12.50",
// DATETIME as Date) or from JSON (dates as ISO strings), so numeric strings count as numbers.

/** A runtime fault inside an expression; the compiled wrapper adds `where` and the source. */
export class ExprFault extends Error {}

// Names that must never be read even when they are own properties (JSON.parse makes `__proto__` own).
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype'])
export const isForbidden = (key: string): boolean => FORBIDDEN.has(key)

/**
 * Longest string taken as a number or a date. A DECIMAL(65,30) prints in 67 characters and an
 * ISO date-time in 35, so longer text is never a number or a date and is refused without being
 * scanned: conversions cost at most a few hundred steps whatever the caller sends.
 */
export const MAX_NUMERIC_LENGTH = 256
export const MAX_DATE_LENGTH = 64

/** Counts the characters the scanners look at (the property tests bound it); optional. */
export interface Meter { steps: number }

// JavaScript's \s: what Number() trims, so a string we accept converts exactly as before.
const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f ||
  c === 0x3000 || c === 0xfeff
const isDigitCode = (c: number): boolean => c >= 48 && c <= 57

/**
 * One left-to-right pass (no regex, no backtracking) over `[ws][+-](d+[.d*] | .d+)[(e|E)[+-]d+][ws]`,
 * the decimal forms of mysql2 DECIMAL text and JSON numbers. Each character is looked at once.
 */
export function isDecimalText (s: string, meter?: Meter): boolean {
  const n = s.length
  if (n > MAX_NUMERIC_LENGTH) return false
  // `i` only moves forward and every loop test reads s[i] once, so steps <= 2 × (n + 1). Each
  // read is at() and a step counted beside it: a closure over i and steps was allocated per call
  // (~12 KB of an invoice render's garbage: this runs for every value an expression reads).
  let i = 0
  let steps = 1
  while (isSpace(at(s, i, n))) { i++; steps++ }
  steps++
  let c = at(s, i, n)
  if (c === 43 || c === 45) i++
  let digits = 0
  steps++
  while (isDigitCode(at(s, i, n))) { i++; digits++; steps++ }
  steps++
  if (at(s, i, n) === 46) {
    i++
    steps++
    while (isDigitCode(at(s, i, n))) { i++; digits++; steps++ }
  }
  let ok = digits > 0
  steps++
  c = at(s, i, n)
  if (ok && (c === 101 || c === 69)) {
    i++
    steps++
    c = at(s, i, n)
    if (c === 43 || c === 45) i++
    let exp = 0
    steps++
    while (isDigitCode(at(s, i, n))) { i++; exp++; steps++ }
    ok = exp > 0
  }
  if (ok) {
    steps++
    while (isSpace(at(s, i, n))) { i++; steps++ }
  }
  if (meter !== undefined) meter.steps += steps
  return ok && i === n
}

/** The code unit at `i` of `s` (of length `n`), -1 past the end. */
const at = (s: string, i: number, n: number): number => i < n ? s.charCodeAt(i) : -1

/** A string that is entirely a whole number >= 0 (spaces around allowed), as a number; else NaN. */
export function wholeNumberOf (s: string, meter?: Meter): number {
  if (!isDecimalText(s, meter)) return NaN
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (meter !== undefined) meter.steps++
    if (c === 46 || c === 101 || c === 69 || c === 43 || c === 45) return NaN
  }
  return Number(s)
}

/** A number, or a string that is entirely a decimal number. */
export function isNumeric (v: unknown): boolean {
  return typeof v === 'number' || (typeof v === 'string' && isDecimalText(v))
}

/** Number of a value for arithmetic; null stays null so missing data propagates instead of crashing. */
export function toNumber (v: unknown, what: string): number | null {
  if (typeof v === 'number') return v
  if (v === null || v === undefined) return null
  if (typeof v === 'string' && isDecimalText(v)) return Number(v)
  if (typeof v === 'boolean') return v ? 1 : 0
  throw new ExprFault(`${what} expects a number, got ${typeName(v)}`)
}

export function typeName (v: unknown): string {
  if (v === null || v === undefined) return 'null'
  if (Array.isArray(v)) return 'a list'
  if (v instanceof Date) return 'a date'
  if (typeof v === 'object') return 'an object'
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 20 ? v.slice(0, 20) + '…' : v)}`
  return `a ${typeof v}`
}

/**
 * Truthiness: like JavaScript, except that a numeric string equal to zero ("0.00" from a
 * DECIMAL column) and an empty list are false, so `row.discount ? … : …` means what it says.
 */
export function truthy (v: unknown): boolean {
  if (typeof v === 'string') return v !== '' && !(isDecimalText(v) && Number(v) === 0)
  if (Array.isArray(v)) return v.length > 0
  return Boolean(v)
}

/** Text of a value in `{{ }}`: null prints as nothing; objects are a template mistake. */
export function toText (v: unknown): string {
  if (typeof v === 'string') return v
  if (v === null || v === undefined) return ''
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new ExprFault('result is not a finite number')
    // 15 significant digits: 0.1 + 0.2 prints as 0.3, as a person expects.
    return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(15)))
  }
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (v instanceof Date) return v.toISOString()
  throw new ExprFault(`cannot print ${typeName(v)}; choose a field or use a function`)
}

/** Reads an own, non-forbidden property; anything else (missing, inherited, primitive base) is null. */
export function getMember (obj: unknown, key: string): unknown {
  if (obj === null || typeof obj !== 'object' || obj instanceof Date) return null
  if (!Object.hasOwn(obj, key) || FORBIDDEN.has(key)) return null
  const v = (obj as Record<string, unknown>)[key]
  // Data never holds functions; should a caller pass one in context it must not become callable.
  return v === undefined || typeof v === 'function' ? null : v
}

/** `a[b]` with a computed key: integers index lists, strings name fields. */
export function getIndex (obj: unknown, key: unknown): unknown {
  if (typeof key === 'number') return Number.isInteger(key) ? getMember(obj, String(key)) : null
  if (typeof key === 'string') return getMember(obj, key)
  if (key === null || key === undefined) return null
  throw new ExprFault(`cannot index with ${typeName(key)}`)
}

/** Date of a Date or an ISO string; date-only strings are taken as UTC midnight so they never shift a day. */
export function toDate (v: unknown, what: string): Date | null {
  if (v === null || v === undefined) return null
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) throw new ExprFault(`${what} got an invalid date`)
    return v
  }
  if (typeof v === 'string') {
    if (v.length > MAX_DATE_LENGTH) throw new ExprFault(`${what} expects a date, got ${typeName(v)}`)
    const d = new Date(isDateOnly(v) ? v + 'T00:00:00Z' : v)
    if (Number.isNaN(d.getTime())) throw new ExprFault(`${what} expects a date, got ${typeName(v)}`)
    return d
  }
  throw new ExprFault(`${what} expects a date, got ${typeName(v)}`)
}

/** `YYYY-MM-DD` exactly: ten fixed positions, no regex. */
export function isDateOnly (s: string): boolean {
  if (s.length !== 10 || s[4] !== '-' || s[7] !== '-') return false
  for (const i of [0, 1, 2, 3, 5, 6, 8, 9]) if (!isDigitCode(s.charCodeAt(i))) return false
  return true
}
