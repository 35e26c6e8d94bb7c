// Schema fragments the element schemas share (draft 2020-12), and the readers that compile
// their values. The readers still check: a template published under an older schema, or one
// compiled without validation (tests, `svc templates preview`), must fail with a path, not a crash.
import { compileExpression, type CompiledExpr } from '../../expr/expressions.js'
import type { Direction } from '../bidi.js'
import { ALIGN_CENTER, ALIGN_LEFT, ALIGN_RIGHT } from '../model.js'
import { fail } from '../styles.js'

export const color = {
  type: 'string',
  pattern: '^(#[0-9A-Fa-f]{3}|#[0-9A-Fa-f]{6}|black|white|gray|grey|red|green|blue)$'
} as const
// `description` of a union is the whole error message when a value matches none of its forms.
export const width = {
  description: 'a number, "*" or a percentage',
  anyOf: [{ type: 'number', minimum: 0 }, { type: 'string', pattern: '^(\\d+(\\.\\d+)?%|(\\d+(\\.\\d+)?)?\\*)$' }]
} as const
export const len = { type: 'number', minimum: 0 } as const
export const align = { enum: ['left', 'center', 'right'] } as const
export const expr = { type: 'string', minLength: 1, maxLength: 2000 } as const
export const text = { type: 'string', maxLength: 20000 } as const
const fontName = { type: 'string', minLength: 1, maxLength: 100 } as const
// One font, or a stack: first choice first (docs/layout.md, "Fonts").
const font = { anyOf: [fontName, { type: 'array', items: fontName, minItems: 1, maxItems: 20 }] } as const
export const direction = { enum: ['auto', 'ltr', 'rtl'] } as const
// `hyphenate`: words that do not fit may break with a hyphen, by `context.language` (off by default).
export const styleProps = {
  font,
  size: { type: 'number', exclusiveMinimum: 0, maximum: 500 },
  color,
  lineGap: { type: 'number' },
  hyphenate: { type: 'boolean' }
} as const
/** A list of elements; `blockElement` lists may also hold tables. */
export const flow = <K extends 'element' | 'blockElement'>(element: K): ElementList<K> =>
  ({ type: 'array', maxItems: 1000, items: { $ref: `#/$defs/${element}` } })
export interface ElementList<K extends string> {
  readonly type: 'array'
  readonly maxItems: 1000
  readonly items: { readonly $ref: `#/$defs/${K}` }
}
/** Members every element has. */
export const common = { if: expr } as const

type Obj = Record<string, unknown>

export function obj (v: unknown, path: string): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw fail(path, 'expected an object')
  return v as Obj
}

export function num (v: unknown, dflt: number, path: string): number {
  if (v === undefined) return dflt
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw fail(path, 'expected a non-negative number')
  return v
}

/** `align`; text without one starts at its paragraph's start (right in right-to-left text). */
export function alignOf (v: unknown, path: string, dflt = ALIGN_LEFT): number {
  if (v === undefined) return dflt
  if (v === 'left') return ALIGN_LEFT
  if (v === 'center') return ALIGN_CENTER
  if (v === 'right') return ALIGN_RIGHT
  throw fail(path, 'align must be left, center or right')
}

/** An expression given as `lines` or `{{ lines }}`. */
export function exprOf (v: unknown, path: string): CompiledExpr {
  if (typeof v !== 'string') throw fail(path, 'expected an expression string')
  const m = /^\s*\{\{([\s\S]*)\}\}\s*$/.exec(v)
  return compileExpression(m?.[1] ?? v, path)
}

export function directionOf (v: unknown, path: string): Direction {
  if (v === undefined || v === 'auto') return 'auto'
  if (v === 'ltr' || v === 'rtl') return v
  throw fail(path, 'direction must be auto, ltr or rtl')
}

/** `heading`: 1–6, the level of a heading in a tagged PDF (`H1`–`H6`), on a text element or a style. */
export const HEADING = { type: 'integer', minimum: 1, maximum: 6 } as const
