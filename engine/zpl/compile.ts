// Compiles a label's ZPL once into literal chunks and placeholder slots. Placeholders inside
// field data (^FD/^FV) get `^FH_` so their values are hex-escaped; placeholders elsewhere may
// only produce harmless characters. Rendering then is string pushes only (render.ts).
import { TemplateError } from '../errors.js'
import type { LabelDef } from './schema.js'
import { compileExpression, compileText, type CompiledExpr, type CompiledText } from '../expr/expressions.js'
import { DEFAULT_DPI, scaleOf, type Dpi } from './dpi.js'
import { qrGraphic } from './qr-graphic.js'
import { compileElements } from './elements.js'
import { gs1128Zpl, gs1DataMatrixZpl } from './gs1-zpl.js'
import { retargetZpl, type GraphicSlot } from './retarget.js'

export interface LabelSlot {
  value: CompiledText
  /**
   * `field`: escaped with `indicator` inside ^FD data; `param`: must be command-safe text;
   * `raw`: `draw` makes whole commands of the value (a ^GF graphic), written as they are.
   */
  mode: 'field' | 'param' | 'raw'
  /** Applied to the value before it is written (GS1 field data). */
  encode?: (value: string) => string
  /** A raw slot's commands as bytes (ASCII; a cached graphic is copied, not re-encoded per label). */
  draw?: (value: string) => Uint8Array
  indicator: string
  where: string
  src: string
}

export interface CompiledLabel {
  rows: string
  copies: CompiledExpr | number
  /** Everything of one label up to (not including) the closing ^XZ. */
  body: Array<string | LabelSlot>
  widthDots: number
  heightDots: number
  /** The resolution this ZPL is for. */
  dpi: Dpi
}

const fail = (where: string, message: string): never => {
  throw new TemplateError(`${where}: ${message}`, [{ path: where, message }])
}

// Commands that change the command prefixes (^CC/~CC, ^CT/~CT, ^CD/~CD) would defeat our parsing
// and escaping; ^PQ is owned by `copies`.
const FORBIDDEN_COMMANDS = /[\^~](CC|CT|CD|PQ)/i
const SENTINEL = /\uE000(\d+)\uE001/

/** The label's ZPL at `dpi` (default: the resolution it was authored for). */
export function compileLabel (label: LabelDef, where = 'label', dpi?: Dpi): CompiledLabel {
  if (label.elements !== undefined) {
    const target = dpi ?? label.dpi ?? DEFAULT_DPI
    const m = compileElements(label.elements, label.unit ?? 'mm', target, where)
    return assemble(label, where, `^XA${m.text}^XZ`, m.sources, m.graphics, target)
  }
  const zplWhere = `${where}.zpl`
  const zpl = label.zpl ?? ''
  if (zpl.includes('\uE000') || zpl.includes('\uE001')) fail(zplWhere, 'private-use characters U+E000 and U+E001 are not allowed')
  // 1. Replace each {{ expr }} by a sentinel so the ZPL structure can be scanned as text.
  const sources: string[] = []
  const marked = zpl.replace(/\{\{([\s\S]*?)\}\}/g, (m: string) => `\uE000${sources.push(m) - 1}\uE001`)
  if (marked.includes('{{')) fail(zplWhere, "unclosed '{{'")
  let trimmed = marked.trim()
  const forbidden = FORBIDDEN_COMMANDS.exec(trimmed)
  if (forbidden !== null) fail(zplWhere, `${forbidden[0]} is not allowed (${/pq/i.test(forbidden[0]) ? 'use "copies"' : 'it changes the command prefix'})`)
  if (!/^\^XA/i.test(trimmed) || !/\^XZ$/i.test(trimmed) || trimmed.match(/\^XA/gi)?.length !== 1 || trimmed.match(/\^XZ/gi)?.length !== 1) {
    fail(zplWhere, 'must be exactly one label: start with ^XA and end with ^XZ')
  }
  const authored = label.dpi ?? DEFAULT_DPI
  const target = dpi ?? authored
  let graphics = new Map<number, GraphicSlot>()
  if (target !== authored) {
    const r = retargetZpl(trimmed.slice(3, -3), scaleOf(authored, target), sources, zplWhere)
    trimmed = `^XA${r.text}^XZ`
    graphics = r.graphics
  }
  return assemble(label, where, trimmed, sources, graphics, target)
}

/** Header, ^FH_ where placeholders sit in field data, then literal chunks and slots. */
function assemble (label: LabelDef, where: string, trimmed: string, sources: string[],
  graphics: Map<number, GraphicSlot>, dpi: Dpi): CompiledLabel {
  const zplWhere = `${where}.zpl`
  const widthDots = Math.round(label.widthIn * dpi)
  const heightDots = Math.round(label.heightIn * dpi)
  // 2. Header after ^XA: UTF-8 (^CI28) and the label size, unless the author set them.
  let header = '^XA'
  if (!/\^CI/i.test(trimmed)) header += '^CI28'
  if (!/\^PW/i.test(trimmed)) header += `^PW${widthDots}`
  if (!/\^LL/i.test(trimmed)) header += `^LL${heightDots}`
  const text = header + withFieldHex(trimmed.slice(3, -3))
  // 3. Split into literal chunks and slots.
  const body: Array<string | LabelSlot> = []
  const indicators = slotIndicators(text, zplWhere)
  let rest = text
  for (let m = SENTINEL.exec(rest); m !== null; m = SENTINEL.exec(rest)) {
    if (m.index > 0) body.push(rest.slice(0, m.index))
    const k = Number(m[1])
    const src = sources[k] ?? ''
    const graphic = graphics.get(k)
    const indicator = indicators.get(k)
    const value = compileText(src, zplWhere)
    if (graphic?.kind === 'gs1-128' || graphic?.kind === 'gs1-datamatrix') {
      const encode = graphic.kind === 'gs1-128' ? gs1128Zpl : gs1DataMatrixZpl
      const at = `${where}.${src.trim()}`
      body.push({ value, mode: 'field', encode: (v) => encode(v, at), indicator: indicator ?? '_', where: zplWhere, src: src.trim() })
    } else if (graphic !== undefined) {
      const moduleDots = graphic.moduleDots
      body.push({ value, mode: 'raw', draw: (v) => qrGraphic(v, moduleDots, zplWhere), indicator: '', where: zplWhere, src: src.trim() })
    } else {
      const inner = src.slice(2, -2).trim()
      body.push({ value, mode: indicator === undefined ? 'param' : 'field', indicator: indicator ?? '', where: zplWhere, src: inner })
    }
    rest = rest.slice(m.index + m[0].length)
  }
  if (rest !== '') body.push(rest)
  return { rows: label.rows, copies: compileCopies(label.copies, `${where}.copies`), body, widthDots, heightDots, dpi }
}

/** Data of ^FD/^FV runs to the next command prefix. Yields [start of command, start of data, end of data]. */
function * fieldData (text: string): Generator<[number, number, number]> {
  const re = /\^F[DV]/gi
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const start = m.index + 3
    let end = start
    while (end < text.length && text[end] !== '^' && text[end] !== '~') end++
    yield [m.index, start, end]
    re.lastIndex = end
  }
}

/** The ^FH indicator already set for the field that ends at `fdAt`, if the author wrote one. */
function authorIndicator (text: string, fdAt: number): string | undefined {
  const fieldStart = Math.max(text.lastIndexOf('^FS', fdAt), text.lastIndexOf('^fs', fdAt), 0)
  const fh = text.slice(fieldStart, fdAt).search(/\^FH/i)
  if (fh < 0) return undefined
  const c = text[fieldStart + fh + 3]
  // The field may end the text.
  return c === '^' || c === '~' || c === undefined ? '_' : c
}

/** Adds `^FH_` before every field whose data holds a placeholder (escaping literal `_` there). */
function withFieldHex (text: string): string {
  let out = ''
  let last = 0
  for (const [at, start, end] of fieldData(text)) {
    const data = text.slice(start, end)
    if (!data.includes('\uE000') || authorIndicator(text, at) !== undefined) continue
    out += text.slice(last, at) + '^FH_' + text.slice(at, start) + data.replace(/_/g, '_5F')
    last = end
  }
  return out + text.slice(last)
}

/** Placeholder number -> hex indicator, for placeholders inside field data. */
function slotIndicators (text: string, where: string): Map<number, string> {
  const map = new Map<number, string>()
  for (const [at, start, end] of fieldData(text)) {
    const slots = [...text.slice(start, end).matchAll(/\uE000(\d+)\uE001/g)]
    if (slots.length === 0) continue
    const indicator = authorIndicator(text, at) ?? '_'
    // The escaper writes the indicator as one byte: it must be a printable ASCII character.
    if (!/^[!-\]_-}]$/.test(indicator)) fail(where, `^FH indicator ${JSON.stringify(indicator)} must be a printable ASCII character other than ^ and ~`)
    for (const m of slots) map.set(Number(m[1]), indicator)
  }
  return map
}

function compileCopies (copies: LabelDef['copies'], where: string): CompiledExpr | number {
  if (copies === undefined) return 1
  if (typeof copies === 'number') return Number.isInteger(copies) && copies >= 0 ? copies : fail(where, 'must be a whole number >= 0')
  const inner = /^\s*\{\{([\s\S]*)\}\}\s*$/.exec(copies)?.[1]
  if (inner !== undefined) return compileExpression(inner, where)
  if (/^\s*\d+\s*$/.test(copies)) return Number(copies)
  return fail(where, 'must be a whole number or one {{ expression }}')
}
