// `{ "table": { "rows": "lines", "columns": [{ "header": "Qty", "value": "{{ row.qty }}" }] } }`:
// one row per item of a list, a header repeated after page breaks, optional groups with
// header and footer bands. Laid out by the page flow (../table.ts), so only in body,
// reportHeader and summary: a box (column, band, page header) never holds one.
import { compileText, type CompiledExpr, type CompiledText } from '../../expr/expressions.js'
import { RenderError } from '../../errors.js'
import type { Direction } from '../bidi.js'
import { ALIGN_START, type Style } from '../model.js'
import { color as colorOf, fail, resolveWidths } from '../styles.js'
import { layoutTable } from '../table.js'
import {
  align, alignOf, color, common, direction, directionOf, expr, exprOf, flow, len, num, obj, styleProps, text, width
} from './fields.js'
import type { Elem, ElementSpec } from './index.js'
import type { ElementBase, ElementModule, SpecOf } from './types.js'

export interface TableColumn {
  header: CompiledText
  value: CompiledText
  width: number
  align: number
  direction: Direction
  maxLines: number
  /** Scratch: wrapped lines of the current row and their directions. */
  lines: string[]
  rtl: boolean[]
  used: Style
}

export interface TableEl extends ElementBase {
  kind: 'table'
  rows: CompiledExpr
  columns: TableColumn[]
  width: number
  style: Style
  headerStyle: Style
  headerFill: string | null
  zebra: string | null
  lineColor: string | null
  padding: number
  repeatHeader: boolean
  showHeader: boolean
  groupBy: CompiledText | null
  groupHeader: Elem[]
  groupFooter: Elem[]
  /** Scratch: header lines per column. */
  headerLines: string[][]
  headerRtl: boolean[][]
  headerUsed: Style[]
}

const schema = {
  type: 'object',
  required: ['table'],
  additionalProperties: false,
  properties: {
    ...common,
    table: {
      type: 'object',
      required: ['rows', 'columns'],
      additionalProperties: false,
      properties: {
        rows: expr,
        style: { type: 'string' },
        ...styleProps,
        headerStyle: { type: 'string' },
        headerFill: color,
        zebra: color,
        lineColor: color,
        padding: len,
        repeatHeader: { type: 'boolean' },
        header: { type: 'boolean' },
        groupBy: expr,
        groupHeader: flow('element'),
        groupFooter: flow('element'),
        columns: {
          type: 'array',
          minItems: 1,
          maxItems: 100,
          items: {
            type: 'object',
            additionalProperties: false,
            properties: {
              header: text, value: text, width, align, direction, maxLines: { type: 'integer', minimum: 0 }
            }
          }
        }
      }
    }
  }
} as const

/** What the schema alone gives (for the type test): the group bands come out as unknown[]. */
export type TableSpecDerived = SpecOf<typeof schema>
type Table = TableSpecDerived['table']
/** The group bands, hand-typed: lists of the schema's `element` (the recursive slot, see SpecOf). */
export interface GroupBands<E> { groupHeader?: E[], groupFooter?: E[] }
export type TableSpec = Omit<TableSpecDerived, 'table'> & {
  table: Omit<Table, 'groupHeader' | 'groupFooter'> & GroupBands<ElementSpec>
}

export const tableElement: ElementModule<'table', TableEl, TableSpec, 'body'> = {
  type: 'table',
  role: 'Table',
  schema,
  flows: 'body',
  compile (spec, base, { path, width: total }, ctx) {
    const p = `${path}.table`
    const t = obj(spec.table, p)
    if (!Array.isArray(t.columns) || t.columns.length === 0) {
      throw fail(`${p}.columns`, 'a table needs at least one column')
    }
    const specs = t.columns.map((c, i) => obj(c, `${p}.columns[${i}]`))
    const widths = resolveWidths(specs.map((c) => c.width), total, 0, `${p}.columns`)
    const style = ctx.styles.resolve(t, p)
    const headerStyle = t.headerStyle === undefined ? style : ctx.styles.resolve(t, p, 'headerStyle')
    const padding = num(t.padding, 3, `${p}.padding`)
    const columns = specs.map((c, i): TableColumn => {
      const cp = `${p}.columns[${i}]`
      const w = widths[i] ?? 0
      if (w <= 2 * padding) throw fail(`${cp}.width`, 'column narrower than its padding')
      return {
        header: compileText(String((c.header as string | number | undefined) ?? ''), `${cp}.header`),
        value: compileText(String((c.value as string | number | undefined) ?? ''), `${cp}.value`),
        width: w,
        align: alignOf(c.align, `${cp}.align`, ALIGN_START),
        direction: directionOf(c.direction, `${cp}.direction`),
        maxLines: num(c.maxLines, 0, `${cp}.maxLines`),
        lines: [],
        rtl: [],
        used: style
      }
    })
    const opt = (k: string): string | null => (t[k] === undefined || t[k] === null ? null : colorOf(t[k], `${p}.${k}`))
    return {
      path: base.path,
      when: base.when,
      visible: base.visible,
      kind: 'table',
      rows: exprOf(t.rows, `${p}.rows`),
      columns,
      width: total,
      style,
      headerStyle,
      headerFill: opt('headerFill'),
      zebra: opt('zebra'),
      lineColor: opt('lineColor'),
      padding,
      repeatHeader: t.repeatHeader !== false,
      showHeader: t.header !== false,
      groupBy: t.groupBy === undefined ? null : compileText(typeof t.groupBy === 'string' ? t.groupBy : JSON.stringify(t.groupBy), `${p}.groupBy`),
      groupHeader: ctx.items(t.groupHeader ?? [], `${p}.groupHeader`, total, false),
      groupFooter: ctx.items(t.groupFooter ?? [], `${p}.groupFooter`, total, false),
      headerLines: columns.map(() => []),
      headerRtl: columns.map(() => []),
      headerUsed: columns.map(() => headerStyle)
    }
  },
  // A box never holds a table (compile and the schema keep it to body flows): these never run.
  measure: outsideFlow,
  height: outsideFlow,
  draw: outsideFlow,
  flow: layoutTable
}

function outsideFlow (el: TableEl): never {
  throw new RenderError('RENDER_FAILED', `${el.path}: a table is laid out by the page flow only`)
}
