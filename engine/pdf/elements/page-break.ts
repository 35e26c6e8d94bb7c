// `{ "pageBreak": true }`: the body continues on a new page (unless the page is still empty).
// In a box (a column, a band, a page header) it takes no space and does nothing.
import { common } from './fields.js'
import type { ElementBase, ElementModule, SpecOf } from './types.js'

export interface BreakEl extends ElementBase { kind: 'pageBreak' }

const schema = {
  type: 'object',
  required: ['pageBreak'],
  additionalProperties: false,
  properties: { ...common, pageBreak: { const: true } }
} as const

export type PageBreakSpec = SpecOf<typeof schema>

export const pageBreakElement: ElementModule<'pageBreak', BreakEl, PageBreakSpec> = {
  type: 'pageBreak',
  role: 'None',
  schema,
  flows: 'any',
  accepts: (v) => v === true,
  compile: (_spec, base) => ({ path: base.path, when: base.when, visible: base.visible, kind: 'pageBreak' }),
  measure: () => 0,
  height: () => 0,
  draw () {},
  flow (_el, p) { if (p.y > p.top) p.newPage() }
}
