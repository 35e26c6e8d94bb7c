// Which subroutines the glyphs of a CFF font call, and where each call's subroutine number is
// written, so that a subset keeps only those subroutines, renumbered. A glyph's Type 2
// charstring is walked once per font (not per document) like an interpreter would: through
// every call, counting stem hints to step over hintmask bytes, drawing nothing. What it finds
// is a call graph of charstrings and subroutines; a subset follows it from its glyphs.
// A CJK font's local subroutine INDEX has up to 28,516 entries: keeping them all (as fontkit
// does, emptied) costs more than the glyphs.
import { itemStart, type CffSource, type Index } from './cff-read.js'

/** A charstring or subroutine of the source and the calls in it. */
export interface Code {
  start: number
  end: number
  /** The calls' operands, by position: the bytes [at, at + len) name `callee`. */
  calls: Call[]
  /** Subroutines: global, or the source Font DICT whose local subroutine this is; -1 for a glyph. */
  fd: number
}
export interface Call { at: number, len: number, callee: Code }
export const GLOBAL = -2

/** Bias added to a subroutine number (Type 2 charstrings: depends on the INDEX's size). */
export function bias (count: number): number {
  return count < 1240 ? 107 : count < 33900 ? 1131 : 32768
}

// Escaped operators that compute (arithmetic, storage): a subroutine number could come out of
// them, which this walker does not follow. No font compiler writes them; such a font is
// subset by fontkit instead (see CffSubset).
const COMPUTING = new Set([3, 4, 5, 9, 10, 11, 12, 14, 15, 18, 20, 21, 22, 23, 24, 26, 27, 28, 29, 30])
const MAX_DEPTH = 10

/** The call graph of a font's glyphs, found glyph by glyph as they are asked for. */
export class CallGraph {
  private readonly src: CffSource
  private readonly glyphs = new Map<number, Code | Error>()
  private readonly global = new Map<number, Code>()
  private readonly local: Array<Map<number, Code>>

  constructor (src: CffSource) {
    this.src = src
    this.local = src.fds.map(() => new Map<number, Code>())
  }

  /** Glyph `gid`'s charstring and its calls; throws for a charstring the walker does not follow. */
  glyph (gid: number): Code {
    let code = this.glyphs.get(gid)
    if (code === undefined) {
      const src = this.src
      const start = itemStart(src.buf, src.charStrings, gid)
      const glyph: Code = { start, end: itemStart(src.buf, src.charStrings, gid + 1), calls: [], fd: -1 }
      // itemStart checked gid < count, the length of fdOf; CffSource checked every FD exists.
      const fd = src.fdOf[gid]!
      const subrs = src.fds[fd]!.subrs
      try {
        new Walker(src, subrs, (g, i, idx) => this.subr(g ? GLOBAL : fd, i, idx)).run(glyph, 0)
        code = glyph
      } catch (err) {
        code = err as Error
      }
      this.glyphs.set(gid, code)
    }
    if (code instanceof Error) throw code
    return code
  }

  private subr (fd: number, i: number, index: Index): Code {
    const map = fd === GLOBAL ? this.global : this.local[fd]
    if (map === undefined) throw new Error(`CFF: no Font DICT ${fd}`)
    let code = map.get(i)
    if (code === undefined) {
      const b = this.src.buf
      code = { start: itemStart(b, index, i), end: itemStart(b, index, i + 1), calls: [], fd }
      map.set(i, code)
    }
    return code
  }
}

type SubrOf = (global: boolean, i: number, index: Index) => Code

class Walker {
  private readonly b: Buffer
  private readonly gsubrs: Index
  private readonly lsubrs: Index | null
  private readonly subrOf: SubrOf
  /** The operand stack: values, and the byte range of the literal that pushed each. */
  private readonly vals: number[] = []
  private readonly starts: number[] = []
  private readonly ends: number[] = []
  private stems = 0
  private ended = false

  constructor (src: CffSource, lsubrs: Index | null, subrOf: SubrOf) {
    this.b = src.buf
    this.gsubrs = src.gsubrs
    this.lsubrs = lsubrs
    this.subrOf = subrOf
  }

  run (piece: Code, depth: number): void {
    const b = this.b
    let p = piece.start
    while (p < piece.end && !this.ended) {
      const b0 = b.readUInt8(p)
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
          if (COMPUTING.has(b.readUInt8(p))) throw new Error('CFF: charstring arithmetic')
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
    const b0 = b.readUInt8(p)
    let v: number
    let len = 2
    if (b0 >= 32 && b0 <= 246) {
      v = b0 - 139
      len = 1
    } else if (b0 >= 247 && b0 <= 250) {
      v = (b0 - 247) * 256 + b.readUInt8(p + 1) + 108
    } else if (b0 >= 251 && b0 <= 254) {
      v = -(b0 - 251) * 256 - b.readUInt8(p + 1) - 108
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
  private call (piece: Code, op: number, global: boolean, depth: number): void {
    const v = this.vals.pop()
    const at = this.starts.pop()
    const end = this.ends.pop()
    if (v === undefined || at === undefined || at < piece.start || end !== op) {
      throw new Error('CFF: subroutine number not a literal before its call')
    }
    const index = global ? this.gsubrs : this.lsubrs
    if (index === null) throw new Error('CFF: local subroutine call without Subrs')
    const i = v + bias(index.count)
    if (!Number.isInteger(i) || i < 0 || i >= index.count) throw new Error('CFF: subroutine number out of range')
    if (depth >= MAX_DEPTH) throw new Error('CFF: subroutines nested too deep')
    const sub = this.subrOf(global, i, index)
    addCall(piece, at, op - at, sub)
    this.run(sub, depth + 1)
  }
}

/** Records a call (once: a subroutine is walked again at every call), keeping calls in byte order. */
function addCall (code: Code, at: number, len: number, callee: Code): void {
  const calls = code.calls
  let k = calls.length
  while (k > 0 && calls[k - 1]!.at >= at) k--
  if (calls[k]?.at === at) return
  calls.splice(k, 0, { at, len, callee })
}
