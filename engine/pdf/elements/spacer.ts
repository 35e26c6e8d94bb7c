// `{ "spacer": 10 }`: empty vertical space, in points.
import { common, len, num } from './fields.js'
import type { ElementBase, ElementModule, SpecOf } from './types.js'

export interface SpacerEl extends ElementBase { kind: 'spacer', height: number }

const schema = {
  type: 'object',
  required: ['spacer'],
  additionalProperties: false,
  properties: { ...common, spacer: len }
} as const

export type SpacerSpec = SpecOf<typeof schema>

export const spacerElement: ElementModule<'spacer', SpacerEl, SpacerSpec> = {
  type: 'spacer',
  role: 'None',
  schema,
  flows: 'any',
  accepts: (v) => typeof v === 'number',
  compile: (spec, base, { path }) => ({ path: base.path, when: base.when, visible: base.visible, kind: 'spacer', height: num(spec.spacer, 0, `${path}.spacer`) }),
  measure: (el) => el.height,
  height: (el) => el.height,
  draw () {}
}
