// Right-to-left text: the Unicode bidirectional algorithm (UAX #9, bidi-js) per paragraph and
// line. Lines are wrapped in logical order; drawing asks for a line's pieces in visual order.
// A right-to-left piece stays in logical order (mirrored: "(" becomes ")") and is shaped as one
// run in the rtl direction, so Arabic joins and fontkit puts its glyphs in visual order.
import bidiFactory, { type Bidi } from 'bidi-js'
import type { FontStack } from './font-stack.js'
import type { FontFace } from './fonts.js'
import { emptied } from '../lists.js'

// The factory builds lookup tables (~80 ms on a loaded machine): once per worker, on the first
// right-to-left text, not at thread start; it holds no per-text state. (A CommonJS module: its
// default import is the factory itself, which its types do not say.)
let tables: Bidi | null = null
const bidi = (): Bidi => (tables ??= (bidiFactory as unknown as () => Bidi)())

export type Direction = 'auto' | 'ltr' | 'rtl'

// Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic; presentation forms; RLM/RLE/RLO/RLI;
// and the right-to-left scripts of the supplementary planes (surrogates D802-D803, D83A-D83B).
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u200f\u202b\u202e\u2067]|\ud802|\ud803|\ud83a|\ud83b/

/** True when `s` has a character that can make it (partly) right-to-left. */
export function hasRtl (s: string): boolean { return RTL.test(s) }

/** Whether a paragraph is right-to-left: forced, or (auto) by its first strong character. */
export function paragraphRtl (s: string, direction: Direction): boolean {
  if (direction !== 'auto') return direction === 'rtl'
  if (!hasRtl(s)) return false
  return (bidi().getEmbeddingLevels(s).paragraphs[0]?.level ?? 0) === 1
}

export interface Piece { face: FontFace | null, text: string, rtl: boolean }

/**
 * The font runs of one line in drawing (visual, left to right) order, into `out`; the pieces are
 * reused, valid until the next call. `anyRtl`: whether the line is right-to-left or has such
 * characters (`rtl || hasRtl(s)`), when the caller knows.
 */
export function visualPieces (
  stack: FontStack, s: string, rtl: boolean, out: Piece[], anyRtl = rtl || hasRtl(s)
): Piece[] {
  emptied(out)
  if (!anyRtl) { addRuns(stack, s, false, out); return out }
  const { levels } = bidi().getEmbeddingLevels(s, rtl ? 'rtl' : 'ltr')
  // Level runs in logical order, then rule L2: from the highest level down to the lowest odd
  // level, reverse every maximal sequence of runs at that level or higher. `levels` has a level
  // per code unit of `s`, and the indices into `runs` below stay under runs.length.
  const runs: Array<{ start: number, end: number, level: number }> = []
  let maxLevel = 0
  let minOdd = 255
  for (let i = 0; i < s.length;) {
    let e = i + 1
    while (e < s.length && levels[e] === levels[i]) e++
    const level = levels[i]!
    runs.push({ start: i, end: e, level })
    if (level > maxLevel) maxLevel = level
    if ((level & 1) === 1 && level < minOdd) minOdd = level
    i = e
  }
  for (let lvl = maxLevel; lvl >= minOdd && lvl > 0; lvl--) {
    for (let i = 0; i < runs.length;) {
      if (runs[i]!.level < lvl) { i++; continue }
      let e = i + 1
      while (e < runs.length && runs[e]!.level >= lvl) e++
      const rev = runs.slice(i, e).reverse()
      for (let k = 0; k < rev.length; k++) runs[i + k] = rev[k]!
      i = e
    }
  }
  for (const r of runs) {
    const odd = (r.level & 1) === 1
    addRuns(stack, odd ? mirror(s.slice(r.start, r.end)) : s.slice(r.start, r.end), odd, out)
  }
  return out
}

function addRuns (stack: FontStack, s: string, rtl: boolean, out: Piece[]): void {
  const runs = stack.runs(s)
  if (!rtl) { for (const r of runs) addPiece(out, r.face, s.slice(r.start, r.end), rtl); return }
  for (let i = runs.length - 1; i >= 0; i--) {
    const r = runs[i]! // 0 <= i < runs.length
    addPiece(out, r.face, s.slice(r.start, r.end), rtl)
  }
}

/**
 * Piece objects, given out again by the next visualPieces call (its one caller, Canvas.text, has
 * drawn them by then): a piece per line drawn was most of what drawing allocated besides text.
 */
const spare: Piece[] = []

function addPiece (out: Piece[], face: FontFace | null, text: string, rtl: boolean): void {
  const i = out.length
  let p = spare[i]
  if (p === undefined) {
    p = { face, text, rtl }
    spare.push(p)
  } else {
    p.face = face
    p.text = text
    p.rtl = rtl
  }
  out.push(p)
}

function mirror (s: string): string {
  let out = ''
  for (const ch of s) out += bidi().getMirroredCharacter(ch) ?? ch
  return out
}
