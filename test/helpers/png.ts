// A 2×1 PNG built byte by byte (base64), for image tests that need a given colour type, alpha or
// extra chunks without a fixture file: `type` is the PNG colour type (6 RGBA, 3 palette, 4 gray +
// alpha), `raw` the filtered scanline (filter byte first), `extra` chunks before IDAT (PLTE, tRNS).
import { deflateSync } from 'node:zlib'

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

function crc (b: Buffer): number {
  let c = 0xffffffff
  for (const x of b) c = CRC_TABLE[(c ^ x) & 255]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

function chunk (type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length)
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const c = Buffer.alloc(4); c.writeUInt32BE(crc(td))
  return Buffer.concat([len, td, c])
}

export function png2x1 (type: number, raw: Buffer, extra: Array<[string, Buffer]> = []): string {
  const ihdr = Buffer.alloc(13); ihdr.writeUInt32BE(2, 0); ihdr.writeUInt32BE(1, 4); ihdr[8] = 8; ihdr[9] = type
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  const chunks = [chunk('IHDR', ihdr), ...extra.map(([t, d]) => chunk(t, d)), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]
  return Buffer.concat([sig, ...chunks]).toString('base64')
}
