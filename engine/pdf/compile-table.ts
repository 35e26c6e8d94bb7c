// Compiles a `table` element: column widths, cell texts, styles, grouping.
import { compileText } from '../expr/expressions.js'
import type { CompiledExpr } from '../expr/expressions.js'
import { align, compileItems, direction, expr, num, obj, type Ctx } from './compile.js'
import { ALIGN_START, type TableEl } from './model.js'
import { color, fail, resolveWidths } from './styles.js'

export function compileTable (
  t: Record<string, unknown>,
  base: { path: string, when: CompiledExpr | null, visible: boolean },
  path: string,
  width: number,
  ctx: Ctx
): TableEl {
  if (!Array.isArray(t.columns) || t.columns.length === 0) { throw fail(`${path}.columns`, 'a table needs at least one column') }
  const specs = t.columns.map((c, i) => obj(c, `${path}.columns[${i}]`))
  const widths = resolveWidths(
    specs.map((c) => c.width),
    width,
    0,
    `${path}.columns`
  )
  const style = ctx.styles.resolve(t, path)
  const headerStyle = t.headerStyle === undefined ? style : ctx.styles.resolve(t, path, 'headerStyle')
  const padding = num(t.padding, 3, `${path}.padding`)
  const columns = specs.map((c, i) => {
    const p = `${path}.columns[${i}]`
    if (widths[i] <= 2 * padding) throw fail(`${p}.width`, 'column narrower than its padding')
    return {
      header: compileText(String(c.header ?? ''), `${p}.header`),
      value: compileText(String(c.value ?? ''), `${p}.value`),
      width: widths[i],
      align: align(c.align, `${p}.align`, ALIGN_START),
      direction: direction(c.direction, `${p}.direction`),
      maxLines: num(c.maxLines, 0, `${p}.maxLines`),
      lines: [] as string[],
      rtl: [] as boolean[],
      used: style
    }
  })
  const opt = (k: string): string | null => (t[k] === undefined || t[k] === null ? null : color(t[k], `${path}.${k}`))
  return {
    ...base,
    kind: 'table',
    rows: expr(t.rows, `${path}.rows`),
    columns,
    width,
    style,
    headerStyle,
    headerFill: opt('headerFill'),
    zebra: opt('zebra'),
    lineColor: opt('lineColor'),
    padding,
    repeatHeader: t.repeatHeader !== false,
    showHeader: t.header !== false,
    groupBy: t.groupBy === undefined ? null : compileText(String(t.groupBy), `${path}.groupBy`),
    groupHeader: compileItems(t.groupHeader ?? [], `${path}.groupHeader`, width, ctx, false),
    groupFooter: compileItems(t.groupFooter ?? [], `${path}.groupFooter`, width, ctx, false),
    headerLines: columns.map(() => []),
    headerRtl: columns.map(() => []),
    headerUsed: columns.map(() => headerStyle)
  }
}
