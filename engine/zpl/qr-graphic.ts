// A QR symbol drawn as a ^GF graphic, for a ^BQ whose magnification at the target resolution
// leaves the firmware's 1–10 (the demo's ^BQN,2,8 at 203 dpi needs 11.8 at 300). Modules keep
// their exact size: module i spans dots round(i·m) to round((i+1)·m), so the symbol's printed
// size equals the authored one within half a dot (gf.ts writes the picture).
import bwipjs from 'bwip-js'
import { RenderError } from '../errors.js'
import { gfGraphic } from './gf.js'

interface Matrix { pixs: number[], pixx: number, pixy: number }

/** `^GFA,…` drawing the QR of `fieldData` (`QA,text`: error correction H/Q/M/L, automatic mode). */
export function qrGraphic (fieldData: string, moduleDots: number, where: string): string {
  const m = /^([HQML])A,([\s\S]*)$/.exec(fieldData)
  if (m === null) throw new RenderError('RENDER_FAILED', `${where}: ^BQ drawn as a graphic takes field data "QA,…" (error correction H, Q, M or L; automatic mode)`)
  let enc: Matrix
  try {
    enc = (bwipjs.raw('qrcode', m.at(2) ?? '', `eclevel=${m.at(1) ?? 'Q'}`) as unknown as Matrix[])[0] as Matrix
  } catch (err) {
    throw new RenderError('RENDER_FAILED', `${where}: QR code: ${String((err as Partial<Error>).message ?? err).replace(/^bwipp\.[^:]*: /, '')}`)
  }
  const edge = (i: number): number => Math.round(i * moduleDots)
  const size = edge(enc.pixx)
  // Module row and column of each dot, so the picture is one pass over its dots.
  const moduleOf = new Int32Array(size)
  for (let c = 0; c < enc.pixx; c++) for (let x = edge(c); x < edge(c + 1); x++) moduleOf[x] = c
  return gfGraphic(size, size, (y, bits) => {
    const r = moduleOf[y] ?? 0
    for (let x = 0; x < size; x++) {
      if (enc.pixs[r * enc.pixx + (moduleOf[x] ?? 0)] !== 0) bits[x >> 3] = (bits[x >> 3] ?? 0) | (0x80 >> (x & 7))
    }
  })
}
