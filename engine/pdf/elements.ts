// Measuring and drawing of the simple elements (everything but tables and page flow).
// measure() evaluates and prepares the element into its scratch fields and returns its height;
// draw() paints what measure() prepared. Always measure right before draw.
import type { EvalScope } from '../expr/expressions.js'
import { truthy } from '../expr/values.js'
import { drawBarcode, prepareBarcode } from './barcode.js'
import type { Canvas } from './canvas.js'
import { ALIGN_CENTER, ALIGN_LEFT, ALIGN_RIGHT, ALIGN_START, type Elem, type Style, type TextEl } from './model.js'
import { hyphenatorFor } from './hyphenate.js'
import { wrap } from './text.js'

/** Evaluates `if`; false means the element takes no space and draws nothing. */
export function isVisible (el: Elem, scope: EvalScope): boolean {
  el.visible = el.when === null || truthy(el.when(scope))
  return el.visible
}

export function measure (el: Elem, scope: EvalScope): number {
  if (!isVisible(el, scope)) return 0
  switch (el.kind) {
    case 'text': return measureText(el, scope)
    case 'columns': {
      let h = 0
      for (let c = 0; c < el.cols.length; c++) {
        let ch = 0
        const items = el.cols[c].items
        for (let i = 0; i < items.length; i++) ch += measure(items[i], scope)
        el.heights[c] = ch
        if (ch > h) h = ch
      }
      return h
    }
    case 'barcode': prepareBarcode(el, el.value(scope)); return el.h
    case 'line': return el.thickness + 4
    case 'rect': return el.height
    case 'image': return el.height
    case 'spacer': return el.height
    default: return 0
  }
}

export function measureText (el: TextEl, scope: EvalScope): number {
  if (el.cached !== null) {
    el.used = el.cachedStyle!
    el.lines = el.cached
    el.rtl = el.cachedRtl
    return el.lines.length * el.used.lineHeight
  }
  const s = el.text(scope)
  const st = el.style
  el.used = st
  // Hyphenated text depends on the render's language: never kept across renders.
  const hyphens = st.hyphenate ? hyphenatorFor(scope.context.language) : null
  if (el.constant && !st.hyphenate) {
    // Constant text wraps the same way every time: keep the lines for later renders.
    el.lines = []
    el.rtl = []
    wrap(st.face, st.size, s, el.width, el.maxLines, el.lines, el.rtl, el.direction)
    el.cached = el.lines
    el.cachedRtl = el.rtl
    el.cachedStyle = st
  } else {
    wrap(st.face, st.size, s, el.width, el.maxLines, el.lines, el.rtl, el.direction, hyphens)
  }
  return el.lines.length * st.lineHeight
}

export function draw (el: Elem, c: Canvas, x: number, y: number): void {
  if (!el.visible) return
  switch (el.kind) {
    case 'text': drawLines(c, el.used, el.lines, el.rtl, 0, el.lines.length, x, y, el.width, el.align); return
    case 'columns': {
      let cx = x
      for (let k = 0; k < el.cols.length; k++) {
        const col = el.cols[k]
        let cy = y
        // Items were measured (prepared) by measure(); heights are recomputed from scratch.
        for (let i = 0; i < col.items.length; i++) { const it = col.items[i]; draw(it, c, cx, cy); cy += heightOf(it) }
        cx += col.width + el.gap
      }
      return
    }
    case 'barcode': drawBarcode(el, c, x, y); return
    case 'line': c.line(x, y + 2 + el.thickness / 2, x + el.width, y + 2 + el.thickness / 2, el.color, el.thickness); return
    case 'rect':
      if (el.fill !== null) c.rect(x, y, el.width, el.height, el.fill)
      if (el.stroke !== null) c.strokeRect(x, y, el.width, el.height, el.stroke, el.thickness)
      return
    case 'image': {
      let ix = x
      if (el.align === ALIGN_CENTER) ix += (el.containerWidth - el.width) / 2
      else if (el.align === ALIGN_RIGHT) ix += el.containerWidth - el.width
      c.image(el.image, ix, y, el.width, el.height)
    }
  }
}

/** Height of an already measured element, without evaluating anything again. */
function heightOf (el: Elem): number {
  if (!el.visible) return 0
  switch (el.kind) {
    case 'text': return el.lines.length * el.used.lineHeight
    case 'columns': { let h = 0; for (const v of el.heights) if (v > h) h = v; return h }
    case 'barcode': return el.h
    case 'line': return el.thickness + 4
    case 'rect': case 'image': case 'spacer': return el.height
    default: return 0
  }
}

/** Draws lines [from, to) of a wrapped text in a box of `width` starting at (x, y). */
export function drawLines (
  c: Canvas,
  st: Style,
  lines: string[],
  rtl: boolean[],
  from: number,
  to: number,
  x: number,
  y: number,
  width: number,
  align: number
): void {
  const k = st.size / 1000
  for (let i = from; i < to; i++) {
    const s = lines[i]
    let lx = x
    const a = align === ALIGN_START ? (rtl[i] ? ALIGN_RIGHT : ALIGN_LEFT) : align
    if (a !== ALIGN_LEFT) {
      const w = st.face.width(s) * k
      lx += a === ALIGN_RIGHT ? width - w : (width - w) / 2
    }
    c.text(st, s, lx, y, rtl[i])
    y += st.lineHeight
  }
}

/** Measures and draws a flow without page breaks (headers, footers, group bands); returns its height. */
export function drawFlow (items: Elem[], scope: EvalScope, c: Canvas, x: number, y: number): number {
  const y0 = y
  for (let i = 0; i < items.length; i++) {
    const h = measure(items[i], scope)
    draw(items[i], c, x, y)
    y += h
  }
  return y - y0
}

export function measureFlow (items: Elem[], scope: EvalScope): number {
  let h = 0
  for (let i = 0; i < items.length; i++) h += measure(items[i], scope)
  return h
}
