// The 14 standard PDF fonts, embedded: metric-compatible faces of Debian's fonts-urw-base35
// (the URW++ base 35 that Ghostscript uses for the same purpose), for PDF/A documents and
// `document.pdf.embedFonts` (docs/layout.md, "PDF standard"). The package ships each face as
// Type 1 (.t1/.pfb), OpenType/CFF (.otf) and AFM; the .otf is what the engine already embeds
// and subsets (cff-subset.ts, the path of Noto CJK), with a cmap fontkit reads: no Type 1
// parser or subsetter is needed. fonts-liberation2 and fonts-texgyre cover only the 12 Latin
// faces; URW also has Symbol (Standard Symbols PS) and ZapfDingbats (D050000L).
// Text is still measured with the standard metrics (metrics.ts), so line breaks do not move:
// the URW advance widths equal the Adobe AFM widths for every WinAnsi character but Ÿ (0x9F,
// which pdfkit's table names "ydieresis" and measures 500; drawn as Ydieresis, 667). The
// 12 Latin faces are simple fonts whose glyphs a viewer finds by WinAnsiEncoding name
// (simple-face.ts), so glyphs are chosen by those names here too. Symbol and ZapfDingbats
// have a symbolic cmap by character code, like their built-in encoding (drawn as CID fonts).
// Loaded once per worker, on first use, through system-fonts.ts's cache.
import type { FontkitFont } from './fontkit-font.js'
import { standardMetrics, WIN_ANSI, winAnsiOf, type StandardMetrics } from './metrics.js'
import type { PdfRaw } from './pdf-raw.js'
import { loadSystemFont } from './system-fonts.js'

export const URW_DIR = '/usr/share/fonts/opentype/urw-base35/'

const FILES: Record<string, string> = {
  Helvetica: 'NimbusSans-Regular',
  'Helvetica-Bold': 'NimbusSans-Bold',
  'Helvetica-Oblique': 'NimbusSans-Italic',
  'Helvetica-BoldOblique': 'NimbusSans-BoldItalic',
  'Times-Roman': 'NimbusRoman-Regular',
  'Times-Bold': 'NimbusRoman-Bold',
  'Times-Italic': 'NimbusRoman-Italic',
  'Times-BoldItalic': 'NimbusRoman-BoldItalic',
  Courier: 'NimbusMonoPS-Regular',
  'Courier-Bold': 'NimbusMonoPS-Bold',
  'Courier-Oblique': 'NimbusMonoPS-Italic',
  'Courier-BoldOblique': 'NimbusMonoPS-BoldItalic',
  Symbol: 'StandardSymbolsPS',
  ZapfDingbats: 'D050000L'
}

/** The file embedded for standard font `name`. */
export function substituteFile (name: string): string { return URW_DIR + FILES[name] + '.otf' }

/** A simple font's subset: its program and what its dictionaries say of it. */
export interface SimpleSubset {
  program: Buffer
  first: number
  last: number
  widths: PdfRaw
  charSet: PdfRaw
  /** Codes 0xA0 or 0xAD are used (the encoding names them, see simple-face.ts). */
  nbspOrShy: boolean
  /** The dictionaries' text by the document's font id (F1 …), which the subset name derives from (simple-face.ts). */
  texts: Map<string, SubsetTexts>
}

/** A simple font's descriptor and font dictionary as text, open for their last entry (a reference). */
export interface SubsetTexts { descriptor: string, font: string }

interface GlyphRef { id: number, advanceWidth: number, name: string }
interface GlyphLookup {
  glyphForCodePoint (cp: number): GlyphRef
  getGlyph (id: number): GlyphRef
  numGlyphs: number
}

export class StandardSubstitute {
  readonly fk: FontkitFont
  /** Symbol, ZapfDingbats: glyphs by WinAnsi code (their built-in encoding), not by Unicode. */
  readonly symbolic: boolean
  /** Latin faces: glyph name by WinAnsi code (PDF's WinAnsiEncoding), and glyph id by name. */
  readonly names: string[]
  private byName: Map<string, number> | undefined
  /** Subsets of this face by the codes they hold (simple-face.ts), oldest first. */
  readonly subsets = new Map<string, SimpleSubset>()
  /** Per WinAnsi code: glyph id (-1: not looked up yet) and advance in font units. */
  private readonly ids = new Int32Array(256).fill(-1)
  private readonly advances = new Float64Array(256)

  constructor (fk: FontkitFont, symbolic: boolean, names: string[]) {
    this.fk = fk
    this.symbolic = symbolic
    this.names = names
  }

  /** WinAnsi code of text code unit `c`: characters outside WinAnsi draw as '?', as before. */
  static code (c: number): number {
    const b = winAnsiOf(c)
    return b < 0 ? 63 : b
  }

  /** Glyph id for WinAnsi code `code`. */
  glyph (code: number): number {
    let id = this.ids[code]
    if (id === undefined) throw notWinAnsi(code)
    if (id < 0) {
      const fk = this.fk as unknown as GlyphLookup
      const g = this.symbolic
        ? fk.glyphForCodePoint(code)
        : fk.getGlyph(this.glyphByName(this.names[code] ?? '.notdef'))
      id = this.ids[code] = g.id
      this.advances[code] = g.advanceWidth
    }
    return id
  }

  /** Advance of WinAnsi code `code` in font units (after glyph(code)). */
  advance (code: number): number {
    const a = this.advances[code]
    if (a === undefined) throw notWinAnsi(code)
    return a
  }

  /** The name of glyph `gid`. */
  glyphName (gid: number): string { return (this.fk as unknown as GlyphLookup).getGlyph(gid).name }

  /** The glyph called `name`, .notdef (0) when the font has none. */
  private glyphByName (name: string): number {
    if (this.byName === undefined) {
      const fk = this.fk as unknown as GlyphLookup
      this.byName = new Map()
      for (let g = fk.numGlyphs - 1; g >= 0; g--) this.byName.set(fk.getGlyph(g).name, g)
    }
    return this.byName.get(name) ?? 0
  }
}

function notWinAnsi (code: number): RangeError { return new RangeError(`${code} is not a WinAnsi code`) }

/**
 * Glyph names of PDF's WinAnsiEncoding by code: pdfkit's table (metrics.ts measures with it),
 * but for 0x9F, which it calls "ydieresis": WinAnsiEncoding's 0x9F is Ydieresis (Ÿ).
 */
let winAnsiNames: string[] | undefined
function winAnsi (): string[] {
  if (winAnsiNames === undefined) {
    winAnsiNames = [...standardMetrics('Helvetica').glyphNames]
    winAnsiNames[0x9f] = 'Ydieresis'
  }
  return winAnsiNames
}

const loaded = new Map<string, StandardSubstitute | null>()

/** The embedded face for a standard font, or null when fonts-urw-base35 is not installed. */
export function standardSubstitute (name: string): StandardSubstitute | null {
  let s = loaded.get(name)
  if (s === undefined) {
    const fk = loadSystemFont({ name, file: substituteFile(name) })
    s = fk === null ? null : new StandardSubstitute(fk, name === 'Symbol' || name === 'ZapfDingbats', winAnsi())
    loaded.set(name, s)
  }
  return s
}

/**
 * Metrics to measure an embedded Symbol or ZapfDingbats with: pdfkit's tables look their
 * glyphs up by WinAnsi names, which they lack (a Symbol "a" measured 0 and overlapped the next
 * glyph); embedded, a code is its symbolic glyph, measured with the URW (= Adobe) width.
 */
export function symbolicMetrics (std: StandardMetrics, sub: StandardSubstitute): StandardMetrics {
  const widths = new Float64Array(256)
  const k = 1000 / sub.fk.unitsPerEm
  for (let c = 0; c < 256; c++) {
    if (WIN_ANSI.indexOf(c) < 0) continue
    sub.glyph(c)
    widths[c] = sub.advance(c) * k
  }
  return { ...std, widths }
}
