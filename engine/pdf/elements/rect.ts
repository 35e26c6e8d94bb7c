// `{ "rect": { "height": 20, "fill": "#eeeeee", "stroke": "#999999" } }`: a filled and/or stroked box.
import { color as colorOf } from '../styles.js'
import { color, common, len, num, obj } from './fields.js'
import type { ElementBase, ElementModule, SpecOf } from './types.js'

export interface RectEl extends ElementBase {
  kind: 'rect'
  width: number
  height: number
  fill: string | null
  stroke: string | null
  thickness: number
}

const schema = {
  type: 'object',
  required: ['rect'],
  additionalProperties: false,
  properties: {
    ...common,
    rect: {
      type: 'object',
      additionalProperties: false,
      properties: { width: len, height: len, fill: color, stroke: color, thickness: len }
    }
  }
} as const

export type RectSpec = SpecOf<typeof schema>

export const rectElement: ElementModule<'rect', RectEl, RectSpec> = {
  type: 'rect',
  role: 'Artifact',
  schema,
  flows: 'any',
  compile (spec, base, { path, width }) {
    const r = obj(spec.rect, `${path}.rect`)
    return {
      path: base.path,
      when: base.when,
      visible: base.visible,
      kind: 'rect',
      width: Math.min(width, num(r.width, width, `${path}.rect.width`)),
      height: num(r.height, 10, `${path}.rect.height`),
      fill: r.fill === undefined ? null : colorOf(r.fill, `${path}.rect.fill`),
      stroke: r.stroke === undefined ? null : colorOf(r.stroke, `${path}.rect.stroke`),
      thickness: num(r.thickness, 0.5, `${path}.rect.thickness`)
    }
  },
  measure: (el) => el.height,
  height: (el) => el.height,
  draw (el, c, x, y) {
    if (el.fill !== null) c.rect(x, y, el.width, el.height, el.fill)
    if (el.stroke !== null) c.strokeRect(x, y, el.width, el.height, el.stroke, el.thickness)
  }
}
