// GS1 element strings, `(00)012345678901234567(02)…(37)12`: parsed, every AI checked against
// the table (ai-table.ts), and handed on as elements with their separators decided, for the
// ZPL and PDF encoders. Any fault fails the render naming the AI, so a pallet label that a
// receiving dock would reject is never printed.
import { RenderError } from '../errors.js'
import { AI_TABLE, isPredefinedLength, type Part } from './ai-table.js'

export interface Gs1Element {
  ai: string
  value: string
  /** True when an FNC1 separator must follow this element if another comes after it. */
  variable: boolean
}

export type Gs1Symbology = 'gs1-128' | 'gs1-datamatrix'

/** GS1-128 carries at most 48 data characters, AIs and separators included (GS1 GS 5.4.1). */
export const GS1_128_MAX_CHARS = 48

// GS1 AI encodable character set 82 (GS1 General Specifications figure 7.11-1).
const CSET82 = /^[!"%&'()*+,\-./0-9:;<=>?A-Z_a-z]*$/

const fail = (where: string, message: string): never => {
  throw new RenderError('RENDER_FAILED', `${where}: ${message}`)
}

/** GS1 mod-10 check digit of `body` (weights 3, 1, 3 … from the right). */
export function gs1CheckDigit (body: string): number {
  let sum = 0
  for (let i = 0; i < body.length; i++) sum += Number(body[body.length - 1 - i]) * (i % 2 === 0 ? 3 : 1)
  return (10 - (sum % 10)) % 10
}

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function checkPart (ai: string, part: Part, text: string, where: string): void {
  const label = `GS1 AI (${ai})`
  if (part.kind === 'N' && !/^\d*$/.test(text)) fail(where, `${label}: "${text}" must be digits only`)
  if (part.kind === 'X' && !CSET82.test(text)) fail(where, `${label}: "${text}" has characters outside GS1 character set 82`)
  if (part.check === 'csum') {
    const want = gs1CheckDigit(text.slice(0, -1))
    if (Number(text.slice(-1)) !== want) fail(where, `${label}: check digit is ${text.slice(-1)}, should be ${want}`)
  }
  if (part.check === 'date') {
    const mm = Number(text.slice(2, 4))
    const dd = Number(text.slice(4, 6))
    // DD = 00 means "end of month" for the date AIs (GS1 GS 3.4.2–3.4.7).
    const days = DAYS.at(mm - 1)
    if (days === undefined || dd > days) fail(where, `${label}: "${text}" is not a date YYMMDD`)
  }
}

/** The AI's data split over its components; fails naming the AI on a length or content fault. */
function checkValue (ai: string, value: string, where: string): void {
  const spec = AI_TABLE.get(ai)
  if (spec === undefined) return fail(where, `GS1 AI (${ai}) is unknown`)
  let at = 0
  spec.parts.forEach((part, k) => {
    const last = k === spec.parts.length - 1
    const len = last ? value.length - at : part.max
    if (len < part.min || len > part.max) {
      const want = part.min === part.max ? `${part.min}` : `${part.min} to ${part.max}`
      fail(where, `GS1 AI (${ai}): "${value}" has ${value.length} characters, ${spec.title} takes ${want}`)
    }
    checkPart(ai, part, value.slice(at, at + len), where)
    at += len
  })
}

/** Parses `(ai)value(ai)value…`; a `(` starts an AI only when 2–4 digits and `)` follow. */
export function parseElementString (text: string, where: string): Gs1Element[] {
  const out: Gs1Element[] = []
  const re = /\((\d{2,4})\)/g
  const marks = [...text.matchAll(re)]
  if (marks.length === 0 || marks[0]?.index !== 0) fail(where, `GS1 element string must start with an AI in parentheses, got "${text.slice(0, 20)}"`)
  marks.forEach((m, k) => {
    const start = m.index + m[0].length
    const end = marks.at(k + 1)?.index ?? text.length
    const ai = m.at(1) ?? ''
    out.push({ ai, value: text.slice(start, end), variable: !isPredefinedLength(ai) })
  })
  return out
}

/** Parses and validates an element string for `symbology`; the elements in order. */
export function checkElementString (text: string, symbology: Gs1Symbology, where: string): Gs1Element[] {
  const elements = parseElementString(text, where)
  const seen = new Set<string>()
  for (const e of elements) {
    if (seen.has(e.ai)) fail(where, `GS1 AI (${e.ai}) appears twice`)
    seen.add(e.ai)
    checkValue(e.ai, e.value, where)
  }
  // Pairing rules (GS1 GS 4.14): (02) needs (37) and the other way round; (01) and (02) exclude
  // each other; a serial, batch or count needs the item it describes.
  if (seen.has('01') && seen.has('02')) fail(where, 'GS1 AI (01) and AI (02) must not appear together')
  if (seen.has('02') && !seen.has('37')) fail(where, 'GS1 AI (02) requires AI (37)')
  if (seen.has('37') && !seen.has('02')) fail(where, 'GS1 AI (37) requires AI (02)')
  for (const ai of ['10', '21', '30']) {
    if (seen.has(ai) && !seen.has('01') && !seen.has('02')) fail(where, `GS1 AI (${ai}) requires AI (01) or (02)`)
  }
  if (symbology === 'gs1-128') {
    let chars = 0
    elements.forEach((e, k) => {
      chars += e.ai.length + e.value.length + (e.variable && k < elements.length - 1 ? 1 : 0)
      if (chars > GS1_128_MAX_CHARS) {
        fail(where, `GS1 AI (${e.ai}): GS1-128 carries at most ${GS1_128_MAX_CHARS} characters, this element ends at ${chars}`)
      }
    })
  }
  return elements
}

/**
 * Smallest X-dimension in mm we print a GS1 symbol with (GS1 General Specifications 5.12.3,
 * symbol specification tables for items not scanned at point of sale): GS1-128 0.250 mm,
 * GS1 DataMatrix 0.255 mm. 0 for other symbologies.
 */
export function gs1Minimum (symbology: string): number {
  return symbology === 'gs1-128' ? 0.25 : symbology === 'gs1-datamatrix' ? 0.255 : 0
}
