// Output written into a growing Buffer, shared by the writers that build bytes themselves rather
// than strings: the label renderer (zpl/render.ts), the structure objects of a tagged PDF
// (pdf/object-batch.ts) and the CII XML's zlib stream (piece-deflate.ts); and UTF-8 by hand, for
// the escapers that encode a value without a Buffer per value (zpl/escape.ts, einvoice/cii-xml.ts).

/** Writes a string known to be ASCII at `at`; returns the end. The caller has made room. */
export function putAscii (buf: Uint8Array, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) buf[at + i] = text.charCodeAt(i)
  return at + text.length
}

/** A larger buffer (at least `need` bytes, 1.5× the old) holding the first `used` bytes of `buf`. */
export function grown (buf: Buffer, used: number, need: number): Buffer {
  const next = Buffer.allocUnsafeSlow(Math.max(need, Math.ceil(buf.length * 1.5)))
  buf.copy(next, 0, 0, used)
  return next
}

/**
 * The code point at `i` of `s` as UTF-8 encodes it: a surrogate pair as one (the caller moves on
 * two code units when the result is above 0xFFFF), a lone surrogate as U+FFFD, as Buffer's encoder.
 */
export function codePointForUtf8 (s: string, i: number): number {
  const c = s.charCodeAt(i)
  if (c < 0xd800 || c > 0xdfff) return c
  if (c <= 0xdbff && i + 1 < s.length) {
    const lo = s.charCodeAt(i + 1)
    if (lo >= 0xdc00 && lo <= 0xdfff) return 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00)
  }
  return 0xfffd
}

/** Writes the UTF-8 bytes of code point `c` at `at` (room for 4); returns the end. */
export function putUtf8 (buf: Uint8Array, at: number, c: number): number {
  if (c < 0x80) { buf[at] = c; return at + 1 }
  if (c < 0x800) {
    buf[at] = 0xc0 | (c >> 6)
  } else if (c < 0x10000) {
    buf[at] = 0xe0 | (c >> 12)
    buf[++at] = 0x80 | ((c >> 6) & 63)
  } else {
    buf[at] = 0xf0 | (c >> 18)
    buf[++at] = 0x80 | ((c >> 12) & 63)
    buf[++at] = 0x80 | ((c >> 6) & 63)
  }
  buf[++at] = 0x80 | (c & 63)
  return at + 1
}
