// A TrueType (glyf) subsetter that copies bytes. fontkit's subsetter re-encodes every table
// value by value through `restructure` (the hinting programs alone are thousands of calls):
// ~7 ms per font per document, measured, six times the whole standard-font invoice. This one
// copies the glyph records (rewriting component ids of compound glyphs), builds loca and hmtx,
// patches head/hhea/maxp: well under a millisecond. Hinting is left out (the glyphs'
// instructions and cvt/fpgm/prep): PDF viewers render outlines unhinted or hint them
// automatically, and compressing the hinting programs into every document was a fifth of the
// render time of an invoice with one Polish name (measured).
// Same contract as fontkit's Subset (pdfkit calls includeGlyph() while encoding text, encode()
// when the document ends); new glyph ids are given in order of first use, so output is
// deterministic. CFF fonts (the CJK collection) have their own: cff-subset.ts.
import { GlyphMap } from './glyph-map.js'

interface TableRecord { offset: number, length: number }
/** The parts of a fontkit TTFFont this reads: the file bytes and its table directory. */
export interface RawFont {
  stream: { buffer: Uint8Array }
  directory: { tables: Record<string, TableRecord | undefined> }
}

/** A fontkit font object as this code may meet it: made from an input file, any part may be absent. */
export interface UntrustedFont {
  stream?: { buffer?: unknown }
  directory?: { tables?: Record<string, TableRecord | undefined> }
}

const ARG_1_AND_2_ARE_WORDS = 0x0001
const WE_HAVE_A_SCALE = 0x0008
const MORE_COMPONENTS = 0x0020
const WE_HAVE_AN_X_AND_Y_SCALE = 0x0040
const WE_HAVE_A_TWO_BY_TWO = 0x0080
const WE_HAVE_INSTRUCTIONS = 0x0100

export function isGlyfFont (fk: unknown): boolean {
  const f = fk as UntrustedFont
  return (
    f.directory?.tables?.glyf !== undefined &&
    f.directory.tables.loca !== undefined &&
    f.stream?.buffer instanceof Uint8Array
  )
}

export class TtfSubset {
  private readonly buf: Buffer
  private readonly tables: Record<string, TableRecord | undefined>
  private readonly map = new GlyphMap()

  constructor (font: RawFont) {
    const b = font.stream.buffer
    this.buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength)
    this.tables = font.directory.tables
  }

  includeGlyph (gid: number): number { return this.map.include(gid) }

  encode (): Buffer {
    const b = this.buf
    const head = this.table('head')
    const hhea = this.table('hhea')
    const longLoca = b.readInt16BE(head.offset + 50) === 1
    const loca = this.table('loca').offset
    const glyfAt = this.table('glyf').offset
    const hmtx = this.table('hmtx').offset
    const metrics = b.readUInt16BE(hhea.offset + 34)
    const parts: Buffer[] = []
    const offsets: number[] = [0]
    const hmtxOut: number[] = []
    let size = 0
    // Compound glyphs add their components while we go: loop by index over a growing list.
    for (let i = 0; i < this.map.glyphs.length; i++) {
      const gid = this.map.glyphs[i]! // i < length
      const start = longLoca ? b.readUInt32BE(loca + gid * 4) : b.readUInt16BE(loca + gid * 2) * 2
      const end = longLoca ? b.readUInt32BE(loca + gid * 4 + 4) : b.readUInt16BE(loca + gid * 2 + 2) * 2
      let g = b.subarray(glyfAt + start, glyfAt + end)
      let len = g.length
      if (len >= 10 && g.readInt16BE(0) < 0) {
        g = this.remapComponents(Buffer.from(g))
        len = g.length
        parts.push(g)
      } else if (len >= 10) {
        len = pushWithoutInstructions(g, parts)
      } else parts.push(g)
      const pad = (4 - (len & 3)) & 3
      if (pad > 0) parts.push(ZEROS.subarray(0, pad))
      size += len + pad
      offsets.push(size)
      const m = Math.min(gid, metrics - 1)
      const advance = b.readUInt16BE(hmtx + m * 4)
      const lsb =
        gid < metrics ? b.readInt16BE(hmtx + gid * 4 + 2) : b.readInt16BE(hmtx + metrics * 4 + (gid - metrics) * 2)
      hmtxOut.push(advance, lsb)
    }
    const n = this.map.glyphs.length
    const locaOut = Buffer.alloc((n + 1) * 4)
    offsets.forEach((o, i) => locaOut.writeUInt32BE(o, i * 4))
    const hmtxBuf = Buffer.alloc(n * 4)
    // Pairs of advance (unsigned) and left side bearing (signed), 2 bytes each.
    hmtxOut.forEach((v, k) => {
      if ((k & 1) === 0) hmtxBuf.writeUInt16BE(v, k * 2)
      else hmtxBuf.writeInt16BE(v, k * 2)
    })
    const headOut = Buffer.from(b.subarray(head.offset, head.offset + head.length))
    headOut.writeUInt32BE(0, 8) // checkSumAdjustment: not needed inside a PDF
    headOut.writeInt16BE(1, 50) // long loca offsets
    const hheaOut = Buffer.from(b.subarray(hhea.offset, hhea.offset + hhea.length))
    hheaOut.writeUInt16BE(n, 34) // every glyph has its own advance
    const maxp = this.table('maxp')
    const maxpOut = Buffer.from(b.subarray(maxp.offset, maxp.offset + maxp.length))
    maxpOut.writeUInt16BE(n, 4)
    const out: Array<[string, Buffer]> = [
      ['glyf', Buffer.concat(parts, size)], ['head', headOut], ['hhea', hheaOut], ['hmtx', hmtxBuf], ['loca', locaOut],
      ['maxp', maxpOut]
    ]
    return directory(out)
  }

  private table (tag: string): TableRecord {
    const t = this.tables[tag]
    if (t === undefined) throw new Error(`font has no ${tag} table`)
    return t
  }

  private remapComponents (g: Buffer): Buffer {
    let p = 10
    for (;;) {
      const flags = g.readUInt16BE(p)
      g.writeUInt16BE(flags & ~WE_HAVE_INSTRUCTIONS, p)
      g.writeUInt16BE(this.includeGlyph(g.readUInt16BE(p + 2)), p + 2)
      p += 4 + ((flags & ARG_1_AND_2_ARE_WORDS) !== 0 ? 4 : 2)
      if ((flags & WE_HAVE_A_SCALE) !== 0) p += 2
      else if ((flags & WE_HAVE_AN_X_AND_Y_SCALE) !== 0) p += 4
      else if ((flags & WE_HAVE_A_TWO_BY_TWO) !== 0) p += 8
      // The instructions after the last component are dropped with the flag.
      if ((flags & MORE_COMPONENTS) === 0) return g.subarray(0, p)
    }
  }
}

const ZEROS = Buffer.alloc(4)

/**
 * A simple glyph without its instructions (header, contour ends, length 0, then the points),
 * as slices of the font's bytes pushed onto `parts` (no copy per glyph); returns its length.
 */
function pushWithoutInstructions (g: Buffer, parts: Buffer[]): number {
  const at = 10 + 2 * g.readInt16BE(0)
  const len = g.readUInt16BE(at)
  if (len === 0) { parts.push(g); return g.length }
  parts.push(g.subarray(0, at), ZEROS.subarray(0, 2), g.subarray(at + 2 + len))
  return g.length - len
}

/** An sfnt file: offset table, table records (sorted by tag), then the 4-byte aligned tables. */
function directory (tables: Array<[string, Buffer]>): Buffer {
  tables.sort((a, b) => (a[0] < b[0] ? -1 : 1))
  const n = tables.length
  const pow = 2 ** Math.floor(Math.log2(n))
  const headLen = 12 + 16 * n
  let size = headLen
  for (const [, d] of tables) size += (d.length + 3) & ~3
  const out = Buffer.alloc(size)
  out.writeUInt32BE(0x00010000, 0)
  out.writeUInt16BE(n, 4)
  out.writeUInt16BE(pow * 16, 6)
  out.writeUInt16BE(Math.log2(pow), 8)
  out.writeUInt16BE(n * 16 - pow * 16, 10)
  let at = headLen
  tables.forEach(([tag, d], i) => {
    const r = 12 + 16 * i
    out.write(tag, r, 4, 'latin1')
    d.copy(out, at)
    out.writeUInt32BE(checksum(out, at, (d.length + 3) & ~3), r + 4)
    out.writeUInt32BE(at, r + 8)
    out.writeUInt32BE(d.length, r + 12)
    at += (d.length + 3) & ~3
  })
  return out
}

function checksum (b: Buffer, at: number, len: number): number {
  let sum = 0
  for (let i = 0; i < len; i += 4) sum = (sum + b.readUInt32BE(at + i)) >>> 0
  return sum
}
