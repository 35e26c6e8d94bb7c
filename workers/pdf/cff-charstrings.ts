// Which subroutines the kept glyphs of a CFF font call, and where each call's subroutine number
// is written, so that a subset keeps only those subroutines, renumbered. The glyphs' Type 2
// charstrings are walked like an interpreter would (through every call, counting stem hints to
// step over hintmask bytes) but nothing is drawn. A CJK font's local subroutine INDEX has up to
// 28,516 entries: keeping them all (as fontkit does, emptied) costs more than the glyphs.
import { itemStart, type CffSource, type Index } from './cff-read.js'

/** A charstring or subroutine of the source that the subset keeps, with its rewritten calls. */
export interface Piece {
  start: number
  end: number
  /** Subroutine number operands to rewrite, by byte position. */
  edits: Map<number, Edit>
  /** Position in the subset's subroutine INDEX, and the subroutines of that INDEX (subroutines only). */
  index: number
  group: Map<number, Piece> | null
}
/** The bytes [at, at + len) are a call's operand: they become `callee`'s new number. */
export interface Edit { at: number, len: number, callee: Piece }

/** The subroutines used so far: global, and local per Font DICT of the source. */
export class SubrUse {
  readonly global = new Map<number, Piece>()
  readonly local: Array<Map<number, Piece>>
  constructor (fds: number) { this.local = Array.from({ length: fds }, () => new Map<number, Piece>()) }
}

/** Bias added to a subroutine number (Type 2 charstrings: depends on the INDEX's size). */
export function bias (count: number): number {
  return count < 1240 ? 107 : count < 33900 ? 1131 : 32768
}

// Escaped operators that compute (arithmetic, storage): a subroutine number could come out of
// them, which this walker does not follow. No font compiler writes them; such a font is
// subset by fontkit instead (see CffSubset).
const COMPUTING = new Set([3, 4, 5, 9, 10, 11, 12, 14, 15, 18, 20, 21, 22, 23, 24, 26, 27, 28, 29, 30])
const MAX_DEPTH = 10

/** Walks the charstring of glyph `gid` and the subroutines it calls, adding them to `use`. */
export function walkGlyph (src: CffSource, gid: number, use: SubrUse): Piece {
  const b = src.buf
  const cs = src.charStrings
  const start = itemStart(b, cs, gid)
  const piece: Piece = { start, end: itemStart(b, cs, gid + 1), edits: new Map(), index: -1, group: null }
  const fd = src.fds[src.fdOf[gid]]
  new Walker(src, fd.subrs, use.local[src.fdOf[gid]], use.global).run(piece, 0)
  return piece
}

class Walker {
  private readonly b: Buffer
  private readonly gsubrs: Index
  private readonly lsubrs: Index | null
  private readonly lmap: Map<number, Piece>
  private readonly gmap: Map<number, Piece>
  /** The operand stack: values, and the byte range of the literal that pushed each. */
  private readonly vals: number[] = []
  private readonly starts: number[] = []
  private readonly ends: number[] = []
  private stems = 0
  private ended = false

  constructor (src: CffSource, lsubrs: Index | null, lmap: Map<number, Piece>, gmap: Map<number, Piece>) {
    this.b = src.buf
    this.gsubrs = src.gsubrs
    this.lsubrs = lsubrs
    this.lmap = lmap
    this.gmap = gmap
  }

  run (piece: Piece, depth: number): void {
    const b = this.b
    let p = piece.start
    while (p < piece.end && !this.ended) {
      const b0 = b[p]
      if (b0 >= 32 || b0 === 28) { p = this.number(p); continue }
      p++
      switch (b0) {
        case 1: case 3: case 18: case 23: // hstem vstem hstemhm vstemhm
          this.stems += this.vals.length >> 1
          this.clear()
          break
        case 19: case 20: // hintmask cntrmask: arguments before them are vstems; a mask byte per 8 stems
          this.stems += this.vals.length >> 1
          this.clear()
          p += (this.stems + 7) >> 3
          break
        case 10: case 29: // callsubr callgsubr
          this.call(piece, p - 1, b0 === 29, depth)
          break
        case 11: // return
          return
        case 14: // endchar; four more arguments would be seac (an accented character from two glyphs)
          if (this.vals.length >= 4) throw new Error('CFF: endchar with seac arguments')
          this.ended = true
          return
        case 12:
          if (COMPUTING.has(b[p])) throw new Error('CFF: charstring arithmetic')
          p++
          this.clear()
          break
        default:
          this.clear()
      }
    }
  }

  private number (p: number): number {
    const b = this.b
    const b0 = b[p]
    let v: number
    let len = 2
    if (b0 >= 32 && b0 <= 246) {
      v = b0 - 139
      len = 1
    } else if (b0 >= 247 && b0 <= 250) {
      v = (b0 - 247) * 256 + b[p + 1] + 108
    } else if (b0 >= 251 && b0 <= 254) {
      v = -(b0 - 251) * 256 - b[p + 1] - 108
    } else if (b0 === 28) {
      v = b.readInt16BE(p + 1)
      len = 3
    } else {
      v = b.readInt32BE(p + 1) / 65536 // 16.16 fixed
      len = 5
    }
    if (this.vals.length >= 48) throw new Error('CFF: charstring stack overflow')
    this.vals.push(v)
    this.starts.push(p)
    this.ends.push(p + len)
    return p + len
  }

  private clear (): void { this.vals.length = 0; this.starts.length = 0; this.ends.length = 0 }

  /** A call at `op`: its operand must be the literal just before it (rewritten in place). */
  private call (piece: Piece, op: number, global: boolean, depth: number): void {
    const v = this.vals.pop()
    const at = this.starts.pop()
    const end = this.ends.pop()
    if (v === undefined || at === undefined || at < piece.start || end !== op) throw new Error('CFF: subroutine number not a literal before its call')
    const index = global ? this.gsubrs : this.lsubrs
    if (index === null) throw new Error('CFF: local subroutine call without Subrs')
    const i = v + bias(index.count)
    if (!Number.isInteger(i) || i < 0 || i >= index.count) throw new Error('CFF: subroutine number out of range')
    if (depth >= MAX_DEPTH) throw new Error('CFF: subroutines nested too deep')
    const map = global ? this.gmap : this.lmap
    let sub = map.get(i)
    if (sub === undefined) {
      const start = itemStart(this.b, index, i)
      sub = { start, end: itemStart(this.b, index, i + 1), edits: new Map(), index: map.size, group: map }
      map.set(i, sub)
    }
    piece.edits.set(at, { at, len: op - at, callee: sub })
    this.run(sub, depth + 1)
  }
}
