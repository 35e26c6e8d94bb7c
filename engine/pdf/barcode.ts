// Barcodes as vectors: bwip-js encodes (`raw`), we draw bars/modules as filled rectangles in one
// path. 5-20x cheaper than rasterising through bwip-js, and sharp at any zoom or printer dpi.
import bwipjs from 'bwip-js'
import { RenderError } from '../errors.js'
import { checkElementString } from '../gs1/element-string.js'
import type { Canvas } from './canvas.js'
import { ALIGN_CENTER, ALIGN_RIGHT, type BarcodeEl } from './model.js'
import { wrap } from './text.js'

/** Template names → bwip-js encoder ids; bwip-js ids listed here are accepted as they are. */
export const BARCODE_TYPES: Record<string, { bcid: string, twoD: boolean }> = {
  code128: { bcid: 'code128', twoD: false },
  code39: { bcid: 'code39', twoD: false },
  ean13: { bcid: 'ean13', twoD: false },
  ean8: { bcid: 'ean8', twoD: false },
  upca: { bcid: 'upca', twoD: false },
  itf14: { bcid: 'itf14', twoD: false },
  interleaved2of5: { bcid: 'interleaved2of5', twoD: false },
  qr: { bcid: 'qrcode', twoD: true },
  qrcode: { bcid: 'qrcode', twoD: true },
  datamatrix: { bcid: 'datamatrix', twoD: true },
  pdf417: { bcid: 'pdf417', twoD: true },
  // GS1 element strings "(00)…(02)…", validated AI by AI first (engine/gs1/) so a fault names the AI.
  'gs1-128': { bcid: 'gs1-128', twoD: false },
  'gs1-datamatrix': { bcid: 'gs1datamatrix', twoD: true }
}

interface Linear { sbs: number[] }
interface Matrix { pixs: number[], pixx: number, pixy: number, width: number, height: number }

const scratchLines: string[] = []
const scratchRtl: boolean[] = []

/** Encodes the element's current value into its scratch fields and sets `w`/`h`. */
export function prepareBarcode (el: BarcodeEl, value: string): void {
  el.text = value
  el.runs.length = 0
  if (value.length === 0) { el.w = 0; el.h = 0; return }
  if (el.bcid === 'gs1-128' || el.bcid === 'gs1datamatrix') {
    checkElementString(value, el.bcid === 'gs1-128' ? 'gs1-128' : 'gs1-datamatrix', `${el.path}.barcode.value`)
  }
  let enc: unknown[]
  try {
    enc = bwipjs.raw(el.bcid, value, {})
  } catch (err) {
    // bwip-js messages look like "bwipp.ean13badLength#6878: EAN-13 must be 12 or 13 digits".
    const reason = String((err as Partial<Error>).message ?? err).replace(/^bwipp\.[^:]*: /, '')
    throw new RenderError('RENDER_FAILED', `${el.path}.barcode.value: ${el.bcid} "${value}": ${reason}`)
  }
  const first = enc[0] as Linear & Matrix
  if (!el.twoD) {
    const sbs = first.sbs
    let x = 0
    for (let i = 0; i < sbs.length; i++) {
      const w = sbs[i]! // i < sbs.length
      if ((i & 1) === 0) el.runs.push(x, w)
      x += w
    }
    const mw = el.width > 0 ? el.width / x : el.moduleWidth
    el.cols = x
    el.w = x * mw
    el.h = el.height + (el.showText ? el.textStyle.lineHeight + 1 : 0)
    return
  }
  const { pixs, pixx, pixy } = first
  // Merge horizontal runs of dark modules: far fewer rectangles than one per module.
  for (let r = 0; r < pixy; r++) {
    let c = 0
    while (c < pixx) {
      if (pixs[r * pixx + c] === 0) { c++; continue }
      const start = c
      while (c < pixx && pixs[r * pixx + c] !== 0) c++
      el.runs.push(r, start, c - start)
    }
  }
  el.cols = pixx
  el.rows = pixy
  const mw = el.width > 0 ? el.width / pixx : el.moduleWidth
  // Row height relative to module width (PDF417 rows are taller than wide).
  const aspect = first.width > 0 ? (first.height / pixy) / (first.width / pixx) : 1
  el.w = pixx * mw
  el.h = pixy * mw * aspect
}

const quads: number[] = []

/** Draws the prepared barcode with its box's top-left at (x, y) inside a container at `left`. */
export function drawBarcode (el: BarcodeEl, c: Canvas, left: number, y: number): void {
  if (el.w === 0) return
  let x = left
  if (el.align === ALIGN_CENTER) x += (el.containerWidth - el.w) / 2
  else if (el.align === ALIGN_RIGHT) x += el.containerWidth - el.w
  quads.length = 0
  const runs = el.runs
  if (!el.twoD) {
    const mw = el.w / el.cols
    // runs holds (x, width) pairs, pushed two at a time above.
    for (let i = 0; i < runs.length; i += 2) quads.push(x + runs[i]! * mw, y, runs[i + 1]! * mw, el.height)
    c.rects(quads, el.color)
    if (el.showText) {
      const st = el.textStyle
      wrap(st.face, st.size, el.text, el.w + 40, 1, scratchLines, scratchRtl, 'ltr')
      const line = scratchLines[0]
      if (line !== undefined) {
        const tw = st.face.width(line) * st.size / 1000
        c.text(st, line, x + (el.w - tw) / 2, y + el.height + 1)
      }
    }
    return
  }
  const mw = el.w / el.cols
  const mh = el.h / el.rows
  // runs holds (row, x, width) triples, pushed three at a time above.
  for (let i = 0; i < runs.length; i += 3) quads.push(x + runs[i + 1]! * mw, y + runs[i]! * mh, runs[i + 2]! * mw, mh)
  c.rects(quads, el.color)
}
