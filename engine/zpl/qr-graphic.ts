// A QR symbol drawn as a ^GF graphic, for a ^BQ whose magnification at the target resolution
// leaves the firmware's 1–10 (the demo's ^BQN,2,8 at 203 dpi needs 11.8 at 300). Modules keep
// their exact size: module i spans dots round(i·m) to round((i+1)·m), so the symbol's printed
// size equals the authored one within half a dot. Rows are written in ZPL's compressed ASCII
// hex (run counts G–Y/g–z, `,` zeros to the row's end, `:` the row above repeated).
import bwipjs from 'bwip-js'
import { RenderError } from '../errors.js'

interface Matrix { pixs: number[], pixx: number, pixy: number }

const RUN_UNITS = 'GHIJKLMNOPQRSTUVWXY' // 1–19
const RUN_TWENTIES = 'ghijklmnopqrstuvwxyz' // 20, 40, … 400

function runCode (n: number): string {
  let out = ''
  let rest = n
  while (rest >= 20) {
    const t = Math.min(Math.floor(rest / 20), 20)
    out += RUN_TWENTIES[t - 1] ?? ''
    rest -= t * 20
  }
  return rest > 0 ? out + (RUN_UNITS[rest - 1] ?? '') : out
}

/** One row's hex in compressed form. */
function compressRow (hex: string): string {
  const trimmed = hex.replace(/0+$/, '')
  let out = ''
  for (let i = 0; i < trimmed.length;) {
    let j = i
    while (j < trimmed.length && trimmed[j] === trimmed[i]) j++
    out += (j - i > 1 ? runCode(j - i) : '') + (trimmed[i] ?? '')
    i = j
  }
  return trimmed.length < hex.length ? out + ',' : out
}

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
  const rowBytes = Math.ceil(size / 8)
  const bits = new Uint8Array(rowBytes)
  let body = ''
  let previous = ''
  for (let r = 0; r < enc.pixy; r++) {
    bits.fill(0)
    for (let c = 0; c < enc.pixx; c++) {
      if (enc.pixs[r * enc.pixx + c] === 0) continue
      for (let x = edge(c); x < edge(c + 1); x++) bits[x >> 3] = (bits[x >> 3] ?? 0) | (0x80 >> (x & 7))
    }
    const row = compressRow(Buffer.from(bits).toString('hex').toUpperCase())
    for (let y = edge(r); y < edge(r + 1); y++) {
      body += row === previous ? ':' : row
      previous = row
    }
  }
  const total = rowBytes * size
  return `^GFA,${total},${total},${rowBytes},${body}`
}
