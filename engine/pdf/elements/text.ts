// `{ "text": "Total {{ sum(lines, \"amount\") }}", "style": "total", "align": "right" }`: a
// paragraph, wrapped to its width; in the page flow it continues on the next page line by line.
import { compileText, isConstantText, type CompiledText, type EvalScope } from '../../expr/expressions.js'
import type { Direction } from '../bidi.js'
import { drawLines } from '../draw-lines.js'
import { hyphenatorFor } from '../hyphenate.js'
import { ALIGN_START, type Style } from '../model.js'
import { wrap } from '../text.js'
import { align, alignOf, common, direction, directionOf, HEADING, len, num, styleProps } from './fields.js'
import type { ElementBase, ElementModule, PageFlow, SpecOf, Structure } from './types.js'

export interface TextEl extends ElementBase {
  kind: 'text'
  text: CompiledText
  constant: boolean
  style: Style
  align: number
  direction: Direction
  maxLines: number
  width: number
  /** Tagged: 1–6 a heading (H1–H6), 0 a paragraph (P). */
  heading: number
  /** Scratch: wrapped lines, whether each is right-to-left, and the style they were measured with. */
  lines: string[]
  rtl: boolean[]
  used: Style
  /** For constant text: lines wrapped on first use, kept for later renders. */
  cached: string[] | null
  cachedRtl: boolean[]
  cachedStyle: Style | null
}

const schema = {
  type: 'object',
  required: ['text'],
  additionalProperties: false,
  properties: {
    ...common,
    text: { type: ['string', 'number'] },
    style: { type: 'string' },
    ...styleProps,
    align,
    direction,
    maxLines: { type: 'integer', minimum: 0 },
    width: len,
    /** A heading (H1–H6) in a tagged PDF, not a paragraph (issue 34); overrides the style's. */
    heading: HEADING
  }
} as const

export type TextSpec = SpecOf<typeof schema>

/** By heading level: the structure type instead of P (index 0: none). */
const HEADINGS: Array<Structure | undefined> = [undefined, ...[1, 2, 3, 4, 5, 6].map((n) => ({ type: 'H' + n }))]

export const textElement: ElementModule<'text', TextEl, TextSpec> = {
  type: 'text',
  role: 'P',
  schema,
  flows: 'any',
  accepts: (v) => typeof v === 'string' || typeof v === 'number',
  compile (spec, base, { path, width }, ctx) {
    const src = String(spec.text)
    const style = ctx.styles.resolve(spec, path)
    const w = spec.width === undefined ? width : Math.min(width, num(spec.width, width, `${path}.width`))
    return {
      path: base.path,
      when: base.when,
      visible: base.visible,
      kind: 'text',
      text: compileText(src, `${path}.text`),
      constant: isConstantText(src),
      style,
      align: alignOf(spec.align, `${path}.align`, ALIGN_START),
      direction: directionOf(spec.direction, `${path}.direction`),
      maxLines: num(spec.maxLines, 0, `${path}.maxLines`),
      width: w,
      heading: spec.heading ?? ctx.styles.heading(spec.style),
      lines: [],
      rtl: [],
      used: style,
      cached: null,
      cachedRtl: [],
      cachedStyle: null
    }
  },
  measure: measureText,
  height: (el) => el.lines.length * el.used.lineHeight,
  draw (el, c, x, y) { drawLines(c, el.used, el.lines, el.rtl, 0, el.lines.length, x, y, el.width, el.align) },
  structure: (el) => HEADINGS[el.heading],
  flow: flowText
}

function measureText (el: TextEl, scope: EvalScope): number {
  if (el.cached !== null && el.cachedStyle !== null) {
    el.used = el.cachedStyle
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

/** Text may continue on the next page, line by line. */
function flowText (el: TextEl, p: PageFlow, x: number): void {
  measureText(el, p.scope)
  const n = el.lines.length
  const lh = el.used.lineHeight
  let i = 0
  while (i < n) {
    let fit = Math.floor((p.bottom - p.y + 0.001) / lh)
    if (fit <= 0) {
      if (p.y > p.top) { p.newPage(); continue }
      fit = 1 // a line taller than the page: draw it anyway
    }
    const to = Math.min(n, i + fit)
    drawLines(p.body, el.used, el.lines, el.rtl, i, to, x, p.y, el.width, el.align)
    p.y += (to - i) * lh
    i = to
    if (i < n) p.newPage()
  }
}
