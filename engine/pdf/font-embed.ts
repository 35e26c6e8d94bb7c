// An embedded font of one document: its subset and the PDF objects written for it at the end
// (Type0 font, CIDFont, descriptor, font program, ToUnicode map), in place of pdfkit's
// EmbeddedFont, whose constructor asked fontkit for a subset and metrics per document, whose
// ToUnicode map went through a character-by-character string copy, and which deflated every
// font program, even small ones for which that costs more than it saves (STORE_UP_TO). What
// does not depend on the document (names, flags, box, metrics) is computed once per face
// (FaceInfo). Same objects and keys as pdfkit writes; the .notdef width is scaled to 1/1000 em
// like every other width (pdfkit wrote it in font units).
import { type CffFont, CffSubset, type FontSubset } from './cff-subset.js'
import { pdfString, type PdfDictValue } from './pdf-raw.js'
import { isGlyfFont, TtfSubset, type RawFont } from './ttf-subset.js'

/** The parts of a fontkit font read here (fontkit ships no types). */
interface FontkitTables {
  'OS/2'?: { sFamilyClass?: number }
  post: { isFixedPitch?: number }
  head: { macStyle: { italic?: boolean } }
  bbox: { minX: number, minY: number, maxX: number, maxY: number }
  postscriptName?: string
  italicAngle: number
  unitsPerEm: number
  ascent: number
  descent: number
  capHeight?: number
  xHeight?: number
  getGlyph (id: number): { advanceWidth: number }
  createSubset (): FontSubset & { cff?: unknown }
}

/** What the font objects of a face carry in every document. */
export interface FaceInfo {
  psName: string
  scale: number
  flags: number
  bbox: number[]
  italicAngle: number
  ascent: number
  descent: number
  capHeight: number
  xHeight: number
  notdefWidth: number
}

/** A subset font's name: a six-letter tag from the document's font id, '+', the face's name. */
export function subsetFontName (id: string, info: FaceInfo): string {
  const tag = [1, 2, 3, 4, 5, 6].map((i) => String.fromCharCode((id.charCodeAt(i) || 73) + 17)).join('')
  return tag + '+' + info.psName
}

/** The FontDescriptor entries every embedded face writes (its font file and extras are added). */
export function descriptorFields (name: string, info: FaceInfo, flags: number): Record<string, PdfDictValue> {
  return {
    Type: 'FontDescriptor',
    FontName: name,
    Flags: flags,
    FontBBox: info.bbox,
    ItalicAngle: info.italicAngle,
    Ascent: info.ascent,
    Descent: info.descent,
    CapHeight: info.capHeight,
    XHeight: info.xHeight,
    StemV: 0
  }
}

export function faceInfo (fk: unknown): FaceInfo {
  const f = fk as FontkitTables
  const scale = 1000 / f.unitsPerEm
  const familyClass = (f['OS/2']?.sFamilyClass ?? 0) >> 8
  // PDF font flags: FixedPitch 1, Serif 2, Symbolic 4 (always: glyphs by CID), Script 8, Italic 64.
  let flags = 4
  if (f.post.isFixedPitch !== undefined && f.post.isFixedPitch !== 0) flags |= 1
  if (familyClass >= 1 && familyClass <= 7) flags |= 2
  if (familyClass === 10) flags |= 8
  if (f.head.macStyle.italic === true) flags |= 64
  const { bbox } = f
  return {
    psName: (f.postscriptName ?? 'Font').replaceAll(' ', '_'),
    scale,
    flags,
    bbox: [bbox.minX * scale, bbox.minY * scale, bbox.maxX * scale, bbox.maxY * scale],
    italicAngle: f.italicAngle,
    ascent: f.ascent * scale,
    descent: f.descent * scale,
    capHeight: (f.capHeight ?? f.ascent) * scale,
    xHeight: (f.xHeight ?? 0) * scale,
    notdefWidth: f.getGlyph(0).advanceWidth * scale
  }
}

// Font programs written without compression: CFF programs (Type 2 charstrings are already
// compact: deflate took 7% off a 3 KB CJK subset), and TrueType subsets up to this size. A
// render deflates each stream with a new zlib stream on cold caches: ~150 µs CPU for a 2.2 KB
// Arabic subset (measured; ~45 µs of it even at level 0), to save ~650 bytes: a tenth of the
// invoice's render time for a twentieth of its size. Larger subsets (long documents) are deflated.
const STORE_UP_TO = 8192
// ToUnicode maps up to this size (about 80 glyphs) are stored too: deflate made a 460-byte map
// of an Arabic invoice 200 bytes smaller for ~60 µs CPU per map (measured, in a render).
const CMAP_STORE_UP_TO = 2048

interface Ref { data: Record<string, unknown>, compress: boolean, end (chunk?: Uint8Array): void }
export interface RefMaker { ref (data?: unknown): unknown }

export class EmbeddedFace {
  readonly id: string
  /** The Type0 font object pages refer to; its dictionary is written by end(). */
  readonly dictionary: Ref
  readonly subset: FontSubset
  readonly scale: number
  /** Per subset glyph id: advance in 1/1000 em and the text it stands for. */
  readonly widths: number[]
  readonly unicode: number[][]
  private readonly doc: RefMaker
  private readonly info: FaceInfo
  private readonly cff: boolean
  private readonly cidSet: boolean

  /** `cidSet`: the descriptor lists the subset's CIDs (PDF/A-1 requires it of subset CID fonts). */
  constructor (doc: RefMaker, id: string, fk: unknown, info: FaceInfo, cff: CffFont | null, cidSet = false) {
    this.doc = doc
    this.cidSet = cidSet
    this.id = id
    this.info = info
    this.scale = info.scale
    this.dictionary = doc.ref() as Ref
    this.widths = [info.notdefWidth]
    this.unicode = [[0]]
    if (isGlyfFont(fk)) {
      this.subset = new TtfSubset(fk as RawFont)
      this.cff = false
    } else if (cff !== null) {
      this.subset = new CffSubset(cff, () => (fk as FontkitTables).createSubset())
      this.cff = true
    } else {
      // A font neither subsetter reads: fontkit's, which tells CFF by its `cff` table.
      const s = (fk as FontkitTables).createSubset()
      this.subset = s
      this.cff = s.cff !== undefined && s.cff !== null
    }
  }

  /** Writes the font's objects (once every glyph is included). */
  end (): void {
    const info = this.info
    const data = this.subset.encode()
    const file = this.ref(this.cff ? { Subtype: 'CIDFontType0C' } : {})
    file.compress = !this.cff && data.length > STORE_UP_TO
    file.end(data)
    const name = subsetFontName(this.id, info)
    const descriptor = this.ref({
      ...descriptorFields(name, info, info.flags),
      [this.cff ? 'FontFile3' : 'FontFile2']: file,
      ...(this.cidSet ? { CIDSet: this.cidSetStream() } : {})
    })
    descriptor.end()
    const descendant = this.ref({
      Type: 'Font',
      Subtype: this.cff ? 'CIDFontType0' : 'CIDFontType2',
      BaseFont: name,
      CIDSystemInfo: { Registry: pdfString('Adobe'), Ordering: pdfString('Identity'), Supplement: 0 },
      FontDescriptor: descriptor,
      W: [0, this.widths],
      ...(this.cff ? {} : { CIDToGIDMap: 'Identity' })
    })
    descendant.end()
    const cmap = this.ref()
    const map = toUnicodeCmap(this.unicode)
    cmap.compress = map.length > CMAP_STORE_UP_TO
    cmap.end(map)
    this.dictionary.data = {
      Type: 'Font',
      Subtype: 'Type0',
      BaseFont: name,
      Encoding: 'Identity-H',
      DescendantFonts: [descendant],
      ToUnicode: cmap
    }
    this.dictionary.end()
  }

  /** One bit per CID, most significant first: the glyphs of the subset (CID = subset glyph id). */
  private cidSetStream (): Ref {
    const bits = new Uint8Array(Math.ceil(this.widths.length / 8))
    this.widths.forEach((_w, cid) => { const k = cid >> 3; bits[k] = (bits[k] ?? 0) | (0x80 >> (cid & 7)) })
    const ref = this.ref()
    ref.end(bits)
    return ref
  }

  private ref (data?: Record<string, unknown>): Ref { return this.doc.ref(data) as Ref }
}

/** A glyph id or UTF-16 unit as 4 hex digits. */
export const HEX4 = (n: number): string => (n < 0x1000 ? ('000' + n.toString(16)).slice(-4) : n.toString(16))

/** A ToUnicode CMap: glyph id → text, in ranges of 256 ids (as pdfkit writes it). */
export function toUnicodeCmap (unicode: number[][]): Buffer {
  let ranges = ''
  let count = 0
  for (let start = 0; start < unicode.length; start += 256) {
    const end = Math.min(start + 256, unicode.length)
    ranges += `<${HEX4(start)}> <${HEX4(end - 1)}> [`
    for (let g = start; g < end; g++) {
      ranges += g === start ? '<' : ' <'
      const cps = unicode[g]
      if (cps === undefined) throw new Error(`ToUnicode: glyph ${g} has no text`)
      for (let i = 0; i < cps.length; i++) {
        let v = cps[i]! // i < cps.length
        if (i > 0) ranges += ' '
        if (v > 0xffff) {
          v -= 0x10000
          ranges += HEX4(((v >>> 10) & 0x3ff) | 0xd800) + ' '
          v = 0xdc00 | (v & 0x3ff)
        }
        ranges += HEX4(v)
      }
      ranges += '>'
    }
    ranges += ']\n'
    count++
  }
  return Buffer.from(`/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CIDSystemInfo <<
  /Registry (Adobe)
  /Ordering (UCS)
  /Supplement 0
>> def
/CMapName /Adobe-Identity-UCS def
/CMapType 2 def
1 begincodespacerange
<0000><ffff>
endcodespacerange
${count} beginbfrange
${ranges}endbfrange
endcmap
CMapName currentdict /CMap defineresource pop
end
end
`, 'latin1')
}
