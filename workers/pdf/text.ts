// Line breaking: greedy at spaces, long words broken by characters, '\n' forces a break,
// optional maxLines with an ellipsis. Measures with the face's own widths (no kerning), the
// same widths the drawing code uses, so right-aligned and centred text lines up exactly.
import type { FontFace } from './fonts.js'
import { winAnsiOnly } from './metrics.js'
import type { Style } from './model.js'

const ELLIPSIS = '\u2026'

/** The style to draw `s` with: the fallback font when the standard font cannot show it. */
export function pickStyle (style: Style, fallback: Style | null, s: string): Style {
  if (fallback === null || style.face.std === null || winAnsiOnly(s)) return style
  return fallback
}

/**
 * Wraps `s` into `out` (cleared first) for a box `width` points wide.
 * Returns the number of lines (0 for an empty string).
 */
export function wrap (face: FontFace, size: number, s: string, width: number, maxLines: number, out: string[]): number {
  out.length = 0
  if (s.length === 0) return 0
  const units = width * 1000 / size
  // Fast path, the common table cell: one line that fits.
  if (s.indexOf('\n') < 0 && face.width(s) <= units) { out.push(s); return 1 }
  const paras = s.split('\n')
  const limit = maxLines > 0 ? maxLines + 1 : Infinity
  for (let p = 0; p < paras.length && out.length < limit; p++) wrapPara(face, paras[p], units, limit, out)
  if (maxLines > 0 && out.length > maxLines) {
    out.length = maxLines
    out[maxLines - 1] = ellipsize(face, out[maxLines - 1], units)
  }
  return out.length
}

function wrapPara (face: FontFace, para: string, units: number, limit: number, out: string[]): void {
  if (face.width(para) <= units) { out.push(para); return }
  const words = para.split(' ')
  const space = face.width(' ')
  let line = ''
  let lineW = 0
  for (let i = 0; i < words.length && out.length < limit; i++) {
    let word = words[i]
    let w = face.width(word)
    if (line.length > 0 && lineW + space + w <= units) { line += ' ' + word; lineW += space + w; continue }
    if (line.length > 0) { out.push(line); line = ''; lineW = 0 }
    // A word wider than the box: cut it into pieces that fit.
    while (w > units && word.length > 1 && out.length < limit) {
      let n = cutPoint(face, word, units)
      if (n < 1) n = 1
      out.push(word.slice(0, n))
      word = word.slice(n)
      w = face.width(word)
    }
    line = word
    lineW = w
  }
  if (line.length > 0 && out.length < limit) out.push(line)
}

/** How many leading characters of `word` fit in `units`. */
function cutPoint (face: FontFace, word: string, units: number): number {
  let lo = 1; let hi = word.length
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (face.width(word.slice(0, mid)) <= units) lo = mid
    else hi = mid - 1
  }
  return lo
}

function ellipsize (face: FontFace, line: string, units: number): string {
  const ew = face.width(ELLIPSIS)
  let s = line.trimEnd()
  while (s.length > 0 && face.width(s) + ew > units) s = s.slice(0, -1).trimEnd()
  return s + ELLIPSIS
}
