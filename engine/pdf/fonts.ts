// Font faces of a compiled template and their per-document PDF resources.
// A face is built once per compiled template (asset TTF/OTF parsed once by fontkit through
// pdfkit); each render binds faces to its own PDFDocument lazily, so a font that is not used
// costs nothing and embedded fonts are subset per document (ttf-subset.ts, cff-subset.ts).
import PDFDocument from 'pdfkit'
import { ownCodePoints, type FontkitFont } from './fontkit-font.js'
import { fmt } from './pdf-number.js'
import { TemplateError } from '../errors.js'
import {
  literalWinAnsi, standardMetrics, STANDARD_FONTS, widthStd, winAnsiOf, type StandardMetrics
} from './metrics.js'
import { loadSystemFont, systemFont } from './system-fonts.js'
import { cffFont, type CffFont } from './cff-subset.js'
import { EmbeddedFace, faceInfo, HEX4, type FaceInfo, type RefMaker } from './font-embed.js'
import { SimpleFace } from './simple-face.js'
import { StandardSubstitute, standardSubstitute, substituteFile, symbolicMetrics } from './standard-substitutes.js'

export { ownCodePoints, type FontkitFont, type Glyph, type GlyphPosition } from './fontkit-font.js'
export { fmt } from './pdf-number.js'
export class FontFace {
  /** Index into a document's binding table. */
  readonly index: number
  readonly name: string
  readonly std: StandardMetrics | null
  readonly fk: FontkitFont | null
  /** A standard font drawn with an embedded metric-compatible face (standard-substitutes.ts). */
  readonly substitute: StandardSubstitute | null
  /** Ascender / descender in 1/1000 em (descender negative). */
  readonly ascender: number
  readonly descender: number
  /** The font's recommended extra space between lines, 1/1000 em. */
  readonly lineGap: number
  // Shaped strings of embedded fonts, shared by all documents of this worker: fontkit shaping
  // is the expensive part of measuring and drawing, and table cells repeat a lot.
  private readonly shapes = new Map<string, Shaped>()
  private cffTable: CffFont | null | undefined
  private faceInfo: FaceInfo | undefined

  constructor (
    index: number,
    name: string,
    std: StandardMetrics | null,
    fk: FontkitFont | null,
    substitute: StandardSubstitute | null = null
  ) {
    this.index = index
    this.name = name
    this.std = std
    this.fk = fk
    this.substitute = substitute
    if (std !== null) {
      this.ascender = std.ascender
      this.descender = std.descender
      this.lineGap = std.lineGap
    } else {
      const k = 1000 / fk!.unitsPerEm
      this.ascender = fk!.ascent * k
      this.descender = fk!.descent * k
      this.lineGap = Math.max(0, fk!.lineGap * k)
    }
  }

  /** True when the font has a glyph for code point `cp`. */
  has (cp: number): boolean {
    if (this.std !== null) return winAnsiOf(cp) >= 0
    return this.fk!.hasGlyphForCodePoint(cp)
  }

  /** The font program embedded for this face: its own, or a standard font's substitute. */
  program (): FontkitFont | null { return this.fk ?? this.substitute?.fk ?? null }

  /** The font's CFF table ready to subset, read on first use; null for TrueType and unembedded fonts. */
  cff (): CffFont | null {
    if (this.cffTable === undefined) {
      const p = this.program()
      this.cffTable = p === null ? null : cffFont(p)
    }
    return this.cffTable
  }

  /** Names, flags and metrics of the face's PDF font objects (embedded fonts only). */
  info (): FaceInfo { return (this.faceInfo ??= faceInfo(this.program())) }

  /** Advance width of `s` in 1/1000 em. */
  width (s: string): number {
    if (this.std !== null) return widthStd(this.std, s)
    return this.shape(s, false).width
  }

  /** `s` shaped by fontkit (embedded fonts only); `rtl`: glyphs in visual order of an RTL run. */
  shape (s: string, rtl: boolean): Shaped {
    const key = rtl ? '\u0001' + s : s
    let sh = this.shapes.get(key)
    if (sh === undefined) {
      const fk = this.fk!
      const { glyphs, positions, advanceWidth } = fk.layout(s, [], undefined, undefined, rtl ? 'rtl' : 'ltr')
      const width = advanceWidth * 1000 / fk.unitsPerEm
      sh = { ids: [], codePoints: [], advances: [], adjust: [], width, logical: true }
      let text = ''
      for (let i = 0; i < glyphs.length; i++) {
        const g = glyphs[i]! // i < glyphs.length
        const pos = positions[i]
        if (pos === undefined) throw new Error(`${this.name}: fontkit gave fewer positions than glyphs`)
        sh.ids.push(g.id)
        sh.codePoints.push(g.codePoints)
        sh.advances.push(g.advanceWidth)
        sh.adjust.push(pos.xAdvance - g.advanceWidth)
        text += String.fromCodePoint(...g.codePoints)
      }
      // One glyph per character, in order: the glyphs' ToUnicode text reads as `s` (else a
      // ligature, a reordering or a right-to-left run: canvas.ts adds /ActualText).
      sh.logical = !rtl && text === s && glyphs.every((g) => g.codePoints.length === 1)
      if (this.shapes.size > 20000) this.shapes.clear()
      this.shapes.set(key, sh)
    }
    return sh
  }
}

/** A shaped string: glyph ids, the text of each glyph, advances and kerning in font units. */
export interface Shaped {
  ids: number[]
  codePoints: number[][]
  advances: number[]
  adjust: number[]
  width: number
  /** The glyphs' text, glyph by glyph, is `s` in order: extraction needs no /ActualText. */
  logical: boolean
}

/** Fonts of one compiled template: standard fonts by name plus asset fonts. */
export class FontSet {
  readonly faces: FontFace[] = []
  private readonly byName = new Map<string, FontFace>()
  private readonly assets: Record<string, unknown>
  /** Standard fonts are embedded (PDF/A, `document.pdf.embedFonts`). */
  readonly embedStandard: boolean

  constructor (assetFonts: Record<string, unknown> | undefined, embedStandard = false) {
    this.assets = assetFonts ?? {}
    this.embedStandard = embedStandard
  }

  /** Names of the template's font assets, in declaration order: they join every font stack. */
  assetNames (): string[] { return Object.keys(this.assets) }

  /** The face called `name` (standard, asset or installed system font), created on first use. */
  get (name: string, where: string): FontFace {
    const face = this.find(name)
    if (face !== null) return face
    const sys = systemFont(name)
    let message = `unknown font "${name}": use a standard PDF font, a font asset or an installed font (docs/layout.md)`
    if (sys !== undefined) message = `font "${name}" is not installed (${sys.file}): run scripts/install-debian-deps.sh`
    if (STANDARD_FONTS.has(name)) {
      message = `font "${name}" is embedded in this document (document.pdf), but its metric-compatible face ` +
        `${substituteFile(name)} is not installed (Debian fonts-urw-base35): run scripts/install-debian-deps.sh`
    }
    throw new TemplateError(`${where}: ${message}`, [{ path: where, message }])
  }

  /** Like get(), but null for a font that does not exist or is not installed. */
  find (name: string): FontFace | null {
    let face = this.byName.get(name)
    if (face !== undefined) return face
    if (STANDARD_FONTS.has(name)) {
      const std = standardMetrics(name)
      if (this.embedStandard) {
        const sub = standardSubstitute(name)
        if (sub === null) return null
        face = new FontFace(this.faces.length, name, sub.symbolic ? symbolicMetrics(std, sub) : std, null, sub)
      } else face = new FontFace(this.faces.length, name, std, null)
    } else if (Object.hasOwn(this.assets, name)) {
      face = new FontFace(this.faces.length, name, null, parseAssetFont(this.assets[name], `assets.fonts.${name}`))
    } else {
      const sys = systemFont(name)
      const fk = sys === undefined ? null : loadSystemFont(sys)
      if (fk === null) return null
      face = new FontFace(this.faces.length, name, null, fk)
    }
    this.faces.push(face)
    this.byName.set(name, face)
    return face
  }
}

function parseAssetFont (asset: unknown, where: string): FontkitFont {
  const data = (asset as { data?: unknown } | null)?.data
  if (typeof data !== 'string') {
    throw new TemplateError(`${where}: missing base64 "data"`, [{ path: where, message: 'missing base64 "data"' }])
  }
  try {
    // pdfkit hands a Uint8Array to fontkit.create; reading the parsed font back from the
    // throwaway document keeps fontkit an implementation detail of pdfkit.
    const doc = new PDFDocument({ font: null, autoFirstPage: false } as unknown as PDFKit.PDFDocumentOptions)
    doc.font(Buffer.from(data, 'base64'))
    const fk = (doc as unknown as { _font: { font: FontkitFont } })._font.font
    if (typeof fk.layout !== 'function') throw new Error('not a font')
    return ownCodePoints(fk)
  } catch (err) {
    throw new TemplateError(`${where}: not a TrueType/OpenType font ` +
      `(${(err as Error).message})`, [{ path: where, message: 'not a TrueType/OpenType font' }])
  }
}

/**
 * Faces bound to one PDFDocument: resource names and font references, created on first use.
 * `resName(face)` is what content streams use after `/`. end() writes the embedded fonts.
 */
export class DocFonts {
  private readonly doc: RefMaker
  private readonly names: Array<string | undefined>
  private readonly refs: unknown[]
  private readonly embedded: Array<EmbeddedFace | undefined>
  /** Embedded Latin standard fonts (simple-face.ts). */
  private readonly simple: Array<SimpleFace | undefined> = []
  private readonly order: Array<EmbeddedFace | SimpleFace> = []
  /** Font descriptors carry a CIDSet (PDF/A-1 requires one for subset CID fonts). */
  private readonly cidSet: boolean

  /** Characters no font of their stack has (drawn as .notdef boxes), for the render's warnings. */
  readonly missing = new Set<number>()
  /** Reordered or shaped lines carry /ActualText (canvas.ts): tagged documents only, see there. */
  readonly actualText: boolean

  // Faces of the default stack are created while rendering: the tables grow as needed.
  constructor (doc: PDFKit.PDFDocument, cidSet = false, actualText = false) {
    this.doc = doc
    this.cidSet = cidSet
    this.actualText = actualText
    this.names = []
    this.refs = []
    this.embedded = []
  }

  resName (face: FontFace): string {
    const n = this.names[face.index]
    if (n !== undefined) return n
    if (face.std !== null && face.substitute === null) {
      const dict = { Type: 'Font', BaseFont: face.name, Subtype: 'Type1', Encoding: 'WinAnsiEncoding' }
      const ref = this.doc.ref(dict) as { end (): void }
      ref.end()
      this.refs[face.index] = ref
      return (this.names[face.index] = 'S' + face.index)
    }
    const id = 'F' + (this.order.length + 1)
    if (face.substitute !== null && !face.substitute.symbolic) {
      const sf = new SimpleFace(this.doc, id, face.substitute, face.info(), face.cff()!)
      this.order.push(sf)
      this.simple[face.index] = sf
      this.refs[face.index] = sf.dictionary
      return (this.names[face.index] = id)
    }
    const ef = new EmbeddedFace(this.doc, id, face.program(), face.info(), face.cff(), this.cidSet)
    this.order.push(ef)
    this.embedded[face.index] = ef
    this.refs[face.index] = ef.dictionary
    return (this.names[face.index] = ef.id)
  }

  /** Writes the embedded fonts' subsets and objects: after the last page's text, before doc.end(). */
  end (): void {
    for (const ef of this.order) ef.end()
  }

  ref (face: FontFace): unknown { return this.refs[face.index] }

  /**
   * The text-showing operator for `s` in `face`: `(…) Tj` or `[<…> k <…>] TJ`. `rtl`: `s` is a
   * right-to-left run in logical order, already mirrored; it is shaped as one run and its glyphs
   * come out in visual order (fontkit reverses them).
   */
  show (face: FontFace, s: string, rtl: boolean): string {
    if (face.std !== null) {
      const visual = rtl ? reverse(s) : s
      if (face.substitute === null) return literalWinAnsi(visual) + ' Tj'
      const sf = this.simple[face.index]
      if (sf === undefined) return this.showSubstitute(face, face.substitute, visual)
      return literalWinAnsi(sf.use(visual)) + ' Tj'
    }
    const ef = this.embedded[face.index]!
    const sh = face.shape(s, rtl)
    const hex = this.encode(ef, sh)
    // Same segmentation as pdfkit's _fragment: glyph runs split where shaping changed the advance.
    let out = '['
    let last = 0
    for (let i = 0; i < sh.adjust.length; i++) {
      const adj = sh.adjust[i]! * ef.scale // i < sh.adjust.length
      if (adj !== 0) {
        out += '<' + hex.slice(last, i + 1).join('') + '> ' + fmt(-adj) + ' '
        last = i + 1
      }
    }
    if (last < hex.length) out += '<' + hex.slice(last).join('') + '>'
    return out + '] TJ'
  }

  // A standard font's text in its embedded substitute: one glyph per WinAnsi code, no kerning
  // (what metrics.ts measured), the width from the font program (it must match for PDF/A).
  private showSubstitute (face: FontFace, sub: StandardSubstitute, text: string): string {
    const s = String(text) // see metrics.ts, widthStd
    const ef = this.embedded[face.index]!
    let hex = '<'
    for (let i = 0; i < s.length; i++) {
      const code = StandardSubstitute.code(s.charCodeAt(i))
      const gid = ef.subset.includeGlyph(sub.glyph(code))
      hex += HEX4(gid)
      ef.widths[gid] ??= sub.advance(code) * ef.scale
      // The text the glyph stands for: the character (or '?'), as the unembedded font extracts.
      ef.unicode[gid] ??= [winAnsiOf(s.charCodeAt(i)) < 0 ? 63 : s.charCodeAt(i)]
    }
    return hex + '> Tj'
  }

  // pdfkit's EmbeddedFont.encode, with the direction under our control: pdfkit shapes word by
  // word and lets fontkit guess the direction from the script, which puts the words of an
  // Arabic or Hebrew line in the wrong order and digits inside RTL runs backwards.
  private encode (ef: EmbeddedFace, sh: Shaped): string[] {
    const hex: string[] = []
    // ids, advances and codePoints are parallel arrays: one entry per glyph (shape()).
    for (let i = 0; i < sh.ids.length; i++) {
      const gid = ef.subset.includeGlyph(sh.ids[i]!)
      hex.push(('0000' + gid.toString(16)).slice(-4))
      ef.widths[gid] ??= sh.advances[i]! * ef.scale
      ef.unicode[gid] ??= sh.codePoints[i]!
    }
    return hex
  }
}

/** `s` backwards by code point (a right-to-left run of a standard font). */
function reverse (s: string): string {
  return Array.from(s).reverse().join('')
}
