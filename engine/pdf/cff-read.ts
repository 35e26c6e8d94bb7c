// Reading a CFF table (Adobe Technical Note #5176) for cff-subset.ts: where its INDEXes and
// dictionaries are, nothing decoded that the subsetter does not need. Parsed once per face
// (a few dozen µs even for the 65,535 glyphs of a CJK font: INDEX offsets are read on demand).

/** An INDEX: `count` objects whose byte ranges are read from the offset array when asked. */
export interface Index { at: number, count: number, offSize: number, offsets: number, data: number, end: number }

/** A DICT entry: operator (escaped ones as 1200 + second byte), operands, its bytes. */
export interface Entry { op: number, args: number[], start: number, end: number }

/** One Font DICT of a CID-keyed font (a name-keyed font gets one made of its top Private). */
export interface FontDict { dict: Entry[], priv: Entry[], subrs: Index | null }

export const OP = {
  UniqueID: 13,
  XUID: 14,
  charset: 15,
  Encoding: 16,
  CharStrings: 17,
  Private: 18,
  Subrs: 19,
  CharstringType: 1206,
  ROS: 1230,
  CIDCount: 1234,
  UIDBase: 1235,
  FDArray: 1236,
  FDSelect: 1237,
  FontName: 1238
} as const

export function readIndex (b: Buffer, at: number): Index {
  const count = b.readUInt16BE(at)
  if (count === 0) return { at, count, offSize: 0, offsets: at + 2, data: at + 2, end: at + 2 }
  const offSize = b.readUInt8(at + 2)
  if (offSize < 1 || offSize > 4) throw new Error('CFF: bad INDEX offset size')
  const offsets = at + 3
  const data = offsets + (count + 1) * offSize - 1
  const idx = { at, count, offSize, offsets, data, end: 0 }
  idx.end = data + offsetAt(b, idx, count)
  if (idx.end > b.length) throw new Error('CFF: INDEX past the end of the table')
  return idx
}

function offsetAt (b: Buffer, idx: Index, i: number): number {
  const p = idx.offsets + i * idx.offSize
  switch (idx.offSize) {
    case 1: return b.readUInt8(p)
    case 2: return b.readUInt16BE(p)
    case 3: return (b.readUInt8(p) << 16) | b.readUInt16BE(p + 1)
    default: return b.readUInt32BE(p)
  }
}

/** Start of object `i` (absolute); its end is itemStart(i + 1). */
export function itemStart (b: Buffer, idx: Index, i: number): number {
  if (i < 0 || i > idx.count) throw new Error('CFF: INDEX entry out of range')
  return idx.data + offsetAt(b, idx, i)
}

export function readDict (b: Buffer, start: number, end: number): Entry[] {
  const out: Entry[] = []
  let args: number[] = []
  let from = start
  let p = start
  while (p < end) {
    const b0 = b.readUInt8(p)
    if (b0 > 21) {
      p = readOperand(b, p, end, args)
      continue
    }
    let op = b0
    p++
    if (b0 === 12) op = 1200 + b.readUInt8(p++)
    out.push({ op, args, start: from, end: p })
    args = []
    from = p
  }
  return out
}

/** One DICT operand at `p` pushed onto `args`; the position after it. */
function readOperand (b: Buffer, p: number, end: number, args: number[]): number {
  const b0 = b.readUInt8(p)
  if (b0 >= 32 && b0 <= 246) { args.push(b0 - 139); return p + 1 }
  if (b0 >= 247 && b0 <= 250) { args.push((b0 - 247) * 256 + b.readUInt8(p + 1) + 108); return p + 2 }
  if (b0 >= 251 && b0 <= 254) { args.push(-(b0 - 251) * 256 - b.readUInt8(p + 1) - 108); return p + 2 }
  if (b0 === 28) { args.push(b.readInt16BE(p + 1)); return p + 3 }
  if (b0 === 29) { args.push(b.readInt32BE(p + 1)); return p + 5 }
  if (b0 !== 30) throw new Error('CFF: bad DICT byte')
  // A real number: nibbles up to the end marker 0xf (its value is never needed here).
  p++
  while (p < end && (b.readUInt8(p) & 0x0f) !== 0x0f && (b.readUInt8(p) & 0xf0) !== 0xf0) p++
  args.push(NaN)
  return p + 1
}

export function find (d: Entry[], op: number): Entry | undefined {
  for (const e of d) if (e.op === op) return e
  return undefined
}

/** Operand `i` of a DICT entry; a malformed font that leaves it out fails with its operator. */
export function arg (e: Entry, i = 0): number {
  const v = e.args[i]
  if (v === undefined) throw new Error(`CFF: DICT operator ${e.op} lacks operand ${i}`)
  return v
}

/** The CFF table of a face: the parts a subset copies or rewrites. */
export class CffSource {
  readonly buf: Buffer
  readonly cid: boolean
  readonly top: Entry[]
  readonly nameIndex: Buffer
  readonly strings: Index
  readonly gsubrs: Index
  readonly charStrings: Index
  readonly fds: FontDict[]
  /** FD of every glyph (CID-keyed fonts; all 0 otherwise). */
  readonly fdOf: Uint8Array

  /** `table`: the CFF table's bytes (inside a collection: the face's own table). */
  constructor (table: Buffer) {
    const b = (this.buf = table)
    if (b[0] !== 1) throw new Error('CFF: not a version 1 CFF table')
    const hdrSize = b.readUInt8(2)
    const names = readIndex(b, hdrSize)
    this.nameIndex = b.subarray(hdrSize, names.end)
    const tops = readIndex(b, names.end)
    if (tops.count !== 1) throw new Error('CFF: one font per CFF table expected')
    this.top = readDict(b, itemStart(b, tops, 0), itemStart(b, tops, 1))
    this.strings = readIndex(b, tops.end)
    this.gsubrs = readIndex(b, this.strings.end)
    const cs = find(this.top, OP.CharStrings)
    if (cs === undefined) throw new Error('CFF: no CharStrings')
    const type = find(this.top, OP.CharstringType)
    if (type !== undefined && type.args[0] !== 2) throw new Error('CFF: Type 1 charstrings')
    this.charStrings = readIndex(b, arg(cs))
    const n = this.charStrings.count
    this.fdOf = new Uint8Array(n)
    this.cid = find(this.top, OP.ROS) !== undefined
    if (this.cid) {
      const fda = readIndex(b, arg(need(this.top, OP.FDArray)))
      this.fds = []
      for (let i = 0; i < fda.count; i++) {
        this.fds.push(this.fontDict(readDict(b, itemStart(b, fda, i), itemStart(b, fda, i + 1))))
      }
      this.readFdSelect(arg(need(this.top, OP.FDSelect)), n)
    } else {
      // One Font DICT holding the top DICT's Private (and its Subrs): the subset is CID-keyed.
      this.fds = [{ ...this.fontDict(this.top), dict: [] }]
    }
  }

  private fontDict (dict: Entry[]): FontDict {
    const p = find(dict, OP.Private)
    if (p === undefined || p.args[0] === 0) return { dict, priv: [], subrs: null }
    const size = arg(p, 0)
    const at = arg(p, 1)
    const priv = readDict(this.buf, at, at + size)
    const s = find(priv, OP.Subrs)
    return { dict, priv, subrs: s === undefined ? null : readIndex(this.buf, at + arg(s)) }
  }

  private readFdSelect (at: number, n: number): void {
    const b = this.buf
    const max = this.fds.length
    if (b[at] === 0) {
      for (let g = 0; g < n; g++) this.fdOf[g] = b.readUInt8(at + 1 + g)
    } else if (b[at] === 3) {
      const ranges = b.readUInt16BE(at + 1)
      for (let r = 0; r < ranges; r++) {
        const p = at + 3 + r * 3
        const first = b.readUInt16BE(p)
        const next = r + 1 < ranges ? b.readUInt16BE(p + 3) : b.readUInt16BE(at + 3 + ranges * 3)
        this.fdOf.fill(b.readUInt8(p + 2), first, Math.min(next, n))
      }
    } else throw new Error('CFF: unknown FDSelect format')
    for (const fd of this.fdOf) if (fd >= max) throw new Error('CFF: FDSelect names a missing FD')
  }
}

function need (d: Entry[], op: number): Entry {
  const e = find(d, op)
  if (e === undefined) throw new Error(`CFF: top DICT operator ${op} missing`)
  return e
}
