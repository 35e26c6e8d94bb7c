// Drawing of wrapped text lines: text elements, table cells and headers.
import type { Canvas } from './canvas.js'
import { HYPHEN } from './hyphenate.js'
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
  // Tagged: every line but the paragraph's last reads with a word separator after it, unless it
  // ends in a hyphen (a hyphenated break, or a word that breaks after its own hyphen).
  const tagged = c.fonts.actualText
  for (let i = from; i < to; i++) {
    const s = lines[i] ?? ''
    let lx = x
    const a = align === ALIGN_START ? (rtl[i] === true ? ALIGN_RIGHT : ALIGN_LEFT) : align
    if (a !== ALIGN_LEFT) {
      const w = st.face.width(s) * k
      lx += a === ALIGN_RIGHT ? width - w : (width - w) / 2
    }
    c.text(st, s, lx, y, rtl[i], tagged && i < lines.length - 1 && !s.endsWith(HYPHEN))
    y += st.lineHeight
  }
}
