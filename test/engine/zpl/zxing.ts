// Reads barcodes on rendered labels with ZXing's command-line reader (zxing-cpp-tools): the
// label is drawn by zpl-renderer-js at the printer's resolution, the region of one symbol is cut
// out (ZXing 1.4 finds a DataMatrix reliably only in a picture of it alone) and read with its
// symbology identifier and position.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deflateSync } from 'node:zlib'
import { ready } from 'zpl-renderer-js'
import { decodeGrayPng, type Gray } from '../pdf/gray-png.js'

export interface Read { text: string, identifier: string, x: number, y: number }

/** One label's picture, one pixel per printer dot (`widthDots` × `heightDots`). */
export async function drawLabel (zpl: string, dpi: number, widthDots: number, heightDots: number): Promise<Gray> {
  const { api } = await ready
  const dpmm = Math.round(dpi / 25.4) // the renderer takes whole dots per mm
  return decodeGrayPng(Buffer.from(await api.zplToBase64Async(zpl, widthDots / dpmm, heightDots / dpmm, dpmm), 'base64'))
}

function grayPng (g: Gray, x0: number, y0: number, w: number, h: number): Buffer {
  const raw = Buffer.alloc((w + 1) * h, 255)
  for (let y = 0; y < h; y++) {
    raw[y * (w + 1)] = 0
    for (let x = 0; x < w; x++) {
      const sx = x0 + x; const sy = y0 + y
      if (sx < g.width && sy < g.height) raw[y * (w + 1) + 1 + x] = g.pixels[sy * g.width + sx] ?? 255
    }
  }
  const chunk = (type: string, data: Buffer): Buffer => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(body))
    return Buffer.concat([len, body, crc])
  }
  const ihdr = Buffer.alloc(13); ihdr.writeUInt32BE(w, 0); ihdr.writeUInt32BE(h, 4); ihdr[8] = 8; ihdr[9] = 0
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))])
}

function crc32 (b: Buffer): number {
  let c = 0xffffffff
  for (const x of b) {
    c ^= x
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  }
  return (c ^ 0xffffffff) >>> 0
}

/** Reads the one symbol in [x0, x0+w) × [y0, y0+h) (dots); positions are on the whole label. */
export function readRegion (g: Gray, format: 'Code128' | 'QRCode' | 'DataMatrix', x0: number, y0: number, w: number, h: number): Read {
  const dir = mkdtempSync(join(tmpdir(), 'zxing-'))
  try {
    const file = join(dir, 'region.png')
    writeFileSync(file, grayPng(g, x0, y0, w, h))
    // -noscale: ZXing 1.4 aborts on some 1D symbols when it also tries downscaled copies;
    // -ispure: the crop holds one symbol, as the 2D readers of this version need.
    const opts = format === 'Code128' ? ['-noscale'] : ['-ispure']
    const out = execFileSync('ZXingReader', ['-escape', '-format', format, ...opts, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    const field = (name: string): string => new RegExp(`^${name}:\\s+(.*)$`, 'm').exec(out)?.[1] ?? ''
    const text = field('Text').replace(/^"|"$/g, '')
    const corner = (field('Position').split(' ').at(0) ?? '').split('x').map(Number)
    return { text, identifier: field('Identifier'), x: (corner.at(0) ?? NaN) + x0, y: (corner.at(1) ?? NaN) + y0 }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
