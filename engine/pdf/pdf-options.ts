// `document.pdf`: document-level PDF options (docs/layout.md, "PDF standard"). Today the
// archival standard (PDF/A-1b, 2b, 3b) and `embedFonts`; the object is the home of what comes
// later without renaming anything: the accessible `a` levels are more values of `standard`
// (PDF/A-2a, PDF/A-3a), PDF/UA a key of its own beside it, attachments (PDF/A-3 only) another.
import { TemplateError } from '../errors.js'

function fail (path: string, message: string): TemplateError {
  return new TemplateError(`${path}: ${message}`, [{ path, message }])
}

/** Values of `document.pdf.standard` accepted today. */
export const PDF_STANDARDS = ['PDF/A-1b', 'PDF/A-2b', 'PDF/A-3b'] as const

export const pdfOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    standard: { enum: PDF_STANDARDS },
    embedFonts: { type: 'boolean' }
  }
} as const

export interface PdfA {
  /** ISO 19005 part: 1 (PDF 1.4 based), 2 or 3 (PDF 1.7 based; 3 allows attachments). */
  part: 1 | 2 | 3
  /** Conformance level letter in the XMP metadata ("B": visual appearance). */
  conformance: 'B'
}

export interface PdfOptions {
  /** null: a plain PDF (today's fast path). */
  pdfa: PdfA | null
  /** The 14 standard fonts are embedded (metric-compatible URW faces): PDF/A or `embedFonts`. */
  embedFonts: boolean
  /** The `%PDF-x.y` header: 1.3 for plain documents (as before), 1.4 for PDF/A-1, 1.7 for 2 and 3. */
  version: '1.3' | '1.4' | '1.7'
}

export const PLAIN_PDF: PdfOptions = Object.freeze({ pdfa: null, embedFonts: false, version: '1.3' })

/** `document.pdf` → options; a TemplateError naming the JSON path for anything else. */
export function pdfOptions (v: unknown, path = 'document.pdf'): PdfOptions {
  if (v === undefined) return PLAIN_PDF
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw fail(path, 'expected an object')
  const o = v as Record<string, unknown>
  for (const k of Object.keys(o)) {
    if (k !== 'standard' && k !== 'embedFonts') {
      throw fail(`${path}.${k}`, 'unknown setting: use standard or embedFonts')
    }
  }
  if (o.embedFonts !== undefined && typeof o.embedFonts !== 'boolean') {
    throw fail(`${path}.embedFonts`, 'expected true or false')
  }
  let pdfa: PdfA | null = null
  if (o.standard !== undefined) {
    const m = typeof o.standard === 'string' && (PDF_STANDARDS as readonly string[]).includes(o.standard)
      ? /^PDF\/A-([123])b$/.exec(o.standard)
      : null
    if (m === null) {
      throw fail(`${path}.standard`, `unknown standard ${JSON.stringify(o.standard)}: use ${PDF_STANDARDS.join(', ')}`)
    }
    pdfa = { part: Number(m[1]) as 1 | 2 | 3, conformance: 'B' }
  }
  if (pdfa !== null && o.embedFonts === false) {
    throw fail(`${path}.embedFonts`, 'a PDF/A document embeds every font: remove embedFonts: false')
  }
  const embedFonts = pdfa !== null || o.embedFonts === true
  if (pdfa === null && !embedFonts) return PLAIN_PDF
  return { pdfa, embedFonts, version: pdfa === null ? '1.3' : pdfa.part === 1 ? '1.4' : '1.7' }
}
