// An embedded standard font as a simple font: Type1 with a FontFile3 /Type1C program (a
// name-keyed CFF subset of its URW face, cff-name-keyed.ts), WinAnsiEncoding and a Widths
// array. Its text is the same single-byte literal strings as an unembedded standard font's
// (metrics.ts literalWinAnsi), so the content stream does not grow, and text extracts through
// the standard glyph names without a ToUnicode map. (A Type0 font with 2-byte glyph ids made
// the invoice's content stream and its deflate ~2× the cost.) The descriptor lists the subset's
// glyph names (CharSet), which PDF/A-1 asks of Type 1 subsets.
import type { CffFont } from './cff-subset.js'
import { nameKeyedCff } from './cff-name-keyed.js'
import { descriptorFields, subsetFontName, type FaceInfo, type RefMaker } from './font-embed.js'
import { GlyphMap } from './glyph-map.js'
import { StandardSubstitute, type SimpleSubset, type SubsetTexts } from './standard-substitutes.js'
import { fmt } from './pdf-number.js'
import { PdfRaw, pdfDictOpen } from './pdf-raw.js'
import { endStream } from './raw-stream.js'

/** pdfkit's PDFReference, as used here (its toString() is `n 0 R`). */
interface Ref {
  data: Record<string, unknown> | PdfRaw
  compress: boolean
  end (chunk?: Uint8Array): void
  toString (): string
}

/**
 * Subsets kept per face and worker, by the set of codes used: documents of one template mostly
 * use the same characters, and a subset depends on nothing else (~0.1 ms each to build).
 */
const SUBSET_CACHE = 64

/** The font file's dictionary but its /Length (raw-stream.ts). */
const TYPE1C = pdfDictOpen({ Subtype: 'Type1C' })

const WIN_ANSI_DIFFERENCES = new PdfRaw(pdfDictOpen({ Type: 'Encoding', BaseEncoding: 'WinAnsiEncoding' }) +
  '\n/Differences [160 /space 173 /hyphen]\n>>')

export class SimpleFace {
  readonly id: string
  /** The font object pages refer to; written by end(). */
  readonly dictionary: Ref
  private readonly doc: RefMaker
  private readonly sub: StandardSubstitute
  private readonly info: FaceInfo
  private readonly cff: CffFont
  /** WinAnsi codes the document's text uses. */
  private readonly used = new Uint8Array(256)

  constructor (doc: RefMaker, id: string, sub: StandardSubstitute, info: FaceInfo, cff: CffFont) {
    this.doc = doc
    this.id = id
    this.sub = sub
    this.info = info
    this.cff = cff
    this.dictionary = doc.ref() as Ref
  }

  /**
   * Records the codes of `s` (text about to be shown with literalWinAnsi) and returns what to
   * show: `s` without the control characters (tab, DEL …), which WinAnsiEncoding names no glyph
   * for (a validator refuses the code) and which are invisible and measured 0 wide unembedded.
   */
  use (text: string): string {
    const s = String(text) // see metrics.ts, widthStd
    const names = this.sub.names
    let controls = false
    for (let i = 0; i < s.length; i++) {
      const code = StandardSubstitute.code(s.charCodeAt(i))
      if (names[code] === '.notdef') controls = true
      else this.used[code] = 1
    }
    if (!controls) return s
    let out = ''
    for (let i = 0; i < s.length; i++) if (names[StandardSubstitute.code(s.charCodeAt(i))] !== '.notdef') out += s[i]
    return out
  }

  /** Writes the font program, descriptor and font dictionary. */
  end (): void {
    const key = Buffer.from(this.used).toString('latin1')
    let out = this.sub.subsets.get(key)
    if (out === undefined) {
      out = this.subset()
      if (this.sub.subsets.size >= SUBSET_CACHE) this.sub.subsets.delete(this.sub.subsets.keys().next().value!)
      this.sub.subsets.set(key, out)
    }
    // Not compressed: CFF charstrings are compact already (font-embed.ts).
    const file = this.ref()
    endStream(this.doc, file, TYPE1C, out.program)
    const text = this.texts(out)
    const descriptor = this.ref(new PdfRaw(text.descriptor + '\n/FontFile3 ' + file.toString() + '\n>>'))
    descriptor.end()
    this.dictionary.data = new PdfRaw(text.font + '\n/FontDescriptor ' + descriptor.toString() + '\n>>')
    this.dictionary.end()
  }

  /**
   * The descriptor's and the font dictionary's text but their last entry (the reference to the
   * font file, to the descriptor), kept with the subset: the same subset of the same face in
   * the next document has the same text, and pdfkit's PDFObject.convert of two dictionaries per
   * face was most of what writing a cached subset cost.
   */
  private texts (out: SimpleSubset): SubsetTexts {
    const known = out.texts.get(this.id)
    if (known !== undefined) return known
    const { info } = this
    const name = subsetFontName(this.id, info)
    const texts = {
      descriptor: pdfDictOpen({
        // Nonsymbolic (32) instead of Symbolic (4): the glyphs are named by a standard encoding.
        ...descriptorFields(name, info, (info.flags & ~4) | 32),
        CharSet: out.charSet
      }),
      font: pdfDictOpen({
        Type: 'Font',
        Subtype: 'Type1',
        BaseFont: name,
        FirstChar: out.first,
        LastChar: out.last,
        Widths: out.widths,
        // PDF's WinAnsiEncoding also has space at 0xA0 and hyphen at 0xAD (ISO 32000-1 D.2, notes
        // 6 and 7); validators read a table without them: said explicitly when they are used.
        Encoding: out.nbspOrShy ? WIN_ANSI_DIFFERENCES : 'WinAnsiEncoding'
      })
    }
    out.texts.set(this.id, texts)
    return texts
  }

  /** The subset of the used codes: what the PDF objects carry that depends on the glyphs only. */
  private subset (): SimpleSubset {
    const { sub, info } = this
    const map = new GlyphMap()
    let first = 255
    let last = 0
    for (let c = 0; c < 256; c++) {
      if (this.used[c] === 0) continue
      map.include(sub.glyph(c))
      first = Math.min(first, c)
      last = Math.max(last, c)
    }
    if (first > last) first = last = 32
    const names = map.glyphs.map((g) => sub.glyphName(g))
    const widths: number[] = []
    for (let c = first; c <= last; c++) {
      sub.glyph(c)
      widths.push(this.used[c] === 0 ? 0 : sub.advance(c) * info.scale)
    }
    return {
      texts: new Map(),
      nbspOrShy: this.used[0xa0] === 1 || this.used[0xad] === 1,
      program: nameKeyedCff(this.cff, map.glyphs, names),
      first,
      last,
      widths: new PdfRaw('[' + widths.map(fmt).join(' ') + ']'),
      // Glyph names hold no parentheses or backslashes: the string needs no escapes.
      charSet: new PdfRaw('(' + names.slice(1).map((n) => '/' + n).join('') + ')')
    }
  }

  private ref (data?: Record<string, unknown> | PdfRaw): Ref { return this.doc.ref(data) as Ref }
}
