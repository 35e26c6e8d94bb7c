// Value rules shared by operators and functions. Data comes from mysql2 (DECIMAL as "12.50",
// DATETIME as Date) or from JSON (dates as ISO strings), so numeric strings count as numbers.

/** A runtime fault inside an expression; the compiled wrapper adds `where` and the source. */
export class ExprFault extends Error {}

// Names that must never be read even when they are own properties (JSON.parse makes `__proto__` own).
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype'])
export const isForbidden = (key: string): boolean => FORBIDDEN.has(key)

const NUMERIC = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/

/** A number, or a string that is entirely a decimal number. */
export function isNumeric (v: unknown): boolean {
  return typeof v === 'number' || (typeof v === 'string' && NUMERIC.test(v))
}

/** Number of a value for arithmetic; null stays null so missing data propagates instead of crashing. */
export function toNumber (v: unknown, what: string): number | null {
  if (typeof v === 'number') return v
  if (v === null || v === undefined) return null
  if (typeof v === 'string' && NUMERIC.test(v)) return Number(v)
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
  if (typeof v === 'string') return v !== '' && !(NUMERIC.test(v) && Number(v) === 0)
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
    const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(v) ? v + 'T00:00:00Z' : v)
    if (Number.isNaN(d.getTime())) throw new ExprFault(`${what} expects a date, got ${typeName(v)}`)
    return d
  }
  throw new ExprFault(`${what} expects a date, got ${typeName(v)}`)
}
