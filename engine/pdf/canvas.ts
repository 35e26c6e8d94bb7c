// Content-stream builder for one page region. pdfkit's addPage() leaves the CTM flipped
// (y grows downwards, origin top-left), so boxes are written in layout coordinates as they
// are; text objects flip back with a `1 0 0 -1 x y Tm` text matrix. Colour, font and line
// width are only written when they change; a fresh canvas assumes nothing, so canvases can be
// concatenated in any order.
import { hasRtl, visualPieces, type Piece } from './bidi.js'
import { DocFonts, type FontFace } from './fonts.js'
import type { PreparedImage } from './images.js'
import { utf16Hex } from './pdf-raw.js'
import { ContentOps } from './content-ops.js'
import type { Style } from './model.js'
import type { Tags } from './tags.js'
import { emptied } from '../lists.js'

export class Canvas {
  /** The content drawn so far (content-ops.ts). */
  readonly ops = new ContentOps()
  /** A held page's content, copied out of `ops` while it waits for the page count (pager.ts). */
  held: Buffer | null = null
  private fill = ''
  private stroke = ''
  private lw = -1
  private face: FontFace | null = null
  private size = -1
  /** Faces and images used here: the page's resource dictionary needs them. */
  readonly faces: FontFace[] = []
  readonly images: PreparedImage[] = []
  readonly fonts: DocFonts
  private readonly pieces: Piece[] = []
  /** A body canvas of a tagged document: what is drawn here is tagged (tags.ts). */
  tags: Tags | null = null
  /** Tagged: the structure element (its object id) of each marked-content sequence, by MCID. */
  readonly parents: number[] = []

  constructor (fonts: DocFonts, tags: Tags | null = null) { this.fonts = fonts; this.tags = tags }

  reset (): void {
    this.ops.reset()
    this.held = null
    this.fill = ''
    this.stroke = ''
    this.lw = -1
    this.face = null
    this.size = -1
    emptied(this.faces)
    emptied(this.images)
    emptied(this.parents)
  }

  private fillColor (c: string): void {
    if (c !== this.fill) {
      this.ops.str(c)
      this.ops.str(' rg\n')
      this.fill = c
    }
  }

  /**
   * One line of text; `top` is the top of the line box, `rtl` the direction of its paragraph.
   * Each piece (font run, in visual order) continues where the previous one ended.
   * `sep` (tagged documents): the line ends inside its paragraph, so its text gets a space at
   * the logical end, or a reader of the structure runs the last word into the next line's first.
   * Left to right it is drawn, an invisible glyph after the line (placement unchanged); right to
   * left the logical end is the visual left, where a drawn space would push the line over, so it
   * goes only into the line's /ActualText (which every right-to-left line has when tagged).
   */
  text (style: Style, line: string, x: number, top: number, rtl = false, sep = false): void {
    if (line.length === 0) return
    const logical = sep ? line + ' ' : line
    const s = sep && !rtl ? logical : line
    this.fillColor(style.color)
    const o = this.ops
    o.str('BT\n1 0 0 -1 ')
    o.num(x)
    o.str(' ')
    o.num(top + style.ascent)
    o.str(' Tm\n')
    const start = o.length
    // Bidi text may come out reordered even in left-to-right pieces ("123 abc" in a
    // right-to-left paragraph is drawn "abc 123"): the whole line gets its logical text.
    const actual = this.fonts.actualText
    // One test of the line for right-to-left characters (the separator is a space), shared with
    // visualPieces, whose own test would read the new string `s` again.
    const anyRtl = rtl || hasRtl(line)
    let shaped = actual && anyRtl
    for (const p of visualPieces(style.face, s, rtl, this.pieces, anyRtl)) {
      let face = p.face
      if (face === null) {
        for (const ch of p.text) if (ch !== ' ') this.fonts.missing.add(ch.codePointAt(0)!)
        face = style.face.notdefFace()
      }
      if (face !== this.face || style.size !== this.size) {
        const name = this.fonts.resName(face)
        if (!this.faces.includes(face)) this.faces.push(face)
        o.str('/')
        o.str(name)
        o.str(' ')
        o.num(style.size)
        o.str(' Tf\n')
        this.face = face
        this.size = style.size
      }
      o.str(this.fonts.show(face, p.text, p.rtl))
      o.str('\n')
      // (A shape lookup hits the cache show() just filled.)
      if (actual && !shaped) shaped = p.rtl || (face.fk !== null && !face.shape(p.text, false).logical)
    }
    // Glyphs drawn in visual order or shaped (right-to-left runs, Arabic joining forms, ligatures)
    // do not read back as the text: they go in a /Span whose /ActualText is the line in logical
    // order (UTF-16BE), which assistive technology reading the structure tree uses instead (ISO
    // 32000-1 14.9.4). Tagged documents only: poppler (22.12) takes the ActualText of right-to-left
    // text for visual order and reverses it again, so an untagged document, read by glyph
    // position, keeps the bytes it always had (docs/accessibility.md). Whether the line needs it
    // is known once its pieces are written: the Span's opening goes in before them then.
    if (shaped) {
      o.insert(start, '/Span <</ActualText ' + utf16Hex(logical) + '>> BDC\n')
      o.str('EMC\n')
    }
    o.str('ET\n')
  }

  rect (x: number, y: number, w: number, h: number, color: string): void {
    this.fillColor(color)
    this.box(x, y, w, h)
    this.ops.str(' re f\n')
  }

  /** Many filled rectangles in one path (barcode bars): `xywh` holds x, y, w, h quadruples. */
  rects (xywh: number[], color: string): void {
    if (xywh.length === 0) return
    if (xywh.length % 4 !== 0) throw new Error('rects: x, y, w, h quadruples expected')
    this.fillColor(color)
    // i + 3 < xywh.length: whole quadruples (checked above).
    for (let i = 0; i < xywh.length; i += 4) {
      this.box(xywh[i]!, xywh[i + 1]!, xywh[i + 2]!, xywh[i + 3]!)
      this.ops.str(' re\n')
    }
    this.ops.str('f\n')
  }

  strokeRect (x: number, y: number, w: number, h: number, color: string, thickness: number): void {
    this.strokeSetup(color, thickness)
    this.box(x, y, w, h)
    this.ops.str(' re S\n')
  }

  line (x1: number, y1: number, x2: number, y2: number, color: string, thickness: number): void {
    this.strokeSetup(color, thickness)
    const o = this.ops
    o.num(x1)
    o.str(' ')
    o.num(y1)
    o.str(' m ')
    o.num(x2)
    o.str(' ')
    o.num(y2)
    o.str(' l S\n')
  }

  private strokeSetup (color: string, thickness: number): void {
    if (color !== this.stroke) {
      this.ops.str(color)
      this.ops.str(' RG\n')
      this.stroke = color
    }
    if (thickness !== this.lw) {
      this.ops.num(thickness)
      this.ops.str(' w\n')
      this.lw = thickness
    }
  }

  image (img: PreparedImage, x: number, y: number, w: number, h: number): void {
    if (!this.images.includes(img)) this.images.push(img)
    // Flip the unit square back upright inside the y-down page.
    const o = this.ops
    o.str('q ')
    o.num(w)
    o.str(' 0 0 ')
    o.num(-h)
    o.str(' ')
    o.num(x)
    o.str(' ')
    o.num(y + h)
    o.str(' cm /I' + img.index + ' Do Q\n')
  }

  /** `x y w h`, the operands of `re`. */
  private box (x: number, y: number, w: number, h: number): void {
    const o = this.ops
    o.num(x)
    o.str(' ')
    o.num(y)
    o.str(' ')
    o.num(w)
    o.str(' ')
    o.num(h)
  }
}

/**
 * A canvas that draws nothing, for the counting pass (render-pdf.ts): layout needs only
 * heights, which the elements measure themselves; encoding text for a page nobody writes is
 * wasted work.
 */
export class NullCanvas extends Canvas {
  override text (): void {}
  override rect (): void {}
  override rects (): void {}
  override strokeRect (): void {}
  override line (): void {}
  override image (): void {}
}
