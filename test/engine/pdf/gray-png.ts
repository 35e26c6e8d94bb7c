// Page images for reference comparisons: pdftoppm renders a page as an 8-bit grey PNG, decoded
// here (IHDR, IDAT, the five row filters) so a test can count the pixels that differ.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { inflateSync } from 'node:zlib'
import { withPdf } from './fixtures.js'

export interface Gray { width: number, height: number, pixels: Uint8Array }

/** Page 1 of the PDF as a grey PNG file's bytes, `dpi` dots per inch. */
export function pagePng (bytes: Uint8Array, dpi: number): Buffer {
  return withPdf(bytes, (file, dir) => {
    execFileSync('pdftoppm',
      ['-r', String(dpi), '-gray', '-png', '-singlefile', '-f', '1', '-l', '1', file, join(dir, 'page')])
    return readFileSync(join(dir, 'page.png'))
  })
}

export function decodeGrayPng (png: Buffer): Gray {
  let pos = 8
  let width = 0; let height = 0; let bpp = 1
  const idat: Buffer[] = []
  while (pos < png.length) {
    const len = png.readUInt32BE(pos)
    const type = png.toString('latin1', pos + 4, pos + 8)
    const data = png.subarray(pos + 8, pos + 8 + len)
    if (type === 'IHDR') {
      width = data.readUInt32BE(0); height = data.readUInt32BE(4)
      // pdftoppm -gray may still write RGB (three equal channels): grey or RGB, 8 bits, not interlaced.
      if (data[8] !== 8 || (data[9] !== 0 && data[9] !== 2) || data[12] !== 0) {
        throw new Error('expected an 8-bit grey or RGB PNG')
      }
      bpp = data[9] === 2 ? 3 : 1
    } else if (type === 'IDAT') idat.push(data)
    pos += 12 + len
  }
  const raw = inflateSync(Buffer.concat(idat))
  const stride = width * bpp
  const out = new Uint8Array(stride * height)
  if (raw.length < (stride + 1) * height) throw new Error('PNG data shorter than its header says')
  // Every read below is inside raw (checked above) or inside the part of out already written.
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)]!
    const row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1))
    for (let x = 0; x < stride; x++) {
      const i = y * stride + x
      const a = x >= bpp ? out[i - bpp]! : 0
      const b = y > 0 ? out[i - stride]! : 0
      const c = x >= bpp && y > 0 ? out[i - stride - bpp]! : 0
      let v = row[x]!
      if (f === 1) v += a
      else if (f === 2) v += b
      else if (f === 3) v += (a + b) >> 1
      else if (f === 4) {
        const p = a + b - c
        const pa = Math.abs(p - a)
        const pb = Math.abs(p - b)
        const pc = Math.abs(p - c)
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c
      }
      out[i] = v & 255
    }
  }
  const pixels = new Uint8Array(width * height)
  for (let i = 0; i < pixels.length; i++) pixels[i] = out[i * bpp]!
  return { width, height, pixels }
}

/** Share of pixels whose grey levels differ by more than 64 (1 when the sizes differ). */
export function diffShare (a: Gray, b: Gray): number {
  if (a.width !== b.width || a.height !== b.height) return 1
  let n = 0
  a.pixels.forEach((p, i) => { if (Math.abs(p - (b.pixels[i] ?? 0)) > 64) n++ }) // same size: checked above
  return n / a.pixels.length
}

/** Share of dark pixels (text ink) in the rectangle [x0, x1) × [y0, y1). */
export function inkShare (g: Gray, x0: number, y0: number, x1: number, y1: number): number {
  let n = 0
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if ((g.pixels[y * g.width + x] ?? 255) < 128) n++
  return n / Math.max(1, (x1 - x0) * (y1 - y0))
}
