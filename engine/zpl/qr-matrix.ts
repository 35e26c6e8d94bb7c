// A QR Code (ISO/IEC 18004) module matrix, for QR symbols drawn as ^GF graphics (qr-graphic.ts).
// bwip-js encodes through its PostScript emulation at ~7 ms a symbol, which made a retargeted
// label cost ~800× a native one; this encoder takes a fraction of a millisecond. Numeric, alphanumeric
// and byte (UTF-8) modes, one segment or segments chosen for the fewest bits (QrSegments),
// versions 1–40, error correction L/M/Q/H, the mask with the lowest penalty (four rules of the
// standard). Checked against bwip-js's matrices and decoded by ZXing (test/engine/zpl/qr-matrix.test.ts).
import { drawSymbol } from './qr-draw.js'
import { qrPenalty } from './qr-penalty.js'

export type QrLevel = 'L' | 'M' | 'Q' | 'H'

export interface QrMatrix {
  /** Modules per side (21 … 177). */
  size: number
  /** size × size, row by row, 1 = dark. */
  modules: Uint8Array
  version: number
  mask: number
}

const LEVEL_INDEX: Record<QrLevel, number> = { L: 0, M: 1, Q: 2, H: 3 }
const FORMAT_LEVEL = [1, 0, 3, 2]
// Error correction codewords per block and number of blocks, per level (L, M, Q, H) and version (index 1–40).
const ECC_PER_BLOCK = [
  [0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28,
    30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28,
    28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
  [0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28,
    30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  [0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30,
    30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30]
]
const BLOCKS = [
  [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16,
    17, 18, 19, 19, 20, 21, 22, 24, 25],
  [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28,
    29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
  [0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35,
    38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
  [0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42,
    45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81]
]

// Modes: 0 numeric, 1 alphanumeric, 2 byte. Indicator bits and character-count bits per version range.
const MODE_BITS = [1, 2, 4]
const COUNT_BITS = [[10, 12, 14], [9, 11, 13], [8, 16, 16]]
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:'

const countBits = (mode: number, version: number): number =>
  COUNT_BITS[mode]?.[version <= 9 ? 0 : version <= 26 ? 1 : 2] ?? 16

/** Data modules of a version (all but function patterns and format/version information). */
function rawModules (v: number): number {
  let n = (16 * v + 128) * v + 64
  if (v >= 2) {
    const a = Math.floor(v / 7) + 2
    n -= (25 * a - 10) * a - 55
    if (v >= 7) n -= 36
  }
  return n
}

const dataCodewords = (v: number, lv: number): number =>
  Math.floor(rawModules(v) / 8) - (ECC_PER_BLOCK[lv]?.[v] ?? 0) * (BLOCKS[lv]?.[v] ?? 0)

interface Char { code: number, bytes: number[] }

function charsOf (text: string): Char[] {
  return Array.from(text, (c) => ({ code: c.codePointAt(0) ?? 0, bytes: [...Buffer.from(c, 'utf8')] }))
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57
const isAlnum = (c: number): boolean => c < 128 && ALNUM.includes(String.fromCharCode(c))

/**
 * The mode of each character for the fewest bits at a version's count lengths (dynamic
 * programming over the three modes; costs in sixths of a bit, so 10/3 and 11/2 bits are whole).
 */
function modesFor (chars: Char[], version: number): number[] {
  const head = [0, 1, 2].map((m) => (4 + countBits(m, version)) * 6)
  let prev = head.slice()
  const table: number[][] = []
  for (const ch of chars) {
    const cur = [Infinity, Infinity, Infinity]
    const from = [-1, -1, -1]
    if (isDigit(ch.code)) { cur[0] = (prev[0] ?? 0) + 20; from[0] = 0 }
    if (isAlnum(ch.code)) { cur[1] = (prev[1] ?? 0) + 33; from[1] = 1 }
    cur[2] = (prev[2] ?? 0) + ch.bytes.length * 48; from[2] = 2
    // A new segment may start after this character: pay its header now.
    const ended = cur.slice()
    const endedFrom = from.slice()
    for (let to = 0; to < 3; to++) {
      for (let f = 0; f < 3; f++) {
        const c = Math.ceil((ended[f] ?? Infinity) / 6) * 6 + (head[to] ?? 0)
        if ((endedFrom[f] ?? -1) >= 0 && c < (cur[to] ?? Infinity)) { cur[to] = c; from[to] = endedFrom[f] ?? 2 }
      }
    }
    table.push(from)
    prev = cur
  }
  let mode = prev.indexOf(Math.min(...prev))
  const out = new Array<number>(chars.length)
  for (let i = chars.length - 1; i >= 0; i--) { mode = table[i]?.[mode] ?? 2; out[i] = mode }
  return out
}

class Bits {
  bytes: number[] = []
  length = 0
  put (value: number, n: number): void {
    for (let i = n - 1; i >= 0; i--) {
      if ((this.length & 7) === 0) this.bytes.push(0)
      const last = this.bytes.length - 1
      if (((value >>> i) & 1) !== 0) this.bytes[last] = (this.bytes[last] ?? 0) | (0x80 >> (this.length & 7))
      this.length++
    }
  }
}

function encodeSegments (chars: Char[], modes: number[], version: number): Bits {
  const out = new Bits()
  for (let i = 0; i < chars.length;) {
    const mode = modes[i] ?? 2
    let j = i
    while (j < chars.length && modes[j] === mode) j++
    const seg = chars.slice(i, j)
    out.put(MODE_BITS[mode] ?? 4, 4)
    if (mode === 2) {
      const bytes = seg.flatMap((c) => c.bytes)
      out.put(bytes.length, countBits(mode, version))
      for (const b of bytes) out.put(b, 8)
    } else if (mode === 1) {
      out.put(seg.length, countBits(mode, version))
      const v = seg.map((c) => ALNUM.indexOf(String.fromCharCode(c.code)))
      for (let k = 0; k < v.length; k += 2) {
        if (k + 1 < v.length) out.put((v[k] ?? 0) * 45 + (v[k + 1] ?? 0), 11)
        else out.put(v[k] ?? 0, 6)
      }
    } else {
      out.put(seg.length, countBits(mode, version))
      const digits = String.fromCodePoint(...seg.map((c) => c.code))
      for (let k = 0; k < digits.length; k += 3) {
        const part = digits.slice(k, k + 3)
        out.put(Number(part), part.length * 3 + 1)
      }
    }
    i = j
  }
  return out
}

// Reed–Solomon over GF(256) with the polynomial 0x11D.
const EXP = new Uint8Array(512)
const LOG = new Uint8Array(256)
for (let i = 0, x = 1; i < 255; i++) { EXP[i] = x; LOG[x] = i; x = (x << 1) ^ (x & 0x80 ? 0x11d : 0) }
for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255] ?? 0
const mul = (a: number, b: number): number => (a === 0 || b === 0 ? 0 : EXP[(LOG[a] ?? 0) + (LOG[b] ?? 0)] ?? 0)
const divisors = new Map<number, Uint8Array>()

function divisor (degree: number): Uint8Array {
  let d = divisors.get(degree)
  if (d !== undefined) return d
  d = new Uint8Array(degree)
  d[degree - 1] = 1
  for (let i = 0, root = 1; i < degree; i++, root = mul(root, 2)) {
    for (let j = 0; j < degree; j++) d[j] = mul(d[j] ?? 0, root) ^ (d[j + 1] ?? 0)
  }
  divisors.set(degree, d)
  return d
}

function remainder (data: number[], degree: number): number[] {
  const div = divisor(degree)
  const r = new Array<number>(degree).fill(0)
  for (const b of data) {
    const f = b ^ (r.shift() ?? 0)
    r.push(0)
    for (let i = 0; i < degree; i++) r[i] = (r[i] ?? 0) ^ mul(div[i] ?? 0, f)
  }
  return r
}

/** Data codewords split into blocks, each with its error correction, interleaved. */
function interleave (data: number[], version: number, lv: number): number[] {
  const blocks = BLOCKS[lv]?.[version] ?? 1
  const ecc = ECC_PER_BLOCK[lv]?.[version] ?? 0
  const raw = Math.floor(rawModules(version) / 8)
  const short = blocks - (raw % blocks)
  const shortLen = Math.floor(raw / blocks)
  const all: number[][] = []
  for (let i = 0, k = 0; i < blocks; i++) {
    const dat = data.slice(k, k + shortLen - ecc + (i < short ? 0 : 1))
    k += dat.length
    const rem = remainder(dat, ecc)
    if (i < short) dat.push(0)
    all.push(dat.concat(rem))
  }
  const out: number[] = []
  for (let i = 0; i < (all[0]?.length ?? 0); i++) {
    for (let j = 0; j < all.length; j++) if (i !== shortLen - ecc || j >= short) out.push(all[j]?.[i] ?? 0)
  }
  return out
}

/** The smallest version holding the text at the level, with its data codewords. */
function codewords (text: string, lv: number, segments: QrSegments): { version: number, data: number[] } {
  const chars = charsOf(text)
  // One segment: the narrowest mode every character fits (numeric, alphanumeric, else byte).
  const single = chars.every((c) => isDigit(c.code)) ? 0 : chars.every((c) => isAlnum(c.code)) ? 1 : 2
  let modes: number[] = chars.map(() => single)
  for (let v = 1; v <= 40; v++) {
    if (segments === 'mixed' && (v === 1 || v === 10 || v === 27)) modes = modesFor(chars, v)
    const bits = encodeSegments(chars, modes, v)
    const capacity = dataCodewords(v, lv) * 8
    if (bits.length > capacity) continue
    bits.put(0, Math.min(4, capacity - bits.length))
    bits.put(0, (8 - (bits.length & 7)) & 7)
    for (let pad = 0xec; bits.length < capacity; pad ^= 0xec ^ 0x11) bits.put(pad, 8)
    return { version: v, data: bits.bytes }
  }
  const level = 'LMQH'.charAt(lv)
  throw new RangeError(`the data does not fit in a QR code at level ${level} (version 40)`)
}

/**
 * `single`: the whole text in one mode, as the ZPL renderer's (and ZXing's) automatic mode does, so
 * a symbol drawn as ^GF has the version, and so the size, of the one the renderer draws at the
 * authored resolution. `mixed`: segments for the fewest bits (as bwip-js), a smaller symbol at times.
 */
export type QrSegments = 'single' | 'mixed'

/** The QR matrix of `text` at error correction `level`; mask chosen by penalty unless given (0–7). */
export function qrMatrix (text: string, level: QrLevel, mask?: number, segments: QrSegments = 'single'): QrMatrix {
  const lv = LEVEL_INDEX[level]
  const { version, data } = codewords(text, lv, segments)
  const sym = drawSymbol(version, interleave(data, version, lv))
  let best = mask ?? -1
  if (best < 0) {
    let least = Infinity
    for (let m = 0; m < 8; m++) {
      const p = qrPenalty(sym.withMask(m, FORMAT_LEVEL[lv] ?? 0), sym.size)
      if (p < least) { least = p; best = m }
    }
  }
  return { size: sym.size, modules: sym.withMask(best, FORMAT_LEVEL[lv] ?? 0), version, mask: best }
}
