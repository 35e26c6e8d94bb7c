// Declarative label elements (text, barcode, box, line) in millimetres or points, compiled to
// ZPL at the target resolution: the same marked text with placeholders that raw ZPL becomes
// (compile.ts), so escaping is the one of escape.ts. Data with {{ }} becomes one slot per element.
import { TemplateError } from '../errors.js'
import { gs1Minimum } from '../gs1/element-string.js'
import { QR_TOP, type GraphicSlot } from './retarget.js'
import { DM_ESCAPE } from './gs1-zpl.js'
import { imageGraphic } from './image.js'
import type { LabelElement } from './schema.js'

export interface MarkedElements { text: string, sources: string[], graphics: Map<number, GraphicSlot> }

const ORIENT = { 0: 'N', 90: 'R', 180: 'I', 270: 'B' } as const
const ALIGN: Record<string, string> = { left: 'L', center: 'C', right: 'R', justify: 'J' }
// ZPL command per symbology: 1D ones take ^BY for the module width.
const LINEAR: Partial<Record<string, (h: number, hri: string) => string>> = {
  code128: (h, hri) => `^BCN,${h},${hri},N,N`,
  code39: (h, hri) => `^B3N,N,${h},${hri},N`,
  ean13: (h, hri) => `^BEN,${h},${hri},N`,
  ean8: (h, hri) => `^B8N,${h},${hri},N`,
  upca: (h, hri) => `^BUN,${h},${hri},N,Y`,
  interleaved2of5: (h, hri) => `^B2N,${h},${hri},N,N`,
  'gs1-128': (h) => `^BCN,${h},N,N,N`
}

export function compileElements (elements: LabelElement[], unit: 'mm' | 'pt', dpi: number, where: string): MarkedElements {
  const perUnit = (unit === 'mm' ? 25.4 : 72)
  const dots = (v: number): number => Math.round(v * dpi / perUnit)
  const sources: string[] = []
  const graphics = new Map<number, GraphicSlot>()
  const slot = (text: string): string => `\uE000${sources.push(text) - 1}\uE001`
  let out = ''
  elements.forEach((el, i) => {
    const at = `${where}.elements[${i}]`
    const fail = (message: string): never => { throw new TemplateError(`${at}: ${message}`, [{ path: at, message }]) }
    // ^BQ prints QR_TOP dots below its origin (retarget.ts): the element's y is the symbol's top.
    const qrNative = el.type === 'barcode' && el.symbology === 'qr' && Math.round(el.module * dpi / perUnit) <= 10
    out += `^FO${dots(el.x)},${Math.max(dots(el.y) - (qrNative ? QR_TOP : 0), 0)}`
    if (el.type === 'text') {
      const h = Math.max(dots(el.size), 10)
      out += `^A0${ORIENT[el.rotation ?? 0]},${h},${h}`
      if (el.maxWidth !== undefined) out += `^FB${dots(el.maxWidth)},${el.maxLines ?? 1},0,${ALIGN[el.align ?? 'left'] ?? 'L'}`
      out += `^FD${slot(el.text)}^FS`
    } else if (el.type === 'image') {
      // Literal graphic in the compiled ZPL: decoded and drawn once per (version, dpi).
      out += `${imageGraphic(el.data, Math.max(dots(el.width), 1), Math.max(dots(el.height), 1), at)}^FS`
    } else if (el.type === 'box' || el.type === 'line') {
      const t = Math.max(dots(el.thickness ?? (unit === 'mm' ? 0.25 : 0.75)), 1)
      const [w, h] = el.type === 'box'
        ? [Math.max(dots(el.width), t), Math.max(dots(el.height), t)]
        : el.direction === 'vertical' ? [t, Math.max(dots(el.length), t)] : [Math.max(dots(el.length), t), t]
      out += `^GB${w},${h},${t},B,${el.type === 'box' ? el.rounding ?? 0 : 0}^FS`
    } else {
      out += barcode(el, dpi, perUnit, slot, sources, graphics, fail)
    }
  })
  return { text: out, sources, graphics }
}

type BarcodeElement = Extract<LabelElement, { type: 'barcode' }>

/** Module width in dots: the nearest whole dot, rounded up where that leaves a GS1 minimum X. */
function moduleDots (el: BarcodeElement, dpi: number, perUnit: number): number {
  const exact = el.module * dpi / perUnit
  const min = gs1Minimum(el.symbology) * dpi / 25.4
  const m = Math.max(Math.round(exact), 1)
  return m < min ? Math.ceil(min) : m
}

function barcode (el: BarcodeElement, dpi: number, perUnit: number, slot: (t: string) => string, sources: string[],
  graphics: Map<number, GraphicSlot>, fail: (m: string) => never): string {
  const m = moduleDots(el, dpi, perUnit)
  const linear = LINEAR[el.symbology]
  if (linear !== undefined) {
    if (el.height === undefined) fail(`a ${el.symbology} barcode needs a height`)
    const h = Math.max(Math.round((el.height ?? 0) * dpi / perUnit), 1)
    if (m > 10) fail(`module ${el.module} is ${m} dots at ${dpi} dpi; ^BY takes 1–10`)
    const data = slot(el.data)
    if (el.symbology === 'gs1-128') graphics.set(sources.length - 1, { kind: 'gs1-128', moduleDots: m })
    return `^BY${m}${linear(h, el.hri === true ? 'Y' : 'N')}^FD${data}^FS`
  }
  if (el.symbology === 'qr') {
    if (m <= 10) return `^BQN,2,${m}^FDQA,${slot(el.data)}^FS`
    // Beyond ^BQ's magnification: drawn as a graphic at render time.
    const k = sources.push(`QA,${el.data}`) - 1
    graphics.set(k, { kind: 'qr', moduleDots: el.module * dpi / perUnit })
    return `\uE000${k}\uE001^FS`
  }
  if (el.symbology === 'datamatrix') return `^BXN,${m},200^FD${slot(el.data)}^FS`
  // GS1 DataMatrix: the escape character set explicitly (firmware defaults differ).
  const data = slot(el.data)
  graphics.set(sources.length - 1, { kind: 'gs1-datamatrix', moduleDots: m })
  return `^BXN,${m},200,,,,${DM_ESCAPE}^FD${data}^FS`
}
