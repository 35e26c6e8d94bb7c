// A 1-bit picture as ZPL ^GF in compressed ASCII hex: run counts G–Y (1–19) and g–z (20–400)
// before a repeated hex digit, `,` for zeros to the row's end, `:` for the row above repeated.
// Shared by QR codes drawn as graphics (qr-graphic.ts) and image elements (image.ts).
import { deflate } from '../deflate.js'

const RUN_UNITS = 'GHIJKLMNOPQRSTUVWXY' // 1–19
const RUN_TWENTIES = 'ghijklmnopqrstuvwxyz' // 20, 40, … 400

function runCode (n: number): string {
  let out = ''
  let rest = n
  while (rest >= 20) {
    const t = Math.min(Math.floor(rest / 20), 20)
    out += RUN_TWENTIES.charAt(t - 1)
    rest -= t * 20
  }
  return rest > 0 ? out + RUN_UNITS.charAt(rest - 1) : out
}

const HEX = '0123456789ABCDEF'

/**
 * One row in compressed form: its hex digits with runs counted, trailing zeros as `,`. Works on
 * the bytes (no hex string, no regular expression: a trailing-zeros pattern backtracks per run).
 */
function compressRow (bits: Uint8Array): string {
  const digits = bits.length * 2
  const digit = (i: number): number => ((bits[i >> 1] ?? 0) >> ((i & 1) === 0 ? 4 : 0)) & 15
  let end = digits
  while (end > 0 && digit(end - 1) === 0) end--
  let out = ''
  for (let i = 0; i < end;) {
    const d = digit(i)
    let j = i + 1
    while (j < end && digit(j) === d) j++
    out += (j - i > 1 ? runCode(j - i) : '') + HEX.charAt(d)
    i = j
  }
  return end < digits ? out + ',' : out
}

/** `^GFA,…` of a width × height picture; `row(y, bits)` sets the row's bits (MSB first, 1 = black). */
export function gfGraphic (width: number, height: number, row: (y: number, bits: Uint8Array) => void): string {
  const rowBytes = Math.ceil(width / 8)
  let bits: Uint8Array = new Uint8Array(rowBytes)
  let previous: Uint8Array | undefined
  const parts: string[] = []
  for (let y = 0; y < height; y++) {
    bits.fill(0)
    row(y, bits)
    // A row equal to the one above is `:` (compression is one-to-one, so equal bits, equal text).
    if (previous !== undefined && Buffer.compare(bits, previous) === 0) { parts.push(':'); continue }
    parts.push(compressRow(bits))
    const swap = previous ?? new Uint8Array(rowBytes)
    previous = bits
    bits = swap
  }
  const total = rowBytes * height
  return `^GFA,${total},${total},${rowBytes},${parts.join('')}`
}

/** CRC-16/XMODEM (polynomial 0x1021, initial 0) of the base64 text: the check a :Z64: graphic ends with. */
function crc16 (text: string): number {
  let c = 0
  for (let i = 0; i < text.length; i++) {
    c ^= text.charCodeAt(i) << 8
    for (let k = 0; k < 8; k++) c = (c & 0x8000) !== 0 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff
  }
  return c
}

/**
 * `^GFA,…,:Z64:…` of a picture given as its rows of bits (deflated, base64, CRC): a fifth of the
 * compressed hex for a QR symbol, so a label that repeats a cached graphic writes fewer bytes.
 */
export function gfGraphicZ64 (rowBytes: number, height: number, row: (y: number) => Uint8Array): string {
  const bitmap = Buffer.alloc(rowBytes * height)
  for (let y = 0; y < height; y++) bitmap.set(row(y), y * rowBytes)
  const b64 = deflate(bitmap).toString('base64')
  const total = rowBytes * height
  return `^GFA,${total},${total},${rowBytes},:Z64:${b64}:${crc16(b64).toString(16).padStart(4, '0')}`
}
