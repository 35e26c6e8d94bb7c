// Standard-font metrics, parsed once per worker thread.
// pdfkit re-parses a standard font's AFM data (AFMFont constructor: glyph-name split, kern-pair
// table of thousands of string keys) for every new PDFDocument; a profile of an invoice showed
// 17% of the render there. The engine never lets pdfkit load a standard font (documents are
// created with `font: null`): it measures with the tables below, writes the Type1 font
// dictionaries itself and emits text operators directly. Kerning is not applied, so what is
// measured is exactly what is drawn.
import PDFDocument from 'pdfkit'

export const STANDARD_FONTS = new Set([
  'Courier', 'Courier-Bold', 'Courier-Oblique', 'Courier-BoldOblique',
  'Helvetica', 'Helvetica-Bold', 'Helvetica-Oblique', 'Helvetica-BoldOblique',
  'Times-Roman', 'Times-Bold', 'Times-Italic', 'Times-BoldItalic', 'Symbol', 'ZapfDingbats'
])

/** Unicode code unit → WinAnsi (cp1252) byte, -1 when the standard fonts cannot show it. */
export const WIN_ANSI = new Int16Array(65536).fill(-1)
for (let c = 0; c < 256; c++) if (c < 0x80 || c > 0x9f) WIN_ANSI[c] = c
const CP1252_HIGH: Array<[number, number]> = [
  [0x20ac, 0x80], [0x201a, 0x82], [0x0192, 0x83], [0x201e, 0x84], [0x2026, 0x85], [0x2020, 0x86],
  [0x2021, 0x87], [0x02c6, 0x88], [0x2030, 0x89], [0x0160, 0x8a], [0x2039, 0x8b], [0x0152, 0x8c],
  [0x017d, 0x8e], [0x2018, 0x91], [0x2019, 0x92], [0x201c, 0x93], [0x201d, 0x94], [0x2022, 0x95],
  [0x2013, 0x96], [0x2014, 0x97], [0x02dc, 0x98], [0x2122, 0x99], [0x0161, 0x9a], [0x203a, 0x9b],
  [0x0153, 0x9c], [0x017e, 0x9e], [0x0178, 0x9f]
]
for (const [u, w] of CP1252_HIGH) WIN_ANSI[u] = w

/** WinAnsi byte of code point `u`, -1 when the standard fonts cannot show it (WIN_ANSI ends at 0xffff). */
export function winAnsiOf (u: number): number { return WIN_ANSI[u] ?? -1 }

export interface StandardMetrics {
  name: string
  /** Advance widths in 1/1000 em by WinAnsi byte. */
  widths: Float64Array
  ascender: number
  descender: number
  /** The font's own gap between lines (FontBBox height minus ascender-descender), as pdfkit. */
  lineGap: number
  /** Glyph name by WinAnsi byte, as pdfkit's table has it (widths are looked up by these). */
  glyphNames: string[]
}

interface AfmLike {
  ascender: number
  descender: number
  lineGap: number
  characterToGlyph (c: number): string
  widthOfGlyph (g: string): number
}

const cache = new Map<string, StandardMetrics>()

/** Metrics of a standard font, built from pdfkit's own AFM data the first time it is asked for. */
export function standardMetrics (name: string): StandardMetrics {
  let m = cache.get(name)
  if (m === undefined) {
    // One throwaway document per font per worker: the only place pdfkit parses AFM for us.
    const doc = new PDFDocument({ font: name, autoFirstPage: false })
    const afm = (doc as unknown as { _font: { font: AfmLike } })._font.font
    const widths = new Float64Array(256)
    const glyphNames: string[] = []
    for (let c = 0; c < 256; c++) {
      const glyph = afm.characterToGlyph(c)
      glyphNames.push(glyph)
      widths[c] = afm.widthOfGlyph(glyph)
    }
    m = { name, widths, ascender: afm.ascender, descender: afm.descender, lineGap: afm.lineGap, glyphNames }
    cache.set(name, m)
  }
  return m
}

// Per-character loops over text start with `String(s)`, a no-op on a string that tells the
// optimizing compiler the type. Without it, `s.length` and `s.charCodeAt` are property loads whose
// feedback has seen every representation V8 gives strings (flat, cons, sliced, one- and two-byte,
// internalized: more than four maps), so they stay megamorphic lookups, one per character. This
// function took 57 → 39 µs over 200 mixed strings; all such lookups were ~16% of a plain invoice's
// instructions before (bench/RESULTS.md, 2026-11-27).

/** Width in 1/1000 em of `s` (unencodable characters count as '?'). */
export function widthStd (m: StandardMetrics, text: string): number {
  const s = String(text) // see above
  const w = m.widths
  let sum = 0
  for (let i = 0; i < s.length; i++) {
    const c = winAnsiOf(s.charCodeAt(i))
    sum += w[c < 0 ? 63 : c]! // a WinAnsi byte indexes the 256 widths
  }
  return sum
}

/** True when every character of `s` exists in WinAnsi, i.e. a standard font can show it. */
export function winAnsiOnly (text: string): boolean {
  const s = String(text) // see widthStd
  for (let i = 0; i < s.length; i++) if (winAnsiOf(s.charCodeAt(i)) < 0) return false
  return true
}

// Anything but printable ASCII other than ( ) and \ (control characters, DEL and above, and those three).
const NEEDS_ESCAPE = /[^\x20-\x27\x2a-\x5b\x5d-\x7e]/

/** A PDF literal string operand in WinAnsi encoding: `(text)`. */
export function literalWinAnsi (text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return '(' + text + ')'
  const s = String(text) // see widthStd
  let out = '('
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i)
    let c = winAnsiOf(ch)
    if (c < 0) c = 63
    if (c === 40 || c === 41 || c === 92) out += '\\' + String.fromCharCode(c)
    else if (c >= 32 && c < 127) out += String.fromCharCode(c)
    else out += '\\' + c.toString(8).padStart(3, '0')
  }
  return out + ')'
}
