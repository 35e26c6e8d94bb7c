// Retargets a raw-ZPL label from its authored resolution to another (docs/templates.md,
// "Resolutions"): coordinates, field origins, fonts, boxes, module widths, bar heights, QR
// magnification, field blocks, label home/top/width/length. Runs once per (version, dpi) on the
// placeholder-marked text (compile.ts). A command it cannot scale, or a value that would leave
// the firmware's range, is a TemplateError naming the command; nothing is clamped. A QR symbol
// whose magnification would leave 1–10 is drawn as a ^GF graphic at render time (qr-graphic.ts).
import { TemplateError } from '../errors.js'
import { FONT_TOLERANCE, scaleDots, snapModule, wholeFactor, type Scale } from './dpi.js'

/** Placeholder k of the marked text is drawn by an encoder: its value becomes a whole command. */
export interface GraphicSlot { kind: 'qr' | 'gs1-128' | 'gs1-datamatrix', moduleDots: number }

export interface Retargeted {
  text: string
  /** Slot number → graphic, for slots the retargeter made from a whole field's data. */
  graphics: Map<number, GraphicSlot>
}

const SENTINEL = /\uE000(\d+)\uE001/g
// Which parameters (0-based, after the command name) are lengths in dots.
const LENGTHS: Partial<Record<string, number[]>> = {
  FO: [0, 1],
  FT: [0, 1],
  LH: [0, 1],
  LT: [0],
  LS: [0],
  PW: [0],
  LL: [0],
  GB: [0, 1, 2],
  GC: [0, 1],
  GE: [0, 1, 2],
  GD: [0, 1, 2],
  FB: [0, 2, 4],
  TB: [1, 2],
  BC: [1],
  B3: [2],
  BE: [1],
  B8: [1],
  BU: [1],
  B2: [1],
  BA: [1],
  B7: [1],
  BX: [1],
  BI: [1]
}
// Commands with no length in them: passed through unchanged.
const UNSCALED = new Set(['XA', 'XZ', 'FS', 'FD', 'FV', 'FH', 'FR', 'FX', 'CI', 'FW', 'PO', 'PM', 'PR', 'MD',
  'MN', 'MT', 'MM', 'FN', 'FP', 'JZ', 'LR'])
const BARCODES = /^B[0-9A-Z]$/
// Bitmap fonts keep their dot matrix; only the scalable font 0 and downloaded fonts (^A@) scale freely.
const scalableFont = (f: string): boolean => f === '0' || f === '@'

interface State {
  s: Scale
  where: string
  defaultFont: string
  /** ^CF gave the default font an explicit height and width (a bitmap font's size to scale). */
  defaultSized: boolean
  fieldFont: boolean
  fieldSymbol: boolean
}

function fail (st: State, command: string, message: string): never {
  const text = `${st.where}: ${command}: ${message}`
  throw new TemplateError(text, [{ path: st.where, message: `${command}: ${message}` }])
}

function dpiNote (st: State): string {
  return `${st.s.from} → ${st.s.to} dpi`
}

function scaleParam (st: State, command: string, v: string | undefined, min = 0): string | undefined {
  if (v === undefined || v.trim() === '') return v
  if (v.includes('\uE000')) fail(st, command, `a placeholder in a length cannot be retargeted (${dpiNote(st)})`)
  const n = Number(v)
  if (!Number.isFinite(n)) fail(st, command, `"${v}" is not a number`)
  const scaled = scaleDots(n, st.s)
  return String(n > 0 ? Math.max(scaled, min, 1) : scaled)
}

function scaleFont (st: State, command: string, font: string, h: string | undefined, w: string | undefined): string[] {
  if (scalableFont(font)) return [scaleParam(st, command, h) ?? '', scaleParam(st, command, w) ?? '']
  const f = wholeFactor(st.s)
  if (f === undefined) {
    fail(st, command, `bitmap font ${font} scales only by whole factors, and ${dpiNote(st)} is ×${st.s.factor.toFixed(3)} ` +
      `(no whole factor within ${FONT_TOLERANCE * 100} %): use the scalable font 0, or list only the resolutions it suits in "resolutions"`)
  }
  if ((h ?? '') === '' || (w ?? '') === '') fail(st, command, `bitmap font ${font} needs an explicit height and width to be scaled`)
  if (`${h ?? ''}${w ?? ''}`.includes('\uE000')) fail(st, command, `a placeholder in a font size cannot be retargeted (${dpiNote(st)})`)
  return [String(Number(h) * f), String(Number(w) * f)]
}

/** One command (`^` or `~`, name, parameters) retargeted. */
function command (st: State, seg: string): string {
  const prefix = seg.at(0) ?? '^'
  const upper = seg.slice(1, 3).toUpperCase()
  if (upper.startsWith('A')) {
    // ^Afo,h,w: font name, then orientation, then height and width.
    const font = seg.at(2) ?? ''
    const [o, h, w, ...rest] = seg.slice(3).split(',') as Array<string | undefined>
    st.fieldFont = true
    return `${prefix}A${font}${[o ?? '', ...scaleFont(st, `^A${font}`, font, h, w), ...rest].join(',').replace(/,+$/, '')}`
  }
  const name = seg.slice(1, 3)
  const params = seg.slice(3).split(',')
  if (upper === 'CF') {
    const first = params.at(0) ?? ''
    const font = first !== '' ? first : st.defaultFont
    st.defaultFont = font
    st.defaultSized = (params[1] ?? '') !== '' && (params[2] ?? '') !== ''
    if (params.length < 2) return seg
    const [h, w] = scaleFont(st, '^CF', font, params[1], params[2])
    return `${prefix}${name}${[params[0] ?? '', h, w].join(',').replace(/,+$/, '')}`
  }
  if (upper === 'FS') { st.fieldFont = false; st.fieldSymbol = false; return seg }
  if (upper === 'FD' || upper === 'FV') {
    // Text in the default font: a bitmap one scales only with an explicit size (^CF font,h,w) and a whole factor.
    if (!st.fieldFont && !st.fieldSymbol && !scalableFont(st.defaultFont) && st.s.factor !== 1 &&
      (!st.defaultSized || wholeFactor(st.s) === undefined)) {
      const why = st.defaultSized ? '' : ' (it has no explicit height and width to scale)'
      fail(st, `^${upper}`, `text in the default bitmap font ${st.defaultFont} cannot be scaled ${dpiNote(st)}${why}: ` +
        'set ^CF0,h,w or ^A0')
    }
    return seg
  }
  if (upper === 'BY') {
    st.fieldSymbol = true
    const w0 = params.at(0) ?? ''
    if (w0 !== '') {
      if (w0.includes('\uE000')) fail(st, '^BY', `a placeholder in the module width cannot be retargeted (${dpiNote(st)})`)
      const w = snapModule(Number(w0), st.s, 1, 10)
      if (w === undefined) {
        fail(st, '^BY', `module width ${w0} becomes ${(Number(w0) * st.s.factor).toFixed(2)} dots ${dpiNote(st)}; ` +
          'the firmware takes 1–10 and the X-dimension may change by at most 25%')
      }
      params[0] = String(w)
    }
    params[2] = scaleParam(st, '^BY', params[2], 1) ?? ''
    return `${prefix}${name}${params.join(',').replace(/,+$/, '')}`
  }
  const lengths = LENGTHS[upper]
  if (lengths !== undefined) {
    if (BARCODES.test(upper)) st.fieldSymbol = true
    for (const k of lengths) if (k < params.length) params[k] = scaleParam(st, `^${upper}`, params[k], upper === 'GB' && k === 2 ? 1 : 0) ?? ''
    return `${prefix}${name}${params.join(',')}`
  }
  if (UNSCALED.has(upper)) return seg
  return fail(st, `${prefix}${upper}`, `cannot be retargeted from ${dpiNote(st)} (not a command the retargeter knows how to scale)`)
}

/** ^BQ and its field data: the magnification scaled, or a graphic slot when it leaves 1–10. */
function qr (st: State, seg: string, data: string | undefined, sources: string[],
  graphics: Map<number, GraphicSlot>): string {
  const prefix = seg.at(0) ?? '^'
  const params = seg.slice(3).split(',')
  st.fieldSymbol = true
  const given = params.at(2) ?? ''
  const mag = Number(given !== '' ? given : 2)
  if (!Number.isFinite(mag) || given.includes('\uE000')) fail(st, '^BQ', 'the magnification must be a number')
  const m = snapModule(mag, st.s, 1, 10)
  if (m !== undefined) {
    params[2] = String(m)
    return `${prefix}${seg.slice(1, 3)}${params.join(',')}${data ?? ''}`
  }
  // Out of the firmware's range: the field's data (literal text and placeholders) becomes one
  // placeholder whose value the QR encoder turns into ^GF at render time.
  if (data === undefined) {
    fail(st, '^BQ', `magnification ${mag} becomes ${(mag * st.s.factor).toFixed(2)} ${dpiNote(st)}, outside 1–10; ` +
      'to draw it as a graphic its data must follow directly in ^FD')
  }
  const text = data.slice(3).replace(SENTINEL, (_m, k: string) => sources[Number(k)] ?? '')
  const k = sources.push(text) - 1
  graphics.set(k, { kind: 'qr', moduleDots: mag * st.s.factor })
  return `\uE000${k}\uE001`
}

/**
 * ^BQ prints its symbol QR_TOP dots below its field origin (firmware behaviour, drawn so by the
 * ZPL renderers too), at every resolution: so that the symbol stays where it was, a QR field's
 * origin y becomes round((y + QR_TOP)·s) − QR_TOP, or round((y + QR_TOP)·s) for the ^GF graphic,
 * which has no such offset.
 */
export const QR_TOP = 10

/** The magnification of the ^BQ in the field starting at segment i, if there is one. */
function qrInField (segs: string[], i: number): number | undefined {
  for (let j = i + 1; j < segs.length && !/^\^FS/i.test(segs[j] ?? ''); j++) {
    const seg = segs[j] ?? ''
    if (/^\^BQ/i.test(seg)) {
      const mag = seg.slice(3).split(',').at(2) ?? ''
      return mag !== '' ? Number(mag) : 2
    }
  }
  return undefined
}

function qrOrigin (st: State, seg: string, mag: number): string {
  const [x, y, ...rest] = seg.slice(3).split(',') as Array<string | undefined>
  const native = snapModule(mag, st.s, 1, 10) !== undefined
  const yDots = Number(y ?? '0')
  if (!Number.isFinite(yDots) || (y ?? '').includes('\uE000')) fail(st, '^FO', `a QR field's origin must be a number (${dpiNote(st)})`)
  const y2 = Math.round((yDots + QR_TOP) * st.s.factor) - (native ? QR_TOP : 0)
  return `${seg.slice(0, 3)}${[scaleParam(st, '^FO', x) ?? '', String(y2), ...rest].join(',')}`
}

/** The marked ZPL (between ^XA and ^XZ, placeholders as sentinels) at the target resolution. */
export function retargetZpl (marked: string, s: Scale, sources: string[], where: string): Retargeted {
  const st: State = { s, where, defaultFont: 'A', defaultSized: false, fieldFont: false, fieldSymbol: false }
  const graphics = new Map<number, GraphicSlot>()
  const segs = marked.split(/(?=[\^~])/)
  let out = ''
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i] ?? ''
    if (!/^[\^~]/.test(seg)) { out += seg; continue }
    const mag = /^\^FO/i.test(seg) ? qrInField(segs, i) : undefined
    if (mag !== undefined) { out += qrOrigin(st, seg, mag); continue }
    if (/^\^BQ/i.test(seg)) {
      const next = segs[i + 1] ?? ''
      const hasData = /^\^FD/i.test(next)
      out += qr(st, seg, hasData ? next : undefined, sources, graphics)
      if (hasData) i++
      continue
    }
    out += command(st, seg)
  }
  return { text: out, graphics }
}
