// `{ "columns": [{ "width": "50%", "items": [ … ] }, { "items": [ … ] }], "gap": 10 }`: side by
// side boxes of elements (no tables); as high as the highest, moved to the next page whole.
import { resolveWidths } from '../styles.js'
import { common, flow, len, num, obj, width } from './fields.js'
import type { Elem, ElementSpec } from './index.js'
import type { ElementBase, ElementModule, SpecOf } from './types.js'

export interface Column { width: number, items: Elem[] }
export interface ColumnsEl extends ElementBase { kind: 'columns', gap: number, cols: Column[], heights: number[] }

const schema = {
  type: 'object',
  required: ['columns'],
  additionalProperties: false,
  properties: {
    ...common,
    gap: len,
    columns: {
      type: 'array',
      minItems: 1,
      maxItems: 50,
      items: { type: 'object', additionalProperties: false, properties: { width, items: flow('element') } }
    }
  }
} as const

/** One column as the template writes it; `E`: its items (the recursive slot, see SpecOf). */
export interface ColumnSpec<E> { width?: number | string, items?: E[] }
/** Derived from the schema, but for the items of each column: the schema's `element`, hand-typed. */
export type ColumnsSpec = Omit<SpecOf<typeof schema>, 'columns'> & { columns: Array<ColumnSpec<ElementSpec>> }
/** What the schema alone gives (for the type test). */
export type ColumnsSpecDerived = SpecOf<typeof schema>

export const columnsElement: ElementModule<'columns', ColumnsEl, ColumnsSpec> = {
  type: 'columns',
  role: 'Div',
  schema,
  flows: 'any',
  accepts: (v) => Array.isArray(v),
  compile (spec, base, { path, width: total }, ctx) {
    const gap = num(spec.gap, 10, `${path}.gap`)
    const specs = spec.columns.map((c, i) => obj(c, `${path}.columns[${i}]`))
    const widths = resolveWidths(specs.map((c) => c.width), total, gap, `${path}.columns`)
    const cols = specs.map((c, i) => {
      const w = widths[i] ?? 0
      return { width: w, items: ctx.items(c.items ?? [], `${path}.columns[${i}].items`, w, false) }
    })
    return { path: base.path, when: base.when, visible: base.visible, kind: 'columns', gap, cols, heights: cols.map(() => 0) }
  },
  measure (el, scope, boxes) {
    let h = 0
    let c = 0
    for (const col of el.cols) {
      let ch = 0
      for (const it of col.items) ch += boxes.measure(it, scope)
      el.heights[c++] = ch
      if (ch > h) h = ch
    }
    return h
  },
  height (el) { let h = 0; for (const v of el.heights) if (v > h) h = v; return h },
  draw (el, c, x, y, boxes) {
    let cx = x
    for (const col of el.cols) {
      let cy = y
      // Items were measured (prepared) by measure(); heights are recomputed from scratch.
      for (const it of col.items) { boxes.draw(it, c, cx, cy); cy += boxes.height(it) }
      cx += col.width + el.gap
    }
  }
}
