// Escaping of data inside ZPL field data. With `^FH_` before `^FD`, `_XX` is the byte 0xXX; we
// write `^`, `~`, the indicator and every byte outside printable ASCII that way, so a value can
// never end the field or start a command (`^XZ^XA`, `~JA`). Under `^CI28` the bytes are UTF-8.
// One implementation (writeFieldData, straight into the output Buffer) serves both the render
// path and the string form used by tests, so the guarantee cannot drift between the two.
import { codePointForUtf8, putUtf8 } from '../bytes.js'

/** Bytes writeFieldData may need per UTF-16 unit: a BMP character is 3 UTF-8 bytes of 3 chars each. */
export const MAX_ESCAPED_PER_UNIT = 9

/** One character's UTF-8 bytes (bytes.ts putUtf8). */
const UTF8 = new Uint8Array(4)

const HEX = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 65, 66, 67, 68, 69, 70] // '0'-'9', 'A'-'F'

/** True when `text` needs no escaping: the common case, checked without allocating. */
export function isPlain (text: string, indicator: number): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x20 || c > 0x7d || c === 0x5e || c === indicator) return false // 0x7e `~` is > 0x7d
  }
  return true
}

function hex (buf: Uint8Array, at: number, indicator: number, b: number): number {
  buf[at] = indicator
  // b is a byte: both nibbles index HEX's 16 digits.
  buf[at + 1] = HEX[b >> 4]!
  buf[at + 2] = HEX[b & 15]!
  return at + 3
}

/**
 * Writes `text` escaped for `^FH<indicator>` into `buf` at `at` and returns the end. The caller
 * guarantees room for `MAX_ESCAPED_PER_UNIT * text.length` bytes. Every byte written is
 * printable ASCII other than `^` and `~`.
 */
export function writeFieldData (buf: Uint8Array, at: number, text: string, indicator: number): number {
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i)
    if (c >= 0x20 && c < 0x7e && c !== 0x5e && c !== indicator) { buf[at++] = c; continue }
    if (c < 0x80) { at = hex(buf, at, indicator, c); continue }
    // UTF-8 encode the code point by hand (bytes.ts): no Buffer per value.
    c = codePointForUtf8(text, i)
    if (c > 0xffff) i++
    const n = putUtf8(UTF8, 0, c)
    for (let k = 0; k < n; k++) at = hex(buf, at, indicator, UTF8[k]!) // k < n <= 4
  }
  return at
}

/** Escapes a field-data value for `^FH<indicator>` (default `_`). The result is pure ASCII. */
export function escapeFieldData (text: string, indicator = '_'): string {
  const ind = indicator.charCodeAt(0)
  if (isPlain(text, ind)) return text
  const buf = Buffer.allocUnsafe(MAX_ESCAPED_PER_UNIT * text.length)
  return buf.toString('latin1', 0, writeFieldData(buf, 0, text, ind))
}

// Outside field data (e.g. `^FO{{ row.x }},50` or `^BY{{ … }}`) hex escapes do not exist, so
// only characters that cannot form a command are allowed there.
const PARAMETER_SAFE = /^[A-Za-z0-9 .,+-]*$/

export function isSafeParameter (text: string): boolean {
  return PARAMETER_SAFE.test(text)
}
