// Image elements of a label: a PNG decoded once per compiled label (8-bit grey, grey + alpha,
// RGB, RGBA or palette; not interlaced), composited on white, scaled to its box in target dots
// (nearest pixel) and thresholded at mid-grey into a ^GF graphic. Bounded: the source by the
// engine's pixel limit, the graphic by MAX_IMAGE_DOTS.
import { TemplateError, TemplateLimitError } from '../errors.js'
import { MAX_IMAGE_PIXELS } from '../limits.js'
import { gfGraphic } from './gf.js'
import { inflateScanlines, readPng, unfilter } from '../png/png.js'

/** At most 2000 × 2000 dots per image (≈ 6.7 in square at 300 dpi): a ^GF of ≤ 500 KB. */
export const MAX_IMAGE_DOTS = 4_000_000

interface Gray { width: number, height: number, dark: Uint8Array }

const CHANNELS: Partial<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }

function decodePng (b: Buffer, fail: (m: string) => never): Gray {
  if (b.length < 8 || b.readUInt32BE(0) !== 0x89504e47) fail('image data is not a PNG')
  const chunks = readPng(b, fail, (width, height) => {
    if (width * height > MAX_IMAGE_PIXELS) {
      const message = `image is ${width} × ${height} pixels; the limit is ${MAX_IMAGE_PIXELS} pixels`
      throw new TemplateLimitError(message, [{ path: '', message }])
    }
  })
  const { width, height, depth, type, interlace, palette, trns } = chunks
  const channels = CHANNELS[type]
  if (depth !== 8 || interlace !== 0 || channels === undefined) fail('image must be an 8-bit, non-interlaced PNG')
  const ch = channels
  // The header's size bounds the inflated size: a stream that inflates further is refused.
  const px = unfilter(inflateScanlines(chunks, ch, fail), width, height, ch)
  const dark = new Uint8Array(width * height)
  for (let i = 0; i < width * height; i++) {
    const o = i * ch
    let lum: number; let alpha = 255
    if (type === 3) {
      const k = px[o] ?? 0
      const rgb = palette?.subarray(k * 3, k * 3 + 3)
      lum = ((rgb?.at(0) ?? 0) * 299 + (rgb?.at(1) ?? 0) * 587 + (rgb?.at(2) ?? 0) * 114) / 1000
      alpha = trns?.[k] ?? 255
    } else if (ch >= 3) {
      lum = ((px[o] ?? 0) * 299 + (px[o + 1] ?? 0) * 587 + (px[o + 2] ?? 0) * 114) / 1000
      if (ch === 4) alpha = px[o + 3] ?? 255
    } else {
      lum = px[o] ?? 0
      if (ch === 2) alpha = px[o + 1] ?? 255
    }
    // Composited on white, then black below mid-grey.
    dark[i] = (lum * alpha + 255 * (255 - alpha)) / 255 < 128 ? 1 : 0
  }
  return { width, height, dark }
}

/** The ^GF of a base64 PNG drawn in a `w` × `h` dot box. */
export function imageGraphic (base64: string, w: number, h: number, where: string): string {
  const fail = (message: string): never => { throw new TemplateError(`${where}: ${message}`, [{ path: where, message }]) }
  if (w * h > MAX_IMAGE_DOTS) {
    const message = `image is ${w} × ${h} dots at this resolution; the limit is ${MAX_IMAGE_DOTS} dots`
    throw new TemplateLimitError(`${where}: ${message}`, [{ path: where, message }])
  }
  let g: Gray
  try {
    g = decodePng(Buffer.from(base64, 'base64'), fail)
  } catch (err) {
    if (err instanceof TemplateLimitError) {
      throw new TemplateLimitError(`${where}: ${err.message}`, [{ path: where, message: err.message }])
    }
    if (err instanceof TemplateError) throw err
    return fail('image data is not a readable PNG')
  }
  return gfGraphic(w, h, (y, bits) => {
    const sy = Math.min(g.height - 1, Math.floor(y * g.height / h))
    for (let x = 0; x < w; x++) {
      const sx = Math.min(g.width - 1, Math.floor(x * g.width / w))
      if (g.dark[sy * g.width + sx] === 1) bits[x >> 3] = (bits[x >> 3] ?? 0) | (0x80 >> (x & 7))
    }
  })
}
