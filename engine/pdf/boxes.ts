// Measuring and drawing of elements in a box without page breaks (page header and footer,
// columns, group bands), by their modules (elements/index.ts). measure() evaluates and prepares
// the element into its scratch fields and returns its height; draw() paints what measure()
// prepared. Always measure right before draw.
import type { EvalScope } from '../expr/expressions.js'
import { truthy } from '../expr/values.js'
import type { Canvas } from './canvas.js'
import { moduleOf, type Elem } from './elements/index.js'
import type { Boxes } from './elements/types.js'

/** Evaluates `if`; false means the element takes no space and draws nothing. */
export function isVisible (el: Elem, scope: EvalScope): boolean {
  el.visible = el.when === null || truthy(el.when(scope))
  return el.visible
}

export function measure (el: Elem, scope: EvalScope): number {
  if (!isVisible(el, scope)) return 0
  return moduleOf(el).measure(el, scope, BOXES)
}

export function draw (el: Elem, c: Canvas, x: number, y: number): void {
  if (!el.visible) return
  const m = moduleOf(el)
  const tags = c.tags
  if (tags === null) { m.draw(el, c, x, y, BOXES); return }
  const opened = tags.enter(m, el, c, x, y)
  m.draw(el, c, x, y, BOXES)
  tags.leave(m, opened, c)
}

/** Height of an already measured element, without evaluating anything again. */
function heightOf (el: Elem): number {
  return el.visible ? moduleOf(el).height(el, BOXES) : 0
}

/** What a module that holds other elements (columns) measures and draws them with. */
const BOXES: Boxes = { measure, height: heightOf, draw }

/** Measures and draws a flow without page breaks (headers, footers, group bands); returns its height. */
export function drawFlow (items: Elem[], scope: EvalScope, c: Canvas, x: number, y: number): number {
  const y0 = y
  for (const el of items) {
    const h = measure(el, scope)
    draw(el, c, x, y)
    y += h
  }
  return y - y0
}

export function measureFlow (items: Elem[], scope: EvalScope): number {
  let h = 0
  for (const el of items) h += measure(el, scope)
  return h
}
