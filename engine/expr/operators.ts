// Binary operators of the expression language. Operands may be numbers or numeric strings
// (mysql2 DECIMAL), dates, text or null; null propagates through arithmetic.
import type { CompiledExpr } from './expressions.js'
import { isNumeric, toNumber, toText } from './values.js'

export function buildBinary (op: string, l: CompiledExpr, r: CompiledExpr): CompiledExpr {
  switch (op) {
    case '+': return (s) => add(l(s), r(s))
    case '-': return (s) => arith(l(s), r(s), op)
    case '*': return (s) => arith(l(s), r(s), op)
    case '/': return (s) => arith(l(s), r(s), op)
    case '%': return (s) => arith(l(s), r(s), op)
    case '==': return (s) => equals(l(s), r(s))
    case '!=': return (s) => !equals(l(s), r(s))
    default: return (s) => compare(l(s), r(s), op)
  }
}

/** `+` adds when both sides are numbers or numeric strings, otherwise concatenates text. */
function add (a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') return clean(a + b)
  if ((a === null || a === undefined) && (b === null || b === undefined)) return null
  if (isNumeric(a) && isNumeric(b)) return clean(Number(a) + Number(b))
  if (typeof a === 'string' || typeof b === 'string') return toText(a) + toText(b)
  return arith(a, b, '+')
}

/** Drops binary noise (12.5 + 2.38 = 14.879999…) that DECIMAL data never had: 15 significant digits. */
function clean (n: number): number {
  return Number.isInteger(n) || !Number.isFinite(n) ? n : Number(n.toPrecision(15))
}

function arith (a: unknown, b: unknown, op: string): number | null {
  const x = toNumber(a, `'${op}'`)
  const y = toNumber(b, `'${op}'`)
  if (x === null || y === null) return null
  switch (op) {
    case '+': return clean(x + y)
    case '-': return clean(x - y)
    case '*': return clean(x * y)
    case '/': return x / y
    default: return x % y
  }
}

function comparable (v: unknown): unknown {
  return v instanceof Date ? v.getTime() : v
}

/** Equality: numeric when one side is a number and the other numeric ("12.50" == 12.5), else strict. */
function equals (a: unknown, b: unknown): boolean {
  if (a === undefined) a = null
  if (b === undefined) b = null
  if (a === b) return true
  if ((typeof a === 'number' && isNumeric(b)) || (typeof b === 'number' && isNumeric(a))) return Number(a) === Number(b)
  if (a instanceof Date || b instanceof Date) return comparable(a) === comparable(b)
  return false
}

/** Ordering: numbers (and numeric strings) numerically, text by code unit, dates by time; null or mixed -> false. */
function compare (a: unknown, b: unknown, op: string): boolean {
  let x: unknown, y: unknown
  if (isNumeric(a) && isNumeric(b)) {
    x = Number(a); y = Number(b)
  } else if (typeof a === 'string' && typeof b === 'string') {
    x = a; y = b
  } else if (a instanceof Date && b instanceof Date) { x = a.getTime(); y = b.getTime() } else return false
  const p = x as number; const q = y as number
  switch (op) {
    case '<': return p < q
    case '<=': return p <= q
    case '>': return p > q
    default: return p >= q
  }
}
