// Template expressions: parsed once, compiled into plain closures (never eval/Function/vm).
// A closure reads only the EvalScope it is given, own properties only, and calls only whitelisted
// functions, so template authors cannot reach prototypes, globals or the process.
import { RenderError, TemplateError } from '../errors.js'
import type { DatasetValues } from '../types.js'
import { formattersFor, type Formatters } from './format.js'
import { FUNCTIONS, SPECIAL_FORMS } from './functions.js'
import { SyntaxFault } from './lexer.js'
import { parse, type Node } from './parser.js'
import { buildBinary } from './operators.js'
import { ExprFault, getIndex, getMember, isForbidden, toNumber, toText, truthy } from './values.js'

export { formattersFor, type Formatters } from './format.js'

export interface EvalScope {
  /** Dataset code -> row (single) or rows (multiple). */
  data: Record<string, unknown>
  params: Record<string, unknown>
  context: Record<string, unknown>
  row: unknown
  group: unknown[] | null
  page: number
  pages: number
  index: number
  locale: Formatters
}

export type CompiledExpr = (scope: EvalScope) => unknown
export type CompiledText = (scope: EvalScope) => string

export function createScope (input: {
  datasets: DatasetValues | Record<string, unknown>
  parameters: Record<string, unknown>
  context: Record<string, unknown>
}): EvalScope {
  const language = input.context.language
  return {
    data: input.datasets,
    params: input.parameters,
    context: input.context,
    row: null,
    group: null,
    page: 0,
    pages: 0,
    index: 0,
    locale: formattersFor(typeof language === 'string' ? language : undefined)
  }
}

/**
 * A scope of its own for a list's rows (the caller sets `row` and `index` per row), the rest as in
 * `base`. Its fields are written out in createScope's order, not spread, so that expressions see
 * one hidden class of scope, not one per copy (see pdf/elements/types.ts, `compile`).
 */
export function rowScope (base: EvalScope): EvalScope {
  return {
    data: base.data,
    params: base.params,
    context: base.context,
    row: null,
    group: base.group,
    page: base.page,
    pages: base.pages,
    index: 0,
    locale: base.locale
  }
}

/** Compiles one expression (without braces). Throws TemplateError naming `where` and the source. */
export function compileExpression (src: string, where: string): CompiledExpr {
  let inner: CompiledExpr
  try {
    inner = build(parse(src))
  } catch (err) {
    if (err instanceof SyntaxFault || err instanceof ExprFault) {
      // Columns count within the trimmed expression, as shown in the message.
      const at = err instanceof SyntaxFault ? ` at column ${err.pos - (src.length - src.trimStart().length) + 1}` : ''
      const message = `${where}: ${src.trim()}: ${err.message}${at}`
      throw new TemplateError(message, [{ path: where, message: `${src.trim()}: ${err.message}${at}` }])
    }
    throw err
  }
  const shown = src.trim()
  return (s) => {
    try {
      return inner(s)
    } catch (err) {
      throw runtimeError(err, where, shown)
    }
  }
}

function runtimeError (err: unknown, where: string, src: string): unknown {
  if (err instanceof RenderError) return err
  // ExprFault is ours; RangeError and friends come from Intl (bad currency) or deep recursion.
  const reason = err instanceof Error ? err.message : String(err)
  return new RenderError('RENDER_FAILED', `${where}: ${src}: ${reason}`)
}

interface Part { text: string, expr: CompiledExpr | null, src: string }

/** Splits "a {{ x }} b" into literal and expression parts; an unclosed `{{` is a compile error. */
function splitText (text: string, where: string): Part[] {
  const parts: Part[] = []
  let i = 0
  while (i < text.length) {
    const open = text.indexOf('{{', i)
    if (open < 0) { parts.push({ text: text.slice(i), expr: null, src: '' }); break }
    if (open > i) parts.push({ text: text.slice(i, open), expr: null, src: '' })
    const close = text.indexOf('}}', open + 2)
    if (close < 0) {
      const message = `${where}: unclosed '{{' in ${JSON.stringify(text)}`
      throw new TemplateError(message, [{ path: where, message: `unclosed '{{' in ${JSON.stringify(text)}` }])
    }
    const src = text.slice(open + 2, close)
    parts.push({ text: '', expr: compileExpression(src, where), src })
    i = close + 2
  }
  return parts
}

export function isConstantText (text: string): boolean {
  return !text.includes('{{')
}

/** Compiles text with `{{ expr }}` placeholders; null/undefined print as "". */
export function compileText (text: string, where: string): CompiledText {
  if (isConstantText(text)) return () => text
  const parts = splitText(text, where)
  const wrap = (e: CompiledExpr, src: string): CompiledText => (s) => {
    const v = e(s)
    if (typeof v === 'string') return v
    try { return toText(v) } catch (err) { throw runtimeError(err, where, src.trim()) }
  }
  const [only] = parts
  if (parts.length === 1 && only !== undefined) return wrap(only.expr as CompiledExpr, only.src)
  const fns = parts.map(p => p.expr === null ? constant(p.text) : wrap(p.expr, p.src))
  const [a, b, c] = fns
  if (a !== undefined && b !== undefined) {
    if (fns.length === 2) return (s) => a(s) + b(s)
    if (fns.length === 3 && c !== undefined) return (s) => a(s) + b(s) + c(s)
  }
  return (s) => {
    let out = ''
    for (let i = 0; i < fns.length; i++) out += fns[i]!(s) // i < fns.length
    return out
  }
}

const constant = (text: string): CompiledText => () => text

// ---- tree -> closures ------------------------------------------------------------------------

function build (node: Node): CompiledExpr {
  switch (node.t) {
    case 'lit': { const v = node.value; return () => v }
    case 'name': return buildName(node.name)
    case 'member': {
      const obj = build(node.obj)
      const key = node.key
      if (isForbidden(key)) return () => null
      return (s) => getMember(obj(s), key)
    }
    case 'index': {
      const obj = build(node.obj)
      const key = build(node.key)
      return (s) => getIndex(obj(s), key(s))
    }
    case 'call': return buildCall(node.name, node.args)
    case 'unary': {
      const arg = build(node.arg)
      if (node.op === 'not') return (s) => !truthy(arg(s))
      return (s) => { const n = toNumber(arg(s), "'-'"); return n === null ? null : -n }
    }
    case 'and': {
      const l = build(node.left); const r = build(node.right)
      return (s) => { const v = l(s); return truthy(v) ? r(s) : v }
    }
    case 'or': {
      const l = build(node.left); const r = build(node.right)
      return (s) => { const v = l(s); return truthy(v) ? v : r(s) }
    }
    case 'cond': {
      const test = build(node.test); const a = build(node.then); const b = build(node.else)
      return (s) => truthy(test(s)) ? a(s) : b(s)
    }
    case 'binary': return buildBinary(node.op, build(node.left), build(node.right))
  }
}

/** Bare names: scope members first, then dataset codes, then parameter names; unknown -> null. */
function buildName (name: string): CompiledExpr {
  switch (name) {
    case 'row': return (s) => s.row
    case 'group': return (s) => s.group
    case 'page': return (s) => s.page
    case 'pages': return (s) => s.pages
    case 'index': return (s) => s.index
    case 'context': return (s) => s.context
    case 'params': return (s) => s.params
  }
  if (isForbidden(name)) return () => null
  return (s) => {
    if (Object.hasOwn(s.data, name)) return s.data[name] ?? null
    return getMember(s.params, name)
  }
}

function buildCall (name: string, argNodes: Node[]): CompiledExpr {
  const spec = Object.hasOwn(FUNCTIONS, name)
    ? FUNCTIONS[name]
    : Object.hasOwn(SPECIAL_FORMS, name)
      ? SPECIAL_FORMS[name]
      : undefined
  if (spec === undefined) throw new ExprFault(`unknown function '${name}'`)
  if (argNodes.length < spec.min || argNodes.length > spec.max) {
    const want = spec.min === spec.max
      ? `${spec.min}`
      : spec.max >= 64
        ? `at least ${spec.min}`
        : `${spec.min} to ${spec.max}`
    throw new ExprFault(`${name} takes ${want} argument${want === '1' ? '' : 's'}, got ${argNodes.length}`)
  }
  const args = argNodes.map(build)
  if (name === 'if') {
    const [c, a, b] = args
    if (c === undefined || a === undefined || b === undefined) throw new ExprFault('if takes 3 arguments')
    return (s) => truthy(c(s)) ? a(s) : b(s)
  }
  if (name === 'coalesce') {
    return (s) => {
      for (let i = 0; i < args.length; i++) { const v = args[i]!(s); if (v !== null && v !== undefined) return v }
      return null
    }
  }
  if (name === 'concat') {
    return (s) => {
      let out = ''
      for (let i = 0; i < args.length; i++) out += toText(args[i]!(s)) // i < args.length
      return out
    }
  }
  // Not a special form, so a function: spec is FUNCTIONS[name], which takes 1 to 3 arguments.
  const fn = FUNCTIONS[name]?.fn
  const [a, b, c] = args
  if (fn === undefined || a === undefined) throw new ExprFault(`unknown function '${name}'`)
  if (b === undefined) return (s) => fn(s, a(s), undefined, undefined)
  if (c === undefined) return (s) => fn(s, a(s), b(s), undefined)
  return (s) => fn(s, a(s), b(s), c(s))
}
