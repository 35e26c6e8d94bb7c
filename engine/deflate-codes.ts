// Deflate's symbols and Huffman codes (RFC 1951 3.2.2, 3.2.5, 3.2.7) for a writer that emits its
// own blocks (piece-deflate.ts): which symbol and extra bits a match length or distance is, and
// a block code made once from a sample of the text it will carry (blockCode): every symbol has a
// code, those frequent in the sample short ones, and the block header that declares the code is
// made with it, so a stream spends nothing on counting symbols or building trees. Codes are kept
// bit-reversed: deflate packs a Huffman code from its most significant bit into a stream written
// from the least significant bit of each byte.

const LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
  163, 195, 227, 258]
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]

/** Match length 3–258 → index of its length symbol (symbol 257 + index), its extra bits' count and value. */
const LEN_SYM = new Uint8Array(259)
const LEN_XBITS = new Uint8Array(259)
const LEN_XVAL = new Uint8Array(259)
for (let k = 0; k < LEN_BASE.length; k++) {
  const top = k + 1 < LEN_BASE.length ? LEN_BASE[k + 1]! : 259
  for (let l = LEN_BASE[k]!; l < top; l++) {
    LEN_SYM[l] = k
    LEN_XBITS[l] = LEN_EXTRA[k]!
    LEN_XVAL[l] = l - LEN_BASE[k]!
  }
}
// 258 has its own symbol (285), not 284 with extra bits 31.
LEN_SYM[258] = 28
LEN_XBITS[258] = 0
LEN_XVAL[258] = 0

export const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
  2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
/** Distance code of d − 1: [0, 256) directly, above by 256 + ((d − 1) >> 7) (zlib's _dist_code). */
const DIST_CODE = new Uint8Array(512)
for (let c = 0; c < DIST_BASE.length; c++) {
  const hi = (c + 1 < DIST_BASE.length ? DIST_BASE[c + 1]! : 32769) - 1
  for (let d = DIST_BASE[c]! - 1; d < hi; d++) {
    if (d < 256) DIST_CODE[d] = c
    else DIST_CODE[256 + (d >> 7)] = c
  }
}

/** The distance code (0–29) of distance 1–32768. */
export const distCode = (dist: number): number => DIST_CODE[dist <= 256 ? dist - 1 : 256 + ((dist - 1) >> 7)]!
/** A distance code's extra bits. */
export const distExtra = (c: number): number => c < 4 ? 0 : (c >> 1) - 1

/**
 * Code lengths (at most `maxBits`) of a Huffman code for the counts `freq[0..n)` into `lengths`.
 * At least two symbols get a code (an unused one if need be), as zlib does: inflaters take a code
 * of one symbol badly. Past `maxBits` the counts are halved and the code made again.
 */
function codeLengths (freq: ArrayLike<number>, n: number, maxBits: number, lengths: Uint8Array): void {
  const f = new Int32Array(n)
  let used = 0
  for (let i = 0; i < n; i++) { f[i] = freq[i]!; if (f[i]! > 0) used++ }
  for (let i = 0; used < 2 && i < n; i++) if (f[i] === 0) { f[i] = 1; used++ }
  const keys = new Int32Array(used)
  const weight = new Int32Array(2 * used - 1)
  const parent = new Int32Array(2 * used - 1)
  const depth = new Uint8Array(2 * used - 1)
  for (;;) {
    // Leaves by weight, then symbol: weight × 512 + symbol sorted as numbers (n ≤ 286; weights
    // stay below 2^22 for the ≤ ~1 M symbols of a stream, halving makes sure).
    let m = 0
    for (let i = 0; i < n; i++) if (f[i]! > 0) keys[m++] = f[i]! * 512 + i
    keys.sort()
    for (let k = 0; k < m; k++) weight[k] = keys[k]! >> 9
    // Two queues: the leaves by weight, and the joined nodes as made (their weights never fall).
    let leaf = 0
    let node = m
    for (let k = m; k < 2 * m - 1; k++) {
      let a: number
      let b: number
      if (leaf < m && (node >= k || weight[leaf]! <= weight[node]!)) a = leaf++
      else a = node++
      if (leaf < m && (node >= k || weight[leaf]! <= weight[node]!)) b = leaf++
      else b = node++
      weight[k] = weight[a]! + weight[b]!
      parent[a] = k
      parent[b] = k
    }
    // Depths from the root (made last) down: a node's parent was made after it.
    let deepest = 0
    depth[2 * m - 2] = 0
    for (let k = 2 * m - 3; k >= 0; k--) {
      depth[k] = depth[parent[k]!]! + 1
      if (k < m && depth[k]! > deepest) deepest = depth[k]!
    }
    if (deepest <= maxBits) {
      lengths.fill(0, 0, n)
      for (let k = 0; k < m; k++) lengths[keys[k]! & 511] = depth[k]!
      return
    }
    for (let i = 0; i < n; i++) if (f[i]! > 0) f[i] = (f[i]! >> 1) | 1
  }
}

/** The canonical code of each symbol of `lengths[0..n)`, bit-reversed, into `codes`. */
function canonicalCodes (lengths: Uint8Array, n: number, codes: Int32Array): void {
  const count = new Int32Array(16)
  for (let i = 0; i < n; i++) count[lengths[i]!]!++
  count[0] = 0
  const next = new Int32Array(16)
  let code = 0
  for (let bits = 1; bits < 16; bits++) {
    code = (code + count[bits - 1]!) << 1
    next[bits] = code
  }
  for (let i = 0; i < n; i++) {
    const len = lengths[i]!
    if (len === 0) continue
    let c = next[len]!++
    let r = 0
    for (let k = 0; k < len; k++) { r = (r << 1) | (c & 1); c >>= 1 }
    codes[i] = r
  }
}

/** A dynamic Huffman block's code (RFC 1951 3.2.7), ready to write. */
export interface BlockCode {
  /** Literal byte → its code | its length << 16. */
  lit: Int32Array
  /** Match length 3–258 → its length symbol's code and extra bits together, and their length (≤ 20). */
  len: Int32Array
  lenBits: Uint8Array
  /** Distance code → its code | its length << 16. */
  dist: Int32Array
  /** End of block: its code | its length << 16. */
  end: number
  /** The block's header after BFINAL and BTYPE: HLIT … the code lengths, as bits, and how many. */
  header: Uint8Array
  headerBits: number
}

/** The order of the code length code's lengths in a header (RFC 1951 3.2.7). */
const CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

/**
 * A block code for text like `sample`: each byte counted in it, every symbol at least once (any
 * text can be written), matches assumed common and far (the writer's references are to the
 * last repeat of a template, typically a line item back).
 */
export function blockCode (sample: string): BlockCode {
  const litFreq = new Int32Array(286).fill(1)
  for (let i = 0; i < sample.length; i++) litFreq[sample.charCodeAt(i) & 255]! += 8
  for (let s = 257; s < 286; s++) litFreq[s] = s < 270 ? 40 : 10
  const distFreq = new Int32Array(30).fill(1)
  for (let c = 14; c < 30; c++) distFreq[c] = 30
  const litLen = new Uint8Array(286)
  const distLen = new Uint8Array(30)
  codeLengths(litFreq, 286, 15, litLen)
  codeLengths(distFreq, 30, 15, distLen)
  const litCode = new Int32Array(286)
  const distCodes = new Int32Array(30)
  canonicalCodes(litLen, 286, litCode)
  canonicalCodes(distLen, 30, distCodes)
  const lit = new Int32Array(256)
  for (let c = 0; c < 256; c++) lit[c] = litCode[c]! | (litLen[c]! << 16)
  const len = new Int32Array(259)
  const lenBits = new Uint8Array(259)
  for (let l = 3; l <= 258; l++) {
    const s = 257 + LEN_SYM[l]!
    len[l] = litCode[s]! | (LEN_XVAL[l]! << litLen[s]!)
    lenBits[l] = litLen[s]! + LEN_XBITS[l]!
  }
  const dist = new Int32Array(30)
  for (let c = 0; c < 30; c++) dist[c] = distCodes[c]! | (distLen[c]! << 16)
  const h = header(litLen, distLen)
  return { lit, len, lenBits, dist, end: litCode[256]! | (litLen[256]! << 16), header: h.bytes, headerBits: h.bits }
}

/** HLIT, HDIST, HCLEN, the code length code, and the two codes' lengths run-length coded. */
function header (litLen: Uint8Array, distLen: Uint8Array): { bytes: Uint8Array, bits: number } {
  const all = new Uint8Array(286 + 30)
  all.set(litLen)
  all.set(distLen, 286)
  // Symbols 0–15 a length, 16 the last length 3–6 times, 17 zero 3–10 times, 18 zero 11–138 times.
  const sym: number[] = []
  const extra: number[] = []
  const clFreq = new Int32Array(19)
  const emit = (s: number, x = 0): void => { sym.push(s); extra.push(x); clFreq[s]!++ }
  for (let i = 0; i < all.length;) {
    const v = all[i]!
    let run = 1
    while (i + run < all.length && all[i + run] === v) run++
    i += run
    if (v === 0) {
      while (run >= 11) { const k = Math.min(run, 138); emit(18, k - 11); run -= k }
      if (run >= 3) { emit(17, run - 3); run = 0 }
    } else {
      emit(v)
      run--
      while (run >= 3) { const k = Math.min(run, 6); emit(16, k - 3); run -= k }
    }
    while (run-- > 0) emit(v)
  }
  const clLen = new Uint8Array(19)
  codeLengths(clFreq, 19, 7, clLen)
  const clCode = new Int32Array(19)
  canonicalCodes(clLen, 19, clCode)
  let hclen = 19
  while (hclen > 4 && clLen[CL_ORDER[hclen - 1]!] === 0) hclen--
  const out = new Uint8Array(512)
  let at = 0
  let bits = 0
  let nbits = 0
  const put = (v: number, n: number): void => {
    bits |= v << nbits
    nbits += n
    while (nbits >= 8) { out[at++] = bits; bits >>>= 8; nbits -= 8 }
  }
  put(286 - 257, 5) // HLIT: all 286 literal/length codes
  put(30 - 1, 5) // HDIST: all 30 distance codes
  put(hclen - 4, 4)
  for (let i = 0; i < hclen; i++) put(clLen[CL_ORDER[i]!]!, 3)
  for (let i = 0; i < sym.length; i++) {
    const s = sym[i]!
    put(clCode[s]!, clLen[s]!)
    if (s === 16) put(extra[i]!, 2)
    else if (s === 17) put(extra[i]!, 3)
    else if (s === 18) put(extra[i]!, 7)
  }
  const total = at * 8 + nbits
  if (nbits > 0) out[at++] = bits
  return { bytes: out.slice(0, at), bits: total }
}
