// Page geometry, colours, named styles and width specs: everything resolved at compile time.
import { TemplateError } from '../errors.js'
import { FontStack } from './font-stack.js'
import type { FontSet } from './fonts.js'
import type { Style } from './model.js'

const SIZES: Record<string, [number, number]> = {
  A3: [841.89, 1190.55],
  A4: [595.28, 841.89],
  A5: [419.53, 595.28],
  A6: [297.64, 419.53],
  LETTER: [612, 792],
  LEGAL: [612, 1008],
  TABLOID: [792, 1224]
}

export function fail (path: string, message: string): TemplateError {
  return new TemplateError(`${path}: ${message}`, [{ path, message }])
}

export function pageSize (size: unknown, orientation: unknown, path: string): [number, number] {
  let wh: [number, number] | undefined
  const [w, h]: unknown[] = Array.isArray(size) && size.length === 2 ? size as unknown[] : []
  if (typeof w === 'number' && w > 0 && typeof h === 'number' && h > 0) wh = [w, h]
  else if (size === undefined) wh = SIZES.A4
  else if (typeof size === 'string') wh = SIZES[size.toUpperCase()]
  if (wh === undefined) {
    throw fail(`${path}.size`, `unknown page size ${JSON.stringify(size)}: ` +
    `use ${Object.keys(SIZES).join(', ')} or [width, height] in points`)
  }
  const [a, b] = wh
  return orientation === 'landscape' ? [Math.max(a, b), Math.min(a, b)] : [Math.min(a, b), Math.max(a, b)]
}

/** Margins as CSS does it: n, [vertical, horizontal] or [top, right, bottom, left]. */
export function margins (m: unknown, path: string): { top: number, right: number, bottom: number, left: number } {
  if (m === undefined) return { top: 40, right: 40, bottom: 40, left: 40 }
  if (typeof m === 'number') return { top: m, right: m, bottom: m, left: m }
  if (Array.isArray(m) && m.every((n): n is number => typeof n === 'number' && n >= 0)) {
    const [a, b, c, d] = m
    if (m.length === 2 && a !== undefined && b !== undefined) return { top: a, right: b, bottom: a, left: b }
    if (m.length === 4 && a !== undefined && b !== undefined && c !== undefined && d !== undefined) {
      return { top: a, right: b, bottom: c, left: d }
    }
  }
  throw fail(path, 'margins must be a number, [vertical, horizontal] or [top, right, bottom, left]')
}

const NAMED: Record<string, string> = {
  black: '#000000',
  white: '#ffffff',
  gray: '#808080',
  grey: '#808080',
  red: '#ff0000',
  green: '#008000',
  blue: '#0000ff'
}

/** "#rgb" / "#rrggbb" / a few names → "r g b" fill operands. */
export function color (c: unknown, path: string): string {
  const s = typeof c === 'string' ? (NAMED[c.toLowerCase()] ?? c) : ''
  let m = /^#([0-9a-f]{6})$/i.exec(s)
  let hex = m?.[1]
  if (hex === undefined) {
    m = /^#([0-9a-f]{3})$/i.exec(s)
    hex = m?.[1]?.split('').map((d) => d + d).join('')
  }
  if (hex === undefined) throw fail(path, `invalid colour ${JSON.stringify(c)}: use #rrggbb`)
  const n = parseInt(hex, 16)
  const ch = (v: number): string => String(Math.round(v / 255 * 1000) / 1000)
  return ch(n >> 16) + ' ' + ch((n >> 8) & 255) + ' ' + ch(n & 255)
}

/** `font`: one font or a stack of them, first choice first; `hyphenate`: see hyphenate.ts. */
export interface StyleSpec {
  font?: string | string[]
  size?: number
  color?: string
  lineGap?: number
  hyphenate?: boolean
  /** Tagged: text in this style is a heading of this level (H1–H6). */
  heading?: number
}

export class StyleBook {
  private readonly named: Record<string, StyleSpec>
  private readonly base: StyleSpec
  private readonly fonts: FontSet
  private readonly fallbackFont: string | null
  private readonly memo = new Map<string, Style>()
  private readonly stacks = new Map<string, FontStack>()

  constructor (
    named: Record<string, StyleSpec> | undefined,
    base: StyleSpec | undefined,
    fonts: FontSet,
    fallbackFont: string | null
  ) {
    this.named = named ?? {}
    this.base = { font: 'Helvetica', size: 10, color: '#000000', lineGap: 0, hyphenate: false, ...base }
    this.fonts = fonts
    this.fallbackFont = fallbackFont
  }

  /** The style for an element: defaults, then its named style, then its own font/size/color/lineGap/hyphenate. */
  resolve (el: Record<string, unknown>, path: string, styleKey = 'style'): Style {
    const name = el[styleKey]
    let spec: StyleSpec = this.base
    if (name !== undefined) {
      if (typeof name !== 'string' || !Object.hasOwn(this.named, name)) {
        throw fail(`${path}.${styleKey}`, `unknown style ${JSON.stringify(name)}`)
      }
      spec = { ...spec, ...this.named[name] }
    }
    if (styleKey === 'style') {
      for (const k of ['font', 'size', 'color', 'lineGap', 'hyphenate'] as const) {
        if (el[k] !== undefined) spec = { ...spec, [k]: el[k] }
      }
    }
    return this.build(spec, path)
  }

  /**
   * The heading level (0: none) of text in the named style: its `heading`, else 1 for the style
   * named `title` (the document's title, H1), else 0.
   */
  heading (name: unknown): number {
    if (typeof name !== 'string' || !Object.hasOwn(this.named, name)) return 0
    return this.named[name]?.heading ?? (name === 'title' ? 1 : 0)
  }

  private build (spec: StyleSpec, path: string): Style {
    const key = `${JSON.stringify(spec.font)}|${spec.size}|${spec.color}|${spec.lineGap}|${spec.hyphenate === true}`
    let st = this.memo.get(key)
    if (st === undefined) {
      if (typeof spec.size !== 'number' || spec.size <= 0) throw fail(path, 'font size must be a positive number')
      const face = this.stack(spec.font, path)
      st = makeStyle(face, spec.size, color(spec.color, path), spec.lineGap ?? 0, spec.hyphenate === true)
      this.memo.set(key, st)
    }
    return st
  }

  /** The style's fonts, then `fallbackFont`, then the template's font assets (the defaults follow in FontStack). */
  private stack (font: StyleSpec['font'], path: string): FontStack {
    const names = Array.isArray(font) ? font.map(String) : [String(font)]
    if (names.length === 0) throw fail(`${path}.font`, 'a font stack needs at least one font')
    if (this.fallbackFont !== null) names.push(this.fallbackFont)
    names.push(...this.fonts.assetNames())
    const unique = [...new Set(names)]
    const key = unique.join('\n')
    let stack = this.stacks.get(key)
    if (stack === undefined) {
      const faces = unique.map((n) => this.fonts.get(n, path))
      stack = new FontStack(this.fonts, faces)
      this.stacks.set(key, stack)
    }
    return stack
  }
}

// A line is ascender + descender + the font's own line gap (as pdfkit and word processors do):
// without the gap Helvetica lines are 0.925 em apart and accented capitals touch the line above.
// Half the gap goes above the text, half below, so text sits centred in its line (and cell).
function makeStyle (face: Style['face'], size: number, colorOps: string, lineGap: number, hyphenate: boolean): Style {
  return {
    face,
    size,
    color: colorOps,
    lineGap,
    ascent: ((face.ascender + face.lineGap / 2) * size) / 1000,
    lineHeight: ((face.ascender - face.descender + face.lineGap) * size) / 1000 + lineGap,
    hyphenate
  }
}

/** Resolves width specs (points, "50%", "*", "2*") against `total`, `gap` between items. */
export function resolveWidths (specs: unknown[], total: number, gap: number, path: string): number[] {
  const avail = total - gap * Math.max(0, specs.length - 1)
  const out = new Array<number>(specs.length).fill(0)
  let used = 0; let stars = 0
  const weights = new Array<number>(specs.length).fill(0)
  specs.forEach((s, i) => {
    const spec = s ?? '*'
    if (typeof spec === 'number' && spec >= 0) { out[i] = spec; used += spec; return }
    if (typeof spec === 'string') {
      const pct = /^(\d+(?:\.\d+)?)%$/.exec(spec)
      if (pct !== null) { out[i] = avail * Number(pct[1]) / 100; used += out[i]; return }
      const star = /^(\d+(?:\.\d+)?)?\*$/.exec(spec)
      // An optional regex group is undefined when it did not take part.
      if (star !== null) { weights[i] = star[1] === undefined ? 1 : Number(star[1]); stars += weights[i]; return }
    }
    throw fail(`${path}[${i}].width`, `invalid width ${JSON.stringify(spec)}: use points, "50%" or "*"`)
  })
  const rest = avail - used
  if (rest < -0.01) {
    throw fail(path, `column widths (${Math.round(used)}pt) exceed the available ${Math.round(avail)}pt`)
  }
  if (stars > 0) weights.forEach((w, i) => { if (w > 0) out[i] = rest * w / stars })
  return out
}
