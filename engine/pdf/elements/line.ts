// `{ "line": { "color": "#cccccc", "thickness": 0.5 } }`: a horizontal rule with 2 pt above and below.
import { color as colorOf } from '../styles.js'
import { color, common, len, num, obj } from './fields.js'
import type { ElementBase, ElementModule, SpecOf } from './types.js'

export interface LineEl extends ElementBase { kind: 'line', color: string, thickness: number, width: number }

const schema = {
  type: 'object',
  required: ['line'],
  additionalProperties: false,
  properties: {
    ...common,
    line: { type: 'object', additionalProperties: false, properties: { color, thickness: len, width: len } }
  }
} as const

export type LineSpec = SpecOf<typeof schema>

export const lineElement: ElementModule<'line', LineEl, LineSpec> = {
  type: 'line',
  role: 'Artifact',
  schema,
  flows: 'any',
  compile (spec, base, { path, width }) {
    const l = obj(spec.line, `${path}.line`)
    return {
      path: base.path,
      when: base.when,
      visible: base.visible,
      kind: 'line',
      color: colorOf(l.color ?? '#000000', `${path}.line.color`),
      thickness: num(l.thickness, 0.5, `${path}.line.thickness`),
      width: Math.min(width, num(l.width, width, `${path}.line.width`))
    }
  },
  measure: (el) => el.thickness + 4,
  height: (el) => el.thickness + 4,
  draw (el, c, x, y) {
    const ly = y + 2 + el.thickness / 2
    c.line(x, ly, x + el.width, ly, el.color, el.thickness)
  }
}
