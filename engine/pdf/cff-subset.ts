// A CFF subsetter that copies bytes, the counterpart of ttf-subset.ts for OpenType fonts with
// PostScript outlines (the Noto CJK collection). fontkit's CFF subsetter parses every kept
// glyph's outline, keeps every subroutine slot of the font (28,516 local ones in one Font DICT
// of Noto Sans CJK) and encodes the whole font value by value: ~30 ms and ~54 KB per CJK font
// per document, measured. This one copies the kept charstrings, keeps only the subroutines they
// call (renumbered: cff-charstrings.ts finds them), the Font DICTs and Private DICTs of the
// glyphs' FDs, and writes a CID-keyed CFF with CID = new glyph id (charset and FDSelect for the
// new ids), embedded as FontFile3 /CIDFontType0C (font-embed.ts). Name-keyed fonts (asset OTFs)
// come out CID-keyed too, with their Private DICT in a single Font DICT. What does not depend
// on the glyphs (DICT entries, strings, the glyphs' call graph) is prepared once per font.
// Same contract as fontkit's Subset: includeGlyph() while text is encoded, encode() at the end.
import { bias, CallGraph, GLOBAL, type Code } from './cff-charstrings.js'
import { CffSource, find, OP } from './cff-read.js'
import { charstringInt, entry, fdSelect, identityCharset, index, privateDict, startOf, Strings } from './cff-write.js'
import { GlyphMap } from './glyph-map.js'
import type { UntrustedFont } from './ttf-subset.js'

/** The part of fontkit's Subset this stands in for (and falls back to). */
export interface FontSubset { includeGlyph (gid: number): number, encode (): Uint8Array }

// Top DICT operators a subset rewrites or must not carry over (a subset is not the font its
// UniqueID/XUID name). Font DICTs lose their FontName (nothing reads it; fontkit drops it too).
export const TOP_DROP = new Set<number>([
  OP.charset, OP.Encoding, OP.CharStrings, OP.Private, OP.UniqueID, OP.XUID, OP.ROS, OP.CIDCount, OP.UIDBase,
  OP.FDArray, OP.FDSelect
])
const FD_DROP = new Set<number>([OP.Private, OP.FontName])
const NONE = new Set<number>()

/** A CFF font ready to be subset: its table, its glyphs' call graph, the DICT bytes every subset copies. */
export class CffFont {
  readonly src: CffSource
  readonly graph: CallGraph
  /** The Top DICT's entries but the offsets and CIDCount, ROS first. */
  readonly top: Buffer
  readonly strings: Buffer
  /** Per source Font DICT: its entries but Private; its Private DICT's entries but Subrs. */
  private readonly fdDicts: Buffer[]
  private readonly privates: Buffer[]

  constructor (src: CffSource) {
    this.src = src
    this.graph = new CallGraph(src)
    const strings = new Strings(src)
    const ros = find(src.top, OP.ROS)
    this.top = Buffer.concat([
      ...(ros === undefined
        ? [entry(OP.ROS, strings.add('Adobe'), strings.add('Identity'), 0)]
        : strings.entries([ros], NONE)),
      ...strings.entries(src.top, TOP_DROP)
    ])
    this.fdDicts = src.fds.map((fd) => Buffer.concat(strings.entries(fd.dict, FD_DROP)))
    this.privates = src.fds.map((fd) => privateDict(src.buf, fd.priv))
    this.strings = strings.index()
  }

  /** Source Font DICT `fd`'s entries but Private. */
  fdDict (fd: number): Buffer { return pick(this.fdDicts, fd) }

  /** Source Font DICT `fd`'s Private DICT entries but Subrs. */
  privateOf (fd: number): Buffer { return pick(this.privates, fd) }
}

function pick (dicts: Buffer[], fd: number): Buffer {
  const d = dicts[fd]
  if (d === undefined) throw new Error(`CFF: no Font DICT ${fd}`)
  return d
}

export class CffSubset implements FontSubset {
  private readonly font: CffFont
  private readonly fallback: () => FontSubset
  private readonly map = new GlyphMap()

  /** `fallback` makes fontkit's subsetter, for a font this one does not handle (see encode()). */
  constructor (font: CffFont, fallback: () => FontSubset) {
    this.font = font
    this.fallback = fallback
  }

  includeGlyph (gid: number): number { return this.map.include(gid) }

  encode (): Uint8Array {
    let codes: Code[]
    try {
      codes = this.map.glyphs.map((g) => this.font.graph.glyph(g))
    } catch {
      // Charstrings this subsetter does not follow (computed subroutine numbers, seac, see
      // cff-charstrings.ts): fontkit's subsetter, given the same glyphs in the same order,
      // numbers them the same way.
      const fontkit = this.fallback()
      for (const g of this.map.glyphs) fontkit.includeGlyph(g)
      return fontkit.encode()
    }
    return new Writer(this.font).write(this.map.glyphs, codes)
  }
}

/** One subset's output: the subroutines the glyphs call, numbered in order of first call. */
export class Writer {
  private readonly font: CffFont
  private readonly number = new Map<Code, number>()
  /** Kept subroutines by group: GLOBAL or the source Font DICT. */
  readonly groups = new Map<number, Code[]>()

  constructor (font: CffFont) { this.font = font }

  write (glyphs: number[], codes: Code[]): Buffer {
    const { src } = this.font
    const n = glyphs.length
    for (const c of codes) this.follow(c)
    // Font DICTs of the kept glyphs, in order of first use.
    const fdNew = new Map<number, number>()
    const select = new Uint8Array(n)
    for (let i = 0; i < n; i++) {
      const fd = src.fdOf[glyphs[i]!] // i < n; a glyph id the call graph read is < fdOf.length
      if (fd === undefined) throw new Error('CFF: glyph id out of range')
      let k = fdNew.get(fd)
      if (k === undefined) fdNew.set(fd, (k = fdNew.size))
      select[i] = k
    }
    const fds = [...fdNew.keys()]
    const global = this.groups.get(GLOBAL) ?? []
    const parts = [
      Buffer.from([1, 0, 4, 4]), // header: version 1.0, 4 bytes, 4-byte offsets
      src.nameIndex,
      Buffer.alloc(0), // Top DICT INDEX, once the offsets are known
      this.font.strings,
      index(global.map((c) => this.emit(c))),
      identityCharset(n),
      fdSelect(select),
      index(codes.map((c) => this.emit(c))),
      Buffer.alloc(0) // FDArray, once the Private DICTs' offsets are known
    ]
    // Each Private DICT, followed by its local subroutines when it has some.
    const privs: Array<{ fd: number, part: number, size: number, at: number }> = []
    for (const fd of fds) {
      const locals = this.groups.get(fd)
      const own = this.font.privateOf(fd)
      const priv = locals === undefined ? own : withSubrs(own)
      privs.push({ fd, part: parts.length, size: priv.length, at: 0 })
      parts.push(priv)
      if (locals !== undefined) parts.push(index(locals.map((c) => this.emit(c))))
    }
    // Every offset is a 5-byte integer: a DICT's size does not depend on the values in it.
    const top = (charset: number, select: number, chars: number, fdArr: number): Buffer => index([Buffer.concat([
      this.font.top, entry(OP.CIDCount, n), entry(OP.charset, charset), entry(OP.FDSelect, select),
      entry(OP.CharStrings, chars), entry(OP.FDArray, fdArr)
    ])])
    const fdArray = (): Buffer => index(privs.map(({ fd, size, at }) =>
      Buffer.concat([this.font.fdDict(fd), entry(OP.Private, size, at)])))
    parts[2] = top(0, 0, 0, 0)
    parts[8] = fdArray()
    // The placeholders have the final sizes: the offsets can be read with them in place.
    for (const p of privs) p.at = startOf(parts, p.part)
    parts[2] = top(startOf(parts, 5), startOf(parts, 6), startOf(parts, 7), startOf(parts, 8))
    parts[8] = fdArray()
    return Buffer.concat(parts, startOf(parts, parts.length))
  }

  /** Numbers the subroutines `code` calls, and theirs, in order of first call. */
  follow (code: Code): void {
    for (const { callee } of code.calls) {
      if (this.number.has(callee)) continue
      let group = this.groups.get(callee.fd)
      if (group === undefined) this.groups.set(callee.fd, (group = []))
      this.number.set(callee, group.length)
      group.push(callee)
      this.follow(callee)
    }
  }

  /** A kept charstring or subroutine, its calls renumbered. */
  emit (code: Code): Buffer {
    const b = this.font.src.buf
    if (code.calls.length === 0) return b.subarray(code.start, code.end)
    const parts: Buffer[] = []
    let p = code.start
    for (const c of code.calls) {
      const count = this.groups.get(c.callee.fd)!.length
      parts.push(b.subarray(p, c.at), charstringInt(this.number.get(c.callee)! - bias(count)))
      p = c.at + c.len
    }
    parts.push(b.subarray(p, code.end))
    return Buffer.concat(parts)
  }
}

/** A Private DICT with its Subrs entry: the local subroutines follow it. */
export function withSubrs (priv: Buffer): Buffer {
  return Buffer.concat([priv, entry(OP.Subrs, priv.length + 6)]) // the entry: a 5-byte integer and the operator
}

/** The CFF table of a fontkit font (inside a collection, the face's own), or null: not a CFF font. */
export function cffFont (fk: unknown): CffFont | null {
  const f = fk as UntrustedFont
  const t = f.directory?.tables?.['CFF ']
  const buf = f.stream?.buffer
  if (t === undefined || !(buf instanceof Uint8Array)) return null
  try {
    return new CffFont(new CffSource(Buffer.from(buf.buffer, buf.byteOffset + t.offset, t.length)))
  } catch {
    return null // a CFF table this reader does not take: fontkit's subsetter gets the font
  }
}
