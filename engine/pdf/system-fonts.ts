// The default font stack: fonts of the Debian packages the Makefile installs (see
// scripts/install-debian-deps.sh and docs/layout.md), never downloaded at run time.
// A font file is read and parsed at most once per worker thread, on the first character that
// needs it (the CJK collection is 20 MB: a Latin-only worker never reads it). The cache is
// module state on purpose: like metrics.ts it is per worker, shared by every template.
import { readFileSync } from 'node:fs'
import * as fontkit from 'fontkit'
import { ownCodePoints, type FontkitFont } from './fontkit-font.js'

const NOTO = '/usr/share/fonts/truetype/noto/'
const CJK = '/usr/share/fonts/opentype/noto/'
const DEJAVU = '/usr/share/fonts/truetype/dejavu/'

export interface SystemFont {
  /** The name styles use, e.g. "Noto Sans Arabic". */
  name: string
  file: string
  /** Member of a font collection (.ttc), by PostScript name. */
  member?: string
  /** Code point ranges [from, to] the font is for: other characters never load it. */
  ranges?: Array<[number, number]>
}

const ARABIC: Array<[number, number]> = [
  [0x0600, 0x06ff],
  [0x0750, 0x077f],
  [0x08a0, 0x08ff],
  [0xfb50, 0xfdff],
  [0xfe70, 0xfeff]
]
const HEBREW: Array<[number, number]> = [[0x0590, 0x05ff], [0xfb1d, 0xfb4f]]
const DEVANAGARI: Array<[number, number]> = [[0x0900, 0x097f], [0xa8e0, 0xa8ff], [0x1cd0, 0x1cff]]
const THAI: Array<[number, number]> = [[0x0e00, 0x0e7f]]
const CJK_RANGES: Array<[number, number]> = [
  [0x1100, 0x11ff], [0x2e80, 0x2fff], [0x3000, 0x9fff], [0xa960, 0xa97f], [0xac00, 0xd7ff],
  [0xf900, 0xfaff], [0xfe30, 0xfe4f], [0xff00, 0xffef], [0x20000, 0x3ffff]
]

function family (bold: boolean): SystemFont[] {
  const w = bold ? 'Bold' : 'Regular'
  return [
    { name: `Noto Sans${bold ? ' Bold' : ''}`, file: `${NOTO}NotoSans-${w}.ttf` },
    { name: `Noto Sans Arabic${bold ? ' Bold' : ''}`, file: `${NOTO}NotoSansArabic-${w}.ttf`, ranges: ARABIC },
    { name: `Noto Sans Hebrew${bold ? ' Bold' : ''}`, file: `${NOTO}NotoSansHebrew-${w}.ttf`, ranges: HEBREW },
    {
      name: `Noto Sans Devanagari${bold ? ' Bold' : ''}`, file: `${NOTO}NotoSansDevanagari-${w}.ttf`, ranges: DEVANAGARI
    },
    { name: `Noto Sans Thai${bold ? ' Bold' : ''}`, file: `${NOTO}NotoSansThai-${w}.ttf`, ranges: THAI },
    // One member of the Pan-CJK collection covers Chinese, Japanese kana and Korean hangul.
    ...(['SC', 'JP', 'KR', 'TC'].map((r) => ({
      name: `Noto Sans CJK ${r}${bold ? ' Bold' : ''}`,
      file: `${CJK}NotoSansCJK-${w}.ttc`,
      member: `NotoSansCJK${r.toLowerCase()}-${w}`,
      ranges: CJK_RANGES
    }))),
    { name: `DejaVu Sans${bold ? ' Bold' : ''}`, file: `${DEJAVU}DejaVuSans${bold ? '-Bold' : ''}.ttf` }
  ]
}

const REGULAR = family(false)
const BOLD = family(true)
const BY_NAME = new Map<string, SystemFont>([...REGULAR, ...BOLD].map((f) => [f.name, f]))

// Simplified Chinese glyph forms by default; a style names "Noto Sans CJK JP" (KR, TC) for others.
const DEFAULT_REGULAR = REGULAR.filter((f) => f.member === undefined || f.name === 'Noto Sans CJK SC')
const DEFAULT_BOLD = BOLD.filter((f) => f.member === undefined || f.name === 'Noto Sans CJK SC Bold')

/** Fonts every stack ends with, in order. */
export function defaultStack (bold: boolean): SystemFont[] { return bold ? DEFAULT_BOLD : DEFAULT_REGULAR }

export function systemFont (name: string): SystemFont | undefined { return BY_NAME.get(name) }

export function inRanges (f: SystemFont, cp: number): boolean {
  if (f.ranges === undefined) return true
  for (const [a, b] of f.ranges) if (cp >= a && cp <= b) return true
  return false
}

const parsed = new Map<string, FontkitFont | null>()
const files = new Map<string, Buffer | null>()
/** Loads and hits of the parsed-font cache (the benchmark reports the hit rate). */
export const fontCacheStats = { loads: 0, hits: 0 }

/** The parsed font, or null when its package is not installed (then the stack goes on without it). */
export function loadSystemFont (f: SystemFont): FontkitFont | null {
  const key = f.file + '#' + (f.member ?? '')
  const hit = parsed.get(key)
  if (hit !== undefined) { fontCacheStats.hits++; return hit }
  fontCacheStats.loads++
  let font: FontkitFont | null = null
  let buf = files.get(f.file)
  if (buf === undefined) {
    try { buf = readFileSync(f.file) } catch { buf = null }
    files.set(f.file, buf)
  }
  if (buf !== null) font = ownCodePoints(fontkit.create(buf, f.member) as FontkitFont)
  parsed.set(key, font)
  return font
}
