// Deflate's fixed Huffman codes (RFC 1951 3.2.6) as tables for a writer that emits them
// (piece-deflate.ts): every code bit-reversed, since deflate packs Huffman codes from their most
// significant bit into a stream written from the least significant bit of each byte.

const rev = (code: number, n: number): number => {
  let r = 0
  for (let i = 0; i < n; i++) r |= ((code >> i) & 1) << (n - 1 - i)
  return r
}

/** Literal byte → its code: 8 bits below 144, 9 from there. */
export const LIT = new Int32Array(256)
for (let c = 0; c < 256; c++) LIT[c] = c < 144 ? rev(0x30 + c, 8) : rev(0x190 + c - 144, 9)

/** The code of literal/length symbol 256–287 (7 or 8 bits), reversed, with its length. */
const symbol = (s: number): [number, number] => s < 280 ? [rev(s - 256, 7), 7] : [rev(0xc0 + s - 280, 8), 8]

const LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
  163, 195, 227, 258]
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
/** Match length 3–258 → symbol code and extra bits together, and their length in bits (≤ 13). */
export const LEN = new Int32Array(259)
export const LEN_N = new Uint8Array(259)
for (let k = 0; k < LEN_BASE.length; k++) {
  const [code, n] = symbol(257 + k)
  const top = k + 1 < LEN_BASE.length ? LEN_BASE[k + 1]! : 259
  for (let l = LEN_BASE[k]!; l < top && l <= 258; l++) {
    LEN[l] = code | ((l - LEN_BASE[k]!) << n)
    LEN_N[l] = n + LEN_EXTRA[k]!
  }
}
// Length 258 has its own symbol (285), not 284 with extra bits 31.
{
  const [code, n] = symbol(285)
  LEN[258] = code
  LEN_N[258] = n
}

export const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
  2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
/** Distance code of d − 1: [0, 256) directly, above by (d − 1) >> 7 (zlib's _dist_code). */
export const DIST_CODE = new Uint8Array(512)
for (let c = 0; c < DIST_BASE.length; c++) {
  const lo = DIST_BASE[c]! - 1
  const hi = (c + 1 < DIST_BASE.length ? DIST_BASE[c + 1]! : 32769) - 1
  for (let d = lo; d < hi; d++) {
    if (d < 256) DIST_CODE[d] = c
    else DIST_CODE[256 + (d >> 7)] = c
  }
}
/** Distance code → its extra bits. */
export const distExtra = (c: number): number => c < 4 ? 0 : (c >> 1) - 1
/** Distance code → its 5-bit code, reversed. */
export const DIST_REV = Array.from({ length: 30 }, (_, c) => rev(c, 5))
