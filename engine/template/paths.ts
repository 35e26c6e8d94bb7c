// Every path of every expression, resolved against what the runtime scope will hold there
// (engine/expr/expressions.ts buildName): `row` and `group` where a table or a label binds them,
// `page`, `pages`, `index`, `context`, `params`, dataset codes and parameter names everywhere.
// At run time an unknown name or field is silently null, so a typo (`row.skuu`) would print
// nothing; here it is an error with the JSON path, the expression and the nearest known name.
// A dataset that declares no fields opts out: paths into its rows are not checked (a warning).
import { parse, type Node } from '../expr/parser.js'
import type { DatasetDef, TemplateDefinition } from './definition.js'
import type { ValidationIssue } from './validate.js'
import { escapeToken } from './pointer.js'

type Shape =
  | { k: 'any' }
  | { k: 'scalar' }
  | { k: 'record', what: string, fields: Set<string> | null }
  | { k: 'list', what: string, of: Shape }

interface Ctx { row: Shape | null, group: boolean }

const ANY: Shape = { k: 'any' }
const SCALAR: Shape = { k: 'scalar' }
const AGGREGATES = new Set(['sum', 'min', 'max', 'avg'])
const ALWAYS = ['page', 'pages', 'index', 'context', 'params']

export function pathIssues (def: TemplateDefinition): { errors: ValidationIssue[], warnings: ValidationIssue[] } {
  const errors: ValidationIssue[] = []
  const warnings: ValidationIssue[] = []
  const datasets = new Map<string, DatasetDef>()
  ;(def.datasets ?? []).forEach((d, i) => {
    datasets.set(d.code, d)
    if (d.fields.length === 0) {
      warnings.push({
        path: `/datasets/${i}/fields`,
        message: `dataset '${d.code}' declares no fields: paths into its rows are not checked`
      })
    }
  })
  const rowOf = (code: string): Shape => {
    const d = datasets.get(code)
    if (d === undefined) return ANY
    const fields = d.fields.length === 0 ? null : new Set(d.fields.map(f => f.name))
    return { k: 'record', what: `dataset '${code}'`, fields }
  }
  const params = def.parameters ?? []
  const paramShape = (type: string): Shape =>
    type.endsWith('[]') ? { k: 'list', what: 'a list parameter', of: SCALAR } : SCALAR
  const names = new Map<string, Shape>()
  for (const p of params) names.set(p.name, paramShape(p.type))
  for (const [code, d] of datasets) {
    const row = rowOf(code)
    const shape: Shape = d.cardinality === 'single' ? row : { k: 'list', what: `dataset '${code}'`, of: row }
    names.set(code, shape)
  }
  // A document with an e-invoice has its computed figures as `invoice` (engine/einvoice/build.ts).
  if ((def.document as { einvoice?: unknown } | undefined)?.einvoice !== undefined) names.set('invoice', ANY)
  const paramsRecord: Shape = { k: 'record', what: 'params', fields: new Set(params.map(p => p.name)) }

  /** Checks one expression (without braces) at the JSON pointer `at`; `shown` is how it is quoted. */
  function expression (src: string, at: string, ctx: Ctx, shown: string): void {
    let tree: Node
    try { tree = parse(src) } catch { return } // compile already reported syntax errors
    const fail = (message: string): void => { errors.push({ path: at, message: `${message} (in ${shown})` }) }
    const visible = (): string[] =>
      [...(ctx.row === null ? [] : ['row']), ...(ctx.group ? ['group'] : []), ...ALWAYS, ...names.keys()]

    function resolve (n: Node): Shape {
      switch (n.t) {
        case 'lit': return SCALAR
        case 'name': return name(n.name)
        case 'member': return member(n, resolve(n.obj))
        case 'index': {
          const obj = resolve(n.obj); resolve(n.key)
          return obj.k === 'list' ? obj.of : ANY
        }
        case 'call': {
          const [rows] = n.args.map(resolve)
          const [list, field] = n.args // the call may have fewer arguments
          if (AGGREGATES.has(n.name) && list !== undefined && field?.t === 'lit' && typeof field.value === 'string') {
            const row = rows?.k === 'list' ? rows.of : null
            if (row?.k === 'record' && row.fields !== null && !row.fields.has(field.value)) {
              const hint = suggest(field.value, row.fields, (s) => `"${s}"`)
              fail(`${n.name}(${text(list)}, "${field.value}"): '${field.value}' is not a field of ${row.what}${hint}`)
            }
          }
          return ANY
        }
        case 'unary': resolve(n.arg); return SCALAR
        case 'binary': case 'and': case 'or': resolve(n.left); resolve(n.right); return ANY
        case 'cond': resolve(n.test); resolve(n.then); resolve(n.else); return ANY
      }
    }

    function name (id: string): Shape {
      if (id === 'row') {
        if (ctx.row !== null) return ctx.row
        fail("'row' is only set inside a table's columns, groupBy and group bands, and in a label")
        return ANY
      }
      if (id === 'group') {
        if (ctx.group) return { k: 'list', what: 'group', of: ctx.row ?? ANY }
        fail("'group' is only set in the group bands and columns of a table with groupBy")
        return ANY
      }
      if (id === 'page' || id === 'pages' || id === 'index') return SCALAR
      if (id === 'context') return ANY
      if (id === 'params') return paramsRecord
      const shape = names.get(id)
      if (shape !== undefined) return shape
      fail(`unknown name '${id}': not a parameter, a dataset or a system value${suggest(id, visible(), (s) => s)}`)
      return ANY
    }

    function member (n: Node & { t: 'member' }, obj: Shape): Shape {
      const key = n.key
      if (obj.k === 'list') {
        if (/^\d+$/.test(key)) return obj.of
        if (key === 'length') return SCALAR
        fail(`${text(n)}: ${text(n.obj)} is a list (${obj.what}): use ${text(n.obj)}[0].${key}, ` +
          `count(${text(n.obj)}) or sum(${text(n.obj)}, "${key}")`)
        return ANY
      }
      if (obj.k !== 'record' || obj.fields === null) return ANY
      if (obj.fields.has(key)) return obj === paramsRecord ? (names.get(key) ?? ANY) : ANY
      const base = text(n.obj)
      fail(`${text(n)}: '${key}' is not a field ` +
        `of ${obj.what === 'params' ? 'the parameters' : obj.what}${suggest(key, obj.fields, (s) => `${base}.${s}`)}`)
      return ANY
    }

    resolve(tree)
  }

  /** `{{ … }}` parts of a text, as the compiler splits them. */
  function textParts (value: string, at: string, ctx: Ctx): void {
    let i = 0
    for (let open = value.indexOf('{{'); open >= 0; open = value.indexOf('{{', i)) {
      const close = value.indexOf('}}', open + 2)
      if (close < 0) return
      const src = value.slice(open + 2, close)
      expression(src, at, ctx, `{{${src}}}`)
      i = close + 2
    }
  }

  /** A bare expression member (`if`, table `rows`): `lines` or `{{ lines }}`. */
  function bare (value: unknown, at: string, ctx: Ctx): void {
    if (typeof value !== 'string') return
    const inner = /^\s*\{\{([\s\S]*)\}\}\s*$/.exec(value)?.[1]
    expression(inner ?? value, at, ctx, inner !== undefined ? value.trim() : `"${value}"`)
  }

  function visit (node: unknown, at: string, ctx: Ctx): void {
    if (typeof node === 'string') { if (node.includes('{{')) textParts(node, at, ctx); return }
    if (Array.isArray(node)) { node.forEach((v, i) => visit(v, `${at}/${i}`, ctx)); return }
    if (node === null || typeof node !== 'object') return
    const obj = node as Record<string, unknown>
    for (const [k, v] of Object.entries(obj)) {
      const p = `${at}/${esc(k)}`
      if (k === 'if') bare(v, p, ctx)
      else if (k === 'table' && v !== null && typeof v === 'object' && !Array.isArray(v)) table(v as Record<string, unknown>, p, ctx)
      else if (k === 'einvoice' && at === '/document' && v !== null && typeof v === 'object') {
        einvoice(v as Record<string, unknown>, p)
      } else visit(v, p, ctx)
    }
  }

  function table (t: Record<string, unknown>, at: string, outer: Ctx): void {
    const code = typeof t.rows === 'string' ? t.rows.replace(/^\s*\{\{([\s\S]*)\}\}\s*$/, '$1').trim() : ''
    const grouped = t.groupBy !== undefined
    const inRow: Ctx = { row: rowOf(code), group: false }
    const inGroup: Ctx = { row: inRow.row, group: true }
    for (const [k, v] of Object.entries(t)) {
      const p = `${at}/${esc(k)}`
      if (k === 'rows') bare(v, p, outer)
      else if (k === 'groupBy') visit(v, p, inRow)
      else if (k === 'groupHeader' || k === 'groupFooter') visit(v, p, inGroup)
      else if (k === 'columns' && Array.isArray(v)) {
        v.forEach((c: unknown, i) => {
          if (c === null || typeof c !== 'object') return
          const col = c as Record<string, unknown>
          visit(col.header, `${p}/${i}/header`, outer)
          visit(col.value, `${p}/${i}/value`, grouped ? inGroup : inRow)
        })
      } else visit(v, p, outer)
    }
  }

  /** `document.einvoice`: its lists (lines, allowances, charges, vat) bind `row` like a table. */
  function einvoice (e: Record<string, unknown>, at: string): void {
    for (const [k, v] of Object.entries(e)) {
      const p = `${at}/${esc(k)}`
      if (v === null || typeof v !== 'object' || Array.isArray(v) || !('rows' in v)) { visit(v, p, top); continue }
      const list = v as Record<string, unknown>
      bare(list.rows, `${p}/rows`, top)
      const code = typeof list.rows === 'string' ? list.rows.replace(/^\s*\{\{([\s\S]*)\}\}\s*$/, '$1').trim() : ''
      const inRow: Ctx = { row: rowOf(code), group: false }
      for (const [f, x] of Object.entries(list)) if (f !== 'rows') visit(x, `${p}/${esc(f)}`, inRow)
    }
  }

  const top: Ctx = { row: null, group: false }
  if (def.document !== undefined) visit(def.document, '/document', top)
  if (def.label !== undefined) {
    const inLabel: Ctx = { row: rowOf(def.label.rows), group: false }
    visit(def.label.zpl, '/label/zpl', inLabel)
    visit(def.label.copies, '/label/copies', inLabel)
    visit(def.label.elements, '/label/elements', inLabel)
  }
  return { errors, warnings }
}

/** Source-like text of a path node: `row.sku`, `lines[0].qty`, `lines[…]`. */
function text (n: Node): string {
  if (n.t === 'name') return n.name
  if (n.t === 'member') return /^\d+$/.test(n.key) ? `${text(n.obj)}[${n.key}]` : `${text(n.obj)}.${n.key}`
  if (n.t === 'index') return `${text(n.obj)}[…]`
  if (n.t === 'call') return `${n.name}(…)`
  return '…'
}

const esc = escapeToken

/** `; did you mean X?` for the closest candidate within a small edit distance, else ''. */
export function suggest (wrong: string, candidates: Iterable<string>, show: (s: string) => string): string {
  let best: string | null = null
  let bestD = Infinity
  for (const c of candidates) {
    const d = c.toLowerCase() === wrong.toLowerCase() ? 0 : distance(wrong, c)
    if (d < bestD) { best = c; bestD = d }
  }
  const limit = Math.max(1, Math.min(3, Math.floor(wrong.length / 3)))
  return best !== null && bestD <= limit ? `; did you mean ${show(best)}?` : ''
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
function distance (a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return Infinity
  // d(i, j): distance of a's first i and b's first j characters, row by row in one array.
  const w = b.length + 1
  const d = new Float64Array((a.length + 1) * w)
  const at = (i: number, j: number): number => d[i * w + j] ?? Infinity
  for (let j = 0; j <= b.length; j++) d[j] = j
  for (let i = 1; i <= a.length; i++) {
    d[i * w] = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i * w + j] = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i * w + j] = Math.min(at(i, j), at(i - 2, j - 2) + 1)
      }
    }
  }
  return at(a.length, b.length)
}
