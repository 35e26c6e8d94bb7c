// A QR symbol drawn as a ^GF graphic, for a ^BQ whose magnification at the target resolution
// leaves the firmware's 1–10 (the demo's ^BQN,2,8 at 203 dpi needs 11.8 at 300). Modules keep
// their exact size: module i spans dots round(i·m) to round((i+1)·m), so the symbol's printed
// size equals the authored one within half a dot (gf.ts writes the picture, :Z64: compressed).
// The matrix comes from our own encoder (qr-matrix.ts, a fraction of a millisecond) rather than
// bwip-js (~7 ms a symbol), and the finished graphic is kept per (data, module size) for labels
// that repeat a value.
import { RenderError } from '../errors.js'
import { gfGraphicZ64 } from './gf.js'
import { qrMatrix, type QrLevel, type QrMatrix } from './qr-matrix.js'

// Bounded by count and by size: a tracking-number QR at 600 dpi is ~0.6 KiB; a large symbol (a
// version-40 QR at 600 dpi deflates to tens of KiB) is not kept, so the cache stays under 4 MiB.
const CACHE_SIZE = 256
const CACHE_MAX_GRAPHIC = 16_384
// Module size → field data → graphic: two lookups, no key string built per label.
const cache = new Map<number, Map<string, Uint8Array>>()
let cached = 0

/** `^GFA,…` (ASCII bytes) drawing the QR of `fieldData` (`QA,text`: error correction H/Q/M/L, automatic mode). */
export function qrGraphic (fieldData: string, moduleDots: number, where: string): Uint8Array {
  const hit = cache.get(moduleDots)?.get(fieldData)
  if (hit !== undefined) return hit
  const m = /^([HQML])A,([\s\S]*)$/.exec(fieldData)
  if (m === null) throw new RenderError('RENDER_FAILED', `${where}: ^BQ drawn as a graphic takes field data "QA,…" (error correction H, Q, M or L; automatic mode)`)
  let enc: QrMatrix
  try {
    enc = qrMatrix(m.at(2) ?? '', (m.at(1) ?? 'Q') as QrLevel)
  } catch (err) {
    throw new RenderError('RENDER_FAILED', `${where}: QR code: ${String((err as Partial<Error>).message ?? err)}`)
  }
  const edge = (i: number): number => Math.round(i * moduleDots)
  const size = edge(enc.size)
  // The dots of each module row, drawn once: the rows of one module repeat (gf.ts writes `:`).
  const rowBytes = Math.ceil(size / 8)
  const rows = Array.from({ length: enc.size }, (_, r) => {
    const bits = new Uint8Array(rowBytes)
    for (let c = 0; c < enc.size; c++) {
      if (enc.modules[r * enc.size + c] === 0) continue
      for (let x = edge(c); x < edge(c + 1); x++) bits[x >> 3] = (bits[x >> 3] ?? 0) | (0x80 >> (x & 7))
    }
    return bits
  })
  const moduleOf = new Int32Array(size)
  for (let r = 0; r < enc.size; r++) for (let y = edge(r); y < edge(r + 1); y++) moduleOf[y] = r
  const gf = Buffer.from(gfGraphicZ64(rowBytes, size, (y) => rows[moduleOf[y] ?? 0] ?? new Uint8Array(rowBytes)), 'latin1')
  if (gf.length > CACHE_MAX_GRAPHIC) return gf
  // Full: start again (values of one batch come back within it; a rare reset costs one encode each).
  if (cached >= CACHE_SIZE) { cache.clear(); cached = 0 }
  let bySize = cache.get(moduleDots)
  if (bySize === undefined) cache.set(moduleDots, bySize = new Map<string, Uint8Array>())
  bySize.set(fieldData, gf)
  cached++
  return gf
}
