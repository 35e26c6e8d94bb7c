// Drawing of wrapped text lines: text elements, table cells and headers.
import type { Canvas } from './canvas.js'
import { ALIGN_LEFT, ALIGN_RIGHT, ALIGN_START, type Style } from './model.js'

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
    const s = lines[i] ?? ''
    let lx = x
    const a = align === ALIGN_START ? (rtl[i] === true ? ALIGN_RIGHT : ALIGN_LEFT) : align
    if (a !== ALIGN_LEFT) {
      const w = st.face.width(s) * k
      lx += a === ALIGN_RIGHT ? width - w : (width - w) / 2
    }
    c.text(st, s, lx, y, rtl[i])
    y += st.lineHeight
  }
}
