// Image assets decoded once per compiled template into ready-to-write PDF image XObjects.
// pdfkit would re-parse (and, for PNGs with alpha, inflate + split + deflate) an image in
// every document; here each render only writes the prepared bytes.
import { inflateScanlines, readPng, unfilter } from '../png/png.js'
import { deflate } from '../deflate.js'
import { TemplateError, TemplateLimitError } from '../errors.js'
import { MAX_IMAGE_PIXELS } from '../limits.js'
import { flattenOnWhite } from './image-flatten.js'

export interface PreparedImage {
  index: number
  width: number
  height: number
  dict: Record<string, unknown>
  data: Uint8Array
  palette: Uint8Array | null
  smask: Uint8Array | null
}

/** `flatten`: transparency composited onto white, no soft mask (PDF/A, see image-flatten.ts). */
export function prepareImage (index: number, asset: unknown, where: string, flatten = false): PreparedImage {
  const b64 = (asset as { data?: unknown } | null)?.data
  if (typeof b64 !== 'string') throw bad(where, 'missing base64 "data"')
  const bytes = Buffer.from(b64, 'base64')
  if (bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpeg(index, bytes, where)
  if (bytes.length > 8 && bytes.readUInt32BE(0) === 0x89504e47) return png(index, bytes, where, flatten)
  throw bad(where, 'not a PNG or JPEG image')
}

function bad (where: string, message: string): TemplateError {
  return new TemplateError(`${where}: ${message}`, [{ path: where, message }])
}

/** Checked from the header, before anything is decoded or inflated. */
function checkPixels (width: number, height: number, where: string): void {
  if (width * height <= MAX_IMAGE_PIXELS) return
  const message = `image is ${width} × ${height} pixels; the limit is ${MAX_IMAGE_PIXELS} pixels`
  throw new TemplateLimitError(`${where}: ${message}`, [{ path: where, message }])
}

function jpeg (index: number, b: Buffer, where: string): PreparedImage {
  let pos = 2
  while (pos + 9 < b.length) {
    if (b[pos] !== 0xff) { pos++; continue }
    const marker = b.readUInt8(pos + 1)
    const len = b.readUInt16BE(pos + 2)
    // Start-of-frame markers carry the size; C4 (DHT), C8 and CC (arithmetic tables) do not.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = b.readUInt16BE(pos + 5)
      const width = b.readUInt16BE(pos + 7)
      const comps = b[pos + 9]
      checkPixels(width, height, where)
      const dict: Record<string, unknown> = {
        Type: 'XObject',
        Subtype: 'Image',
        BitsPerComponent: 8,
        Width: width,
        Height: height,
        ColorSpace: comps === 1 ? 'DeviceGray' : comps === 4 ? 'DeviceCMYK' : 'DeviceRGB',
        Filter: 'DCTDecode'
      }
      if (comps === 4) dict.Decode = [1, 0, 1, 0, 1, 0, 1, 0] // Adobe CMYK JPEGs are stored inverted
      return { index, width, height, dict, data: b, palette: null, smask: null }
    }
    pos += 2 + len
  }
  throw bad(where, 'JPEG without a frame header')
}

function png (index: number, b: Buffer, where: string, flatten: boolean): PreparedImage {
  const fail = (message: string): never => { throw bad(where, message) }
  const chunks = readPng(b, fail, (w, h) => { checkPixels(w, h, where) })
  const { width, height, depth, type, interlace, palette, trns, idat } = chunks
  if (width === 0 || idat.length === 0) throw bad(where, 'truncated PNG')
  if (interlace !== 0) throw bad(where, 'interlaced PNG is not supported: save it non-interlaced')
  const data = Buffer.concat(idat)
  const colors = type === 2 || type === 6 ? 3 : 1
  const colorSpace = colors === 3 ? 'DeviceRGB' : 'DeviceGray'
  const dict: Record<string, unknown> = {
    Type: 'XObject', Subtype: 'Image', Width: width, Height: height, Filter: 'FlateDecode'
  }
  const base = { index, width, height, dict, palette: null as Uint8Array | null, smask: null as Uint8Array | null }
  if (type === 4 || type === 6 || (type === 3 && trns !== null)) {
    if (depth !== 8) throw bad(where, 'PNG with transparency must have 8-bit channels')
    const channels = type === 6 ? 4 : type === 4 ? 2 : 1
    // The header's size bounds the inflated size too: a stream that inflates further is refused.
    const pixels = unfilter(inflateScanlines(chunks, channels, fail), width, height, channels)
    const n = width * height
    const alpha = new Uint8Array(n)
    if (type === 3) {
      // An index past the tRNS entries is opaque; pixels holds n indices (unfilter's output).
      for (let i = 0; i < n; i++) alpha[i] = trns![pixels[i]!] ?? 255
      Object.assign(dict, { BitsPerComponent: 8, ColorSpace: 'Indexed' })
      if (flatten) {
        // Each palette entry over white, with its own alpha: exact, and the pixels stay indices.
        const pal = palette === null
          ? null
          : flattenOnWhite(Uint8Array.from(palette), paletteAlpha(trns!, palette.length / 3), 3)
        return { ...base, dict: indexed(dict, pal, where), data: deflate(pixels), palette: pal }
      }
      return {
        ...base,
        dict: indexed(dict, palette, where),
        data: deflate(pixels),
        palette,
        smask: deflate(alpha)
      }
    }
    const color = new Uint8Array(n * (channels - 1))
    // pixels holds n × channels samples (unfilter's output).
    for (let i = 0, p = 0, c = 0; i < n; i++) {
      for (let k = 1; k < channels; k++) color[c++] = pixels[p++]!
      alpha[i] = pixels[p++]!
    }
    Object.assign(dict, { BitsPerComponent: 8, ColorSpace: colorSpace })
    if (flatten) return { ...base, data: deflate(flattenOnWhite(color, alpha, channels - 1)) }
    return { ...base, data: deflate(color), smask: deflate(alpha) }
  }
  // Opaque PNGs go in as they are: PDF's Flate predictor 15 is PNG's own filtering.
  dict.BitsPerComponent = depth
  dict.DecodeParms = { Predictor: 15, Colors: colors, BitsPerComponent: depth, Columns: width }
  if (type === 3) return { ...base, dict: indexed(dict, palette, where), data, palette }
  dict.ColorSpace = colorSpace
  if (trns !== null) {
    const key: number[] = []
    for (let i = 0; i + 1 < trns.length; i += 2) { const v = trns.readUInt16BE(i); key.push(v, v) }
    dict.Mask = key
  }
  return { ...base, data }
}

/** Alpha of each of `n` palette entries (tRNS lists the first ones; the rest are opaque). */
function paletteAlpha (trns: Uint8Array, n: number): Uint8Array {
  const a = new Uint8Array(n).fill(255)
  a.set(trns.subarray(0, n))
  return a
}

function indexed (dict: Record<string, unknown>, palette: Uint8Array | null, where: string): Record<string, unknown> {
  if (palette === null) throw bad(where, 'palette PNG without PLTE')
  // The palette reference is filled in per document (see embedImage); keep its size here.
  dict.ColorSpace = ['Indexed', 'DeviceRGB', palette.length / 3 - 1, null]
  return dict
}

/**
 * Reverses PNG scanline filters (8-bit samples, `bpp` bytes per pixel). `src` holds `height`
 * lines of a filter byte and `width × bpp` samples (png() checked its length), so every read
 * below is inside `src` or inside the part of `out` already written.
 */

interface RefLike { data: Record<string, unknown>, end (chunk?: Uint8Array): void }
interface DocLike { ref (data?: Record<string, unknown>): RefLike }

/** Writes `img` into `doc` and returns its XObject reference. */
export function embedImage (doc: PDFKit.PDFDocument, img: PreparedImage): unknown {
  const d = doc as unknown as DocLike
  const dict: Record<string, unknown> = { ...img.dict }
  if (img.palette !== null) {
    const pal = d.ref()
    pal.end(img.palette)
    dict.ColorSpace = ['Indexed', 'DeviceRGB', img.palette.length / 3 - 1, pal]
  }
  if (img.smask !== null) {
    const sm = d.ref({
      Type: 'XObject',
      Subtype: 'Image',
      Width: img.width,
      Height: img.height,
      BitsPerComponent: 8,
      Filter: 'FlateDecode',
      ColorSpace: 'DeviceGray',
      Decode: [0, 1]
    })
    sm.end(img.smask)
    dict.SMask = sm
  }
  const ref = d.ref(dict)
  ref.end(img.data)
  return ref
}
