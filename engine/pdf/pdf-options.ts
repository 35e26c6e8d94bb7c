// `document.pdf`: document-level PDF options (docs/layout.md, "PDF standard"): the archival
// standard (PDF/A-1b, 2b, 3b, and the accessible levels 2a, 3a), `ua` (PDF/UA-1, ISO 14289-1),
// `tagged` (a structure tree; the `a` levels and PDF/UA require it) and `embedFonts`.
// Attachments (PDF/A-3 only) are the e-invoice's, not a key here.
import { TemplateError } from '../errors.js'

function fail (path: string, message: string): TemplateError {
  return new TemplateError(`${path}: ${message}`, [{ path, message }])
}

/** Values of `document.pdf.standard`. */
export const PDF_STANDARDS = ['PDF/A-1b', 'PDF/A-2b', 'PDF/A-3b', 'PDF/A-2a', 'PDF/A-3a'] as const
/** Values of `document.pdf.ua`. */
export const PDF_UA = ['PDF/UA-1'] as const

const KEYS = ['standard', 'ua', 'tagged', 'embedFonts']

export const pdfOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    standard: { enum: PDF_STANDARDS },
    ua: { enum: PDF_UA },
    tagged: { type: 'boolean' },
    embedFonts: { type: 'boolean' }
  }
} as const

export interface PdfA {
  /** ISO 19005 part: 1 (PDF 1.4 based), 2 or 3 (PDF 1.7 based; 3 allows attachments). */
  part: 1 | 2 | 3
  /** Conformance level letter in the XMP metadata ("B": visual appearance; "A": also tagged, Unicode). */
  conformance: 'A' | 'B'
}

export interface PdfOptions {
  /** null: not an archival PDF. */
  pdfa: PdfA | null
  /** PDF/UA-1 (ISO 14289-1): tagged, every font embedded, `pdfuaid:part` in the XMP, a title. */
  ua: boolean
  /** A structure tree (marked content, /StructTreeRoot, /MarkInfo): the `a` levels and PDF/UA require it. */
  tagged: boolean
  /** The 14 standard fonts are embedded (metric-compatible URW faces): PDF/A, PDF/UA or `embedFonts`. */
  embedFonts: boolean
  /**
   * The `%PDF-x.y` header: 1.3 for a plain untagged document (as before), 1.4 for PDF/A-1,
   * 1.7 for PDF/A-2 and 3 and for tagged documents (pages' /Tabs is PDF 1.5).
   */
  version: '1.3' | '1.4' | '1.7'
}

/** No standard, untagged, standard fonts not embedded: the fast path, and the benchmarks' baseline. */
export const PLAIN_PDF: PdfOptions = Object.freeze({ pdfa: null, ua: false, tagged: false, embedFonts: false, version: '1.3' })

/** Whether documents are tagged when `document.pdf.tagged` is not given. */
export const TAGGED_BY_DEFAULT = true

/** `document.pdf` → options; a TemplateError naming the JSON path for anything else. */
export function pdfOptions (v: unknown, path = 'document.pdf'): PdfOptions {
  if (v === undefined) return withDefaults({}, path)
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw fail(path, 'expected an object')
  const o = v as Record<string, unknown>
  for (const k of Object.keys(o)) {
    if (!KEYS.includes(k)) throw fail(`${path}.${k}`, `unknown setting: use ${KEYS.join(', ')}`)
  }
  for (const k of ['tagged', 'embedFonts']) {
    if (o[k] !== undefined && typeof o[k] !== 'boolean') throw fail(`${path}.${k}`, 'expected true or false')
  }
  return withDefaults(o, path)
}

function withDefaults (o: Record<string, unknown>, path: string): PdfOptions {
  const pdfa = standard(o.standard, `${path}.standard`)
  if (o.ua !== undefined && !(PDF_UA as readonly unknown[]).includes(o.ua)) {
    throw fail(`${path}.ua`, `unknown value ${JSON.stringify(o.ua)}: use ${PDF_UA.join(', ')}`)
  }
  const ua = o.ua !== undefined
  if (ua && pdfa?.part === 1) {
    throw fail(`${path}.ua`, 'PDF/UA-1 needs PDF 1.5 or later (pages\' /Tabs); PDF/A-1 is PDF 1.4: use PDF/A-2 or 3')
  }
  const needsTags = ua ? 'PDF/UA-1' : pdfa?.conformance === 'A' ? `PDF/A-${pdfa.part}a` : null
  if (needsTags !== null && o.tagged === false) {
    throw fail(`${path}.tagged`, `a ${needsTags} document is tagged: remove tagged: false`)
  }
  const needsFonts = ua ? 'PDF/UA-1' : pdfa !== null ? 'PDF/A' : null
  if (needsFonts !== null && o.embedFonts === false) {
    throw fail(`${path}.embedFonts`, `a ${needsFonts} document embeds every font: remove embedFonts: false`)
  }
  const tagged = needsTags !== null || (o.tagged ?? TAGGED_BY_DEFAULT) === true
  const embedFonts = needsFonts !== null || o.embedFonts === true
  if (pdfa === null && !tagged && !embedFonts) return PLAIN_PDF
  const version = pdfa?.part === 1 ? '1.4' : pdfa !== null || tagged ? '1.7' : '1.3'
  return { pdfa, ua, tagged, embedFonts, version }
}

function standard (v: unknown, path: string): PdfA | null {
  if (v === undefined) return null
  const m = typeof v === 'string' && (PDF_STANDARDS as readonly string[]).includes(v)
    ? /^PDF\/A-([123])([ab])$/.exec(v)
    : null
  if (m === null) throw fail(path, `unknown standard ${JSON.stringify(v)}: use ${PDF_STANDARDS.join(', ')}`)
  return { part: Number(m[1]) as 1 | 2 | 3, conformance: m[2] === 'a' ? 'A' : 'B' }
}
