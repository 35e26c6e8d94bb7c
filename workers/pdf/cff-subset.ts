// A CFF subsetter that copies bytes, the counterpart of ttf-subset.ts for OpenType fonts with
// PostScript outlines (the Noto CJK collection). fontkit's CFF subsetter parses every kept
// glyph's outline, keeps every subroutine slot of the font (28,516 local ones in one Font DICT
// of Noto Sans CJK) and encodes the whole font value by value: ~30 ms and ~54 KB per CJK font
// per document, measured. This one copies the kept charstrings, keeps only the subroutines they
// call (renumbered: cff-charstrings.ts finds them), the Font DICTs and Private DICTs of the
// glyphs' FDs, and writes a CID-keyed CFF with CID = new glyph id (charset and FDSelect for the
// new ids), which pdfkit embeds as FontFile3 /CIDFontType0C. Name-keyed fonts (asset OTFs)
// come out CID-keyed too, with their Private DICT in a single Font DICT.
// Same contract as fontkit's Subset: includeGlyph() while text is encoded, encode() at the end.
import { walkGlyph, SubrUse } from './cff-charstrings.js'
import { CffSource, find, OP } from './cff-read.js'
import { emit, entry, fdSelect, fontDict, identityCharset, index, privateDict, Strings } from './cff-write.js'
import type { RawFont } from './ttf-subset.js'

/** The part of fontkit's Subset this stands in for (and falls back to). */
export interface FontSubset { includeGlyph (gid: number): number, encode (): Uint8Array }

// Top DICT operators a subset rewrites or must not carry over (a subset is not the font its
// UniqueID/XUID name).
const TOP_DROP = new Set<number>([
  OP.charset, OP.Encoding, OP.CharStrings, OP.Private, OP.UniqueID, OP.XUID, OP.ROS, OP.CIDCount, OP.UIDBase,
  OP.FDArray, OP.FDSelect
])

const NONE = new Set<number>()

export class CffSubset implements FontSubset {
  /** pdfkit's embed() writes a FontFile3 /CIDFontType0C (not FontFile2) when the subset has `cff`. */
  readonly cff = true
  private readonly src: CffSource
  private readonly fallback: FontSubset
  private readonly glyphs: number[] = []
  private readonly mapping = new Map<number, number>()

  /** `fallback`: fontkit's subsetter, for a font this one does not handle (see encode()). */
  constructor (src: CffSource, fallback: FontSubset) {
    this.src = src
    this.fallback = fallback
    this.includeGlyph(0)
  }

  includeGlyph (gid: number): number {
    let n = this.mapping.get(gid)
    if (n === undefined) {
      n = this.glyphs.length
      this.glyphs.push(gid)
      this.mapping.set(gid, n)
    }
    return n
  }

  encode (): Uint8Array {
    try {
      return this.write()
    } catch {
      // Charstrings this subsetter does not follow (computed subroutine numbers, seac, see
      // cff-charstrings.ts): fontkit's subsetter, given the same glyphs in the same order,
      // numbers them the same way.
      for (const g of this.glyphs) this.fallback.includeGlyph(g)
      return this.fallback.encode()
    }
  }

  private write (): Buffer {
    const src = this.src
    const b = src.buf
    const n = this.glyphs.length
    const use = new SubrUse(src.fds.length)
    const charStrings = this.glyphs.map((g) => walkGlyph(src, g, use))
    // Font DICTs of the kept glyphs, in order of first use.
    const fdNew = new Map<number, number>()
    const select = new Uint8Array(n)
    for (let i = 0; i < n; i++) {
      const fd = src.fdOf[this.glyphs[i]]
      let k = fdNew.get(fd)
      if (k === undefined) fdNew.set(fd, (k = fdNew.size))
      select[i] = k
    }
    const fds = [...fdNew.keys()]
    // Each Private DICT followed by its local subroutines.
    const privates: Buffer[] = []
    const privSizes: number[] = []
    for (const fd of fds) {
      const locals = [...use.local[fd].values()]
      const priv = privateDict(b, src.fds[fd].priv, locals.length > 0)
      privSizes.push(priv.length)
      privates.push(priv)
      if (locals.length > 0) privates.push(index(locals.map((s) => emit(b, s))))
    }
    const strings = new Strings(src)
    const parts = [
      Buffer.from([1, 0, 4, 4]), // header: version 1.0, 4 bytes, 4-byte offsets
      src.nameIndex,
      Buffer.alloc(0), // Top DICT INDEX, once the offsets are known
      Buffer.alloc(0), // String INDEX, once the DICTs have named their strings
      index([...use.global.values()].map((s) => emit(b, s))),
      identityCharset(n),
      fdSelect(select),
      index(charStrings.map((c) => emit(b, c))),
      Buffer.alloc(0), // FDArray, once the Private DICTs' offsets are known
      ...privates
    ]
    // Every offset is a 5-byte integer: a DICT's size does not depend on the values in it.
    const top = (at: number[]): Buffer => index([this.topDict(strings, n, at)])
    const fdArray = (at: number[]): Buffer =>
      index(fds.map((fd, i) => fontDict(strings, src.fds[fd].dict, privSizes[i], at[i])))
    parts[2] = top([0, 0, 0, 0])
    parts[8] = fdArray(fds.map(() => 0))
    parts[3] = strings.index()
    const starts: number[] = []
    let size = 0
    for (const p of parts) { starts.push(size); size += p.length }
    parts[2] = top([starts[5], starts[6], starts[7], starts[8]])
    // The Private DICTs' offsets: the parts after the FDArray, skipping subroutine INDEXes.
    const privAt: number[] = []
    let k = 9
    for (const fd of fds) {
      privAt.push(starts[k])
      k += use.local[fd].size > 0 ? 2 : 1
    }
    parts[8] = fdArray(privAt)
    return Buffer.concat(parts, size)
  }

  /** The Top DICT: the source's entries but offsets and IDs, ROS first (a CID-keyed font). */
  private topDict (strings: Strings, n: number, [charset, select, charStrings, fdArray]: number[]): Buffer {
    const ros = find(this.src.top, OP.ROS)
    return Buffer.concat([
      ...(ros === undefined
        ? [entry(OP.ROS, strings.add('Adobe'), strings.add('Identity'), 0)]
        : strings.entries([ros], NONE)),
      ...strings.entries(this.src.top, TOP_DROP),
      entry(OP.CIDCount, n),
      entry(OP.charset, charset),
      entry(OP.FDSelect, select),
      entry(OP.CharStrings, charStrings),
      entry(OP.FDArray, fdArray)
    ])
  }
}

/** The CFF table of a fontkit font (inside a collection, the face's own), or null: not a CFF font. */
export function cffSource (fk: unknown): CffSource | null {
  const f = fk as Partial<RawFont>
  // The font object comes from fontkit over an input file; parts may be absent
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  const t = f.directory?.tables?.['CFF ']
  const buf = f.stream?.buffer
  if (t === undefined || !(buf instanceof Uint8Array)) return null
  try {
    return new CffSource(Buffer.from(buf.buffer, buf.byteOffset + t.offset, t.length))
  } catch {
    return null // a CFF table this reader does not take: fontkit's subsetter gets the font
  }
}
