// Output written into a growing Buffer, shared by the writers that build bytes themselves rather
// than strings: the label renderer (zpl/render.ts), the structure objects of a tagged PDF
// (pdf/object-batch.ts), a page's content (pdf/content-ops.ts) and the CII XML's zlib stream
// (piece-deflate.ts); the output space those writers hand back for the next one of the thread;
// and UTF-8 by hand, for the escapers that encode a value without a Buffer per value
// (zpl/escape.ts, einvoice/cii-xml.ts).

/**
 * Writes a string of ASCII (or Latin-1: a Uint8Array keeps each code unit's low byte) at `at`;
 * returns the end. The caller has made room.
 */
export function putAscii (buf: Uint8Array, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) buf[at + i] = text.charCodeAt(i)
  return at + text.length
}

/**
 * Writes `src`, bytes made once (a constant piece of syntax), at `at`; returns the end. The caller
 * has made room. A loop: for pieces of a few bytes set() is no cheaper (~1 ns a byte either way,
 * 17-byte pieces in a loop).
 */
export function putBytes (buf: Uint8Array, at: number, src: Uint8Array): number {
  for (let i = 0; i < src.length; i++) buf[at + i] = src[i]!
  return at + src.length
}

/** Writes the decimal digits of `v`, a whole number from 0 below 2^53, at `at`; returns the end. Room for 16. */
export function putUint (buf: Uint8Array, at: number, v: number): number {
  if (v >= 0x100000000) {
    // Above 32 bits (page coordinates of fmt's range): the high digits first, then 9 more.
    const hi = Math.floor(v / 1e9)
    at = putUint(buf, at, hi)
    v -= hi * 1e9
    for (let i = at + 8; i >= at; i--) {
      const q = (v / 10) >>> 0
      buf[i] = 48 + v - q * 10
      v = q
    }
    return at + 9
  }
  const digits = v < 1e4
    ? (v < 10 ? 1 : v < 100 ? 2 : v < 1e3 ? 3 : 4)
    : (v < 1e5 ? 5 : v < 1e6 ? 6 : v < 1e7 ? 7 : v < 1e8 ? 8 : v < 1e9 ? 9 : 10)
  let p = at + digits
  while (v >= 10) {
    const q = (v / 10) >>> 0 // v < 2^32
    buf[--p] = 48 + v - q * 10
    v = q
  }
  buf[--p] = 48 + v
  return at + digits
}

/** Output space a writer starts with. */
const SPACE = 16 * 1024
/** Space grown past this is not kept (it would sit in the thread for every later render). */
const KEEP_SPACE = 256 * 1024
/** Spaces kept per thread (a pass writes a page header, a body and a footer at once). */
const SPACES = 8
const spaces: Buffer[] = []

/**
 * Output space for a writer of this thread: one given back (giveSpace) or a new one, of at least
 * `min` bytes. A render is synchronous, so a space is its writer's alone until given back.
 */
export function takeSpace (min = 0): Buffer {
  const b = spaces.pop()
  return b !== undefined && b.length >= min ? b : Buffer.allocUnsafeSlow(Math.max(SPACE, min))
}

/** Gives output space back once nothing reads it any more (its bytes were copied out). */
export function giveSpace (b: Buffer): void {
  if (b.length <= KEEP_SPACE && spaces.length < SPACES) spaces.push(b)
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
