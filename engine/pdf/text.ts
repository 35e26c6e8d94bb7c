// Line breaking by UAX #14 (the `linebreak` package): greedy, at the break opportunities of
// every script (spaces in Latin text, between characters in Chinese and Japanese, never before
// closing punctuation); a piece wider than the box is cut by characters; '\n' forces a break;
// optional maxLines with an ellipsis. With a hyphenator (hyphenate.ts), a word that does not fit
// the rest of its line breaks at its last hyphenation point that fits, with a hyphen drawn,
// before any cut by characters; words that fit are never hyphenated. Lines stay in logical
// order: each line records whether its paragraph runs right to left (bidi.ts draws it). Widths
// come from the font stack, the same widths the drawing code uses, so right-aligned and centred
// text lines up.
import LineBreaker from 'linebreak'
import { paragraphRtl, type Direction } from './bidi.js'
import type { FontStack } from './font-stack.js'
import { HYPHEN, type Hyphenator } from './hyphenate.js'
import { emptied } from '../lists.js'

const ELLIPSIS = '\u2026'
const pieces: string[] = []

/**
 * Wraps `s` into `out` (cleared first) for a box `width` points wide; `rtl[i]` tells whether
 * line i belongs to a right-to-left paragraph. Returns the number of lines (0 for "").
 */
export function wrap (
  stack: FontStack,
  size: number,
  s: string,
  width: number,
  maxLines: number,
  out: string[],
  rtl: boolean[],
  direction: Direction,
  hyphens: Hyphenator | null = null
): number {
  emptied(out)
  emptied(rtl)
  if (s.length === 0) return 0
  const units = (width * 1000) / size
  // Fast path, the common table cell: one line that fits.
  if (s.indexOf('\n') < 0 && stack.width(s) <= units) {
    out.push(s)
    rtl.push(paragraphRtl(s, direction))
    return 1
  }
  const paras = s.split('\n')
  const limit = maxLines > 0 ? maxLines + 1 : Infinity
  for (let p = 0; p < paras.length && out.length < limit; p++) {
    const from = out.length
    const para = paras[p]! // p < paras.length
    wrapPara(stack, para, units, limit, out, hyphens)
    const r = paragraphRtl(para, direction)
    for (let i = from; i < out.length; i++) rtl.push(r)
  }
  if (maxLines > 0 && out.length > maxLines) {
    out.length = maxLines
    rtl.length = maxLines
    out[maxLines - 1] = ellipsize(stack, out[maxLines - 1]!, units) // out holds maxLines lines
  }
  return out.length
}

function wrapPara (stack: FontStack, para: string, units: number, limit: number, out: string[],
  hyphens: Hyphenator | null): void {
  if (stack.width(para) <= units) { out.push(para); return }
  // The text between two break opportunities is a piece ("word " or one CJK character).
  emptied(pieces)
  const br = new LineBreaker(para)
  let last = 0
  for (let b = br.nextBreak(); b !== null; b = br.nextBreak()) {
    pieces.push(para.slice(last, b.position))
    last = b.position
  }
  let line = ''
  let lineW = 0
  for (let i = 0; i < pieces.length && out.length < limit; i++) {
    let piece = pieces[i]! // i < pieces.length
    const bare = piece.trimEnd()
    // A line is measured without its trailing spaces: they hang past the edge.
    if (line.length > 0 && lineW + stack.width(bare) <= units) {
      line += piece
      lineW += stack.width(piece)
      continue
    }
    if (line.length > 0) {
      // The word does not fit: its head may end this line, hyphenated.
      const k = hyphens === null ? 0 : hyphenPoint(stack, hyphens, line, bare, units)
      out.push(k > 0 ? line + bare.slice(0, k) + HYPHEN : line.trimEnd())
      if (k > 0) piece = piece.slice(k)
      line = ''
      lineW = 0
    }
    // A piece wider than the box: hyphenate it, else cut it into parts that fit.
    while (stack.width(piece.trimEnd()) > units && piece.length > 1 && out.length < limit) {
      const k = hyphens === null ? 0 : hyphenPoint(stack, hyphens, '', piece.trimEnd(), units)
      const n = k > 0 ? k : cutPoint(stack, piece, units)
      out.push(k > 0 ? piece.slice(0, k) + HYPHEN : piece.slice(0, n))
      piece = piece.slice(n)
    }
    line = piece
    lineW = stack.width(piece)
  }
  if (line.trimEnd().length > 0 && out.length < limit) out.push(line.trimEnd())
}

/** The last hyphenation point k of `word` with `line + word[0, k) + "-"` inside the box; 0 for none. */
function hyphenPoint (stack: FontStack, hyphens: Hyphenator, line: string, word: string, units: number): number {
  const points = hyphens.points(word)
  for (let i = points.length - 1; i >= 0; i--) {
    const k = points[i]! // 0 <= i < points.length
    if (stack.width(line + word.slice(0, k) + HYPHEN) <= units) return k
  }
  return 0
}

/** How many leading characters of `word` fit in `units` (at least one, never half a surrogate pair). */
function cutPoint (stack: FontStack, word: string, units: number): number {
  let lo = 1; let hi = word.length
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (stack.width(word.slice(0, mid)) <= units) lo = mid
    else hi = mid - 1
  }
  const c = word.charCodeAt(lo - 1)
  if (c >= 0xd800 && c <= 0xdbff) lo = lo > 1 ? lo - 1 : Math.min(2, word.length)
  return lo
}

function ellipsize (stack: FontStack, line: string, units: number): string {
  const ew = stack.width(ELLIPSIS)
  let s = line.trimEnd()
  while (s.length > 0 && stack.width(s) + ew > units) s = s.slice(0, -1).trimEnd()
  return s + ELLIPSIS
}
