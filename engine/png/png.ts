// One PNG reader for the engine (PDF image elements, label image elements): the chunks, the
// pixels inflated within the size the header announces, and the row filters undone. Hostile
// input is expected: a header under 13 bytes, or a data stream that inflates past what its
// header says (a decompression bomb), is refused by `fail` before anything large is allocated.
import { inflateSync } from 'node:zlib'

export interface PngChunks {
  width: number
  height: number
  depth: number
  /** Colour type: 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA. */
  type: number
  interlace: number
  palette: Buffer | null
  trns: Buffer | null
  /** The IDAT chunks' bodies, in order (views of the input, not copies). */
  idat: Buffer[]
}

/**
 * The chunks of `b` (after its 8-byte signature, which the caller checked). `checkSize` sees the
 * header's size as soon as it is read, so an image over a pixel limit is refused before its data.
 */
export function readPng (b: Buffer, fail: (message: string) => never,
  checkSize: (width: number, height: number) => void): PngChunks {
  const png: PngChunks = { width: 0, height: 0, depth: 0, type: 0, interlace: 0, palette: null, trns: null, idat: [] }
  let pos = 8
  while (pos + 8 <= b.length) {
    const len = b.readUInt32BE(pos)
    const kind = b.toString('latin1', pos + 4, pos + 8)
    const body = b.subarray(pos + 8, pos + 8 + len)
    if (kind === 'IHDR') {
      if (body.length < 13) fail('truncated PNG')
      png.width = body.readUInt32BE(0); png.height = body.readUInt32BE(4)
      png.depth = body.readUInt8(8); png.type = body.readUInt8(9); png.interlace = body.readUInt8(12)
      checkSize(png.width, png.height)
    } else if (kind === 'PLTE') png.palette = body
    else if (kind === 'tRNS') png.trns = body
    else if (kind === 'IDAT') png.idat.push(body)
    else if (kind === 'IEND') break
    pos += 12 + len
  }
  return png
}

/**
 * The filtered scanlines of an 8-bit, non-interlaced image with `channels` samples per pixel:
 * exactly (width × channels + 1) × height bytes, or `fail` (corrupt, or inflating past that).
 */
export function inflateScanlines (png: PngChunks, channels: number, fail: (message: string) => never): Buffer {
  const expected = (png.width * channels + 1) * png.height
  let raw: Buffer | undefined
  try {
    raw = inflateSync(Buffer.concat(png.idat), { maxOutputLength: expected })
  } catch {
    raw = undefined
  }
  if (raw?.length !== expected) fail('PNG data does not match its header (corrupt or oversized)')
  return raw
}

/** Undoes PNG's row filters: `bpp` bytes per pixel, `src` holding a filter byte before each row. */
export function unfilter (src: Uint8Array, width: number, height: number, bpp: number): Uint8Array {
  const stride = width * bpp
  const out = new Uint8Array(stride * height)
  for (let y = 0; y < height; y++) {
    const f = src[y * (stride + 1)]!
    const s = y * (stride + 1) + 1
    const o = y * stride
    for (let x = 0; x < stride; x++) {
      const raw = src[s + x]!
      const a = x >= bpp ? out[o + x - bpp]! : 0
      const up = y > 0 ? out[o + x - stride]! : 0
      const c = x >= bpp && y > 0 ? out[o + x - stride - bpp]! : 0
      let v = raw
      if (f === 1) v = raw + a
      else if (f === 2) v = raw + up
      else if (f === 3) v = raw + ((a + up) >> 1)
      else if (f === 4) {
        const p = a + up - c
        const pa = Math.abs(p - a); const pb = Math.abs(p - up); const pc = Math.abs(p - c)
        v = raw + (pa <= pb && pa <= pc ? a : pb <= pc ? up : c)
      }
      out[o + x] = v & 255
    }
  }
  return out
}
