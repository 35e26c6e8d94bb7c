// Writing the parts of a CFF table (Adobe Technical Note #5176) for cff-subset.ts: INDEXes,
// DICTs made of the source's entries (copied as bytes) plus offsets, charset and FDSelect.
import { arg, itemStart, OP, type CffSource, type Entry } from './cff-read.js'

/** An INDEX of `items` with the smallest offset size that fits. */
export function index (items: Buffer[]): Buffer {
  if (items.length === 0) return Buffer.from([0, 0])
  let size = 1
  for (const it of items) size += it.length
  const offSize = size < 0x100 ? 1 : size < 0x10000 ? 2 : size < 0x1000000 ? 3 : 4
  const head = Buffer.alloc(3 + (items.length + 1) * offSize)
  head.writeUInt16BE(items.length, 0)
  head[2] = offSize
  let off = 1
  for (let i = 0; i < items.length; i++) {
    head.writeUIntBE(off, 3 + i * offSize, offSize)
    off += items[i]!.length // i < items.length
  }
  head.writeUIntBE(off, 3 + items.length * offSize, offSize)
  return Buffer.concat([head, ...items], head.length + size - 1)
}

/** Where part `k` starts when `parts` are laid end to end (a table's offsets before it is joined). */
export function startOf (parts: readonly Buffer[], k: number): number {
  if (k > parts.length) throw new Error(`CFF: no part ${k} among ${parts.length}`)
  let at = 0
  for (const p of parts.slice(0, k)) at += p.length
  return at
}

/** A DICT operand as a 5-byte integer, whatever its value (offsets are filled in afterwards). */
function int5 (v: number): Buffer {
  const out = Buffer.alloc(5)
  out[0] = 29
  out.writeInt32BE(v, 1)
  return out
}

function operator (op: number): Buffer {
  return op >= 1200 ? Buffer.from([12, op - 1200]) : Buffer.from([op])
}

/** A DICT entry with integer operands. */
export function entry (op: number, ...args: number[]): Buffer {
  return Buffer.concat([...args.map(int5), operator(op)])
}

/** The source entries of `dict` not in `drop`, as their bytes. */
export function copied (b: Buffer, dict: Entry[], drop: ReadonlySet<number>): Buffer[] {
  return dict.filter((e) => !drop.has(e.op)).map((e) => b.subarray(e.start, e.end))
}

/** An integer as a Type 2 charstring operand (the shortest form). */
export function charstringInt (v: number): Buffer {
  if (v >= -107 && v <= 107) return Buffer.from([v + 139])
  if (v >= 108 && v <= 1131) return Buffer.from([((v - 108) >> 8) + 247, (v - 108) & 0xff])
  if (v >= -1131 && v <= -108) return Buffer.from([((-v - 108) >> 8) + 251, (-v - 108) & 0xff])
  const out = Buffer.alloc(3)
  out[0] = 28
  out.writeInt16BE(v, 1)
  return out
}

const SUBRS = new Set<number>([OP.Subrs])

/** A Private DICT's entries but Subrs. */
export function privateDict (b: Buffer, priv: Entry[]): Buffer {
  return Buffer.concat(copied(b, priv, SUBRS))
}

/** charset of a subset whose glyph i is CID i (format 2: one range 1 … n − 1). */
export function identityCharset (n: number): Buffer {
  if (n < 2) return Buffer.from([0])
  const out = Buffer.alloc(5)
  out[0] = 2
  out.writeUInt16BE(1, 1)
  out.writeUInt16BE(n - 2, 3)
  return out
}

/** FDSelect format 3: ranges of glyphs with the same Font DICT. */
export function fdSelect (fds: Uint8Array): Buffer {
  const ranges: number[] = []
  for (let g = 0; g < fds.length; g++) if (g === 0 || fds[g] !== fds[g - 1]) ranges.push(g)
  const out = Buffer.alloc(5 + ranges.length * 3)
  out[0] = 3
  out.writeUInt16BE(ranges.length, 1)
  ranges.forEach((g, r) => { out.writeUInt16BE(g, 3 + r * 3); out[5 + r * 3] = fds[g]! }) // g < fds.length
  out.writeUInt16BE(fds.length, 3 + ranges.length * 3)
  return out
}

// Operators whose operand is a string id (ROS has two, then a number).
const SID_OPS = new Set([0, 1, 2, 3, 4, 1200, 1221, 1222, 1238])

/**
 * The subset's String INDEX: only the strings its DICTs name, renumbered (a name-keyed font's
 * strings are mostly glyph names, which a CID-keyed subset does not have).
 */
export class Strings {
  private readonly src: CffSource
  private readonly items: Buffer[] = []
  private readonly sids = new Map<number | string, number>()

  constructor (src: CffSource) { this.src = src }

  /** The subset's id of the source's string `sid` (ids below 391 are the standard strings). */
  sid (sid: number): number {
    if (sid < 391) return sid
    const b = this.src.buf
    const i = sid - 391
    if (i >= this.src.strings.count) throw new Error('CFF: string id out of range')
    return this.id(sid, () => b.subarray(itemStart(b, this.src.strings, i), itemStart(b, this.src.strings, i + 1)))
  }

  /** The id of a new string. */
  add (s: string): number { return this.id(s, () => Buffer.from(s, 'latin1')) }

  private id (key: number | string, bytes: () => Buffer): number {
    let n = this.sids.get(key)
    if (n === undefined) {
      this.items.push(bytes())
      this.sids.set(key, (n = 390 + this.items.length))
    }
    return n
  }

  /** The entries of `dict` not in `drop`: copied, or rewritten with the subset's string ids. */
  entries (dict: Entry[], drop: ReadonlySet<number>): Buffer[] {
    const out: Buffer[] = []
    for (const e of dict) {
      if (drop.has(e.op)) continue
      if (SID_OPS.has(e.op)) out.push(entry(e.op, this.sid(arg(e))))
      else if (e.op === OP.ROS) out.push(entry(e.op, this.sid(arg(e, 0)), this.sid(arg(e, 1)), arg(e, 2)))
      else out.push(this.src.buf.subarray(e.start, e.end))
    }
    return out
  }

  index (): Buffer { return index(this.items) }
}
