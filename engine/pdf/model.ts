// Compiled document: plain objects built once per template version. Widths are resolved at
// compile time (every container has a fixed width), so a render only evaluates expressions,
// wraps text and places boxes. Fields marked "scratch" hold per-render intermediate results;
// a worker renders one document at a time, so one slot per element is enough and nothing is
// allocated per element per render.
import type { Elem } from './elements/index.js'
import type { FontStack } from './font-stack.js'
import type { FontSet } from './fonts.js'
import type { PreparedImage } from './images.js'
import type { PdfOptions } from './pdf-options.js'

export interface Style {
  /** The font stack; its primary font gives the line metrics. */
  face: FontStack
  size: number
  /** Fill colour operands, e.g. "0 0 0". */
  color: string
  lineGap: number
  /** Baseline offset from the top of a line, points. */
  ascent: number
  /** Distance between baselines, points. */
  lineHeight: number
  /** Words that do not fit may break with a hyphen, by the render's `context.language`. */
  hyphenate: boolean
}

export const ALIGN_LEFT = 0
export const ALIGN_CENTER = 1
export const ALIGN_RIGHT = 2
/** No `align` given: left in a left-to-right paragraph, right in a right-to-left one. */
export const ALIGN_START = 3

// The compiled elements are declared by their modules (elements/*.ts); barcode.ts reads this one here.
export type { BarcodeEl } from './elements/barcode.js'

export interface CompiledDocument {
  kind: 'pdf'
  pageWidth: number
  pageHeight: number
  margins: { top: number, right: number, bottom: number, left: number }
  contentWidth: number
  fonts: FontSet
  images: PreparedImage[]
  pageHeader: Elem[]
  pageFooter: Elem[]
  reportHeader: Elem[]
  body: Elem[]
  summary: Elem[]
  /** Header/footer mention `page`/`pages`: drawn per page (and, for `pages`, after layout). */
  headerPerPage: boolean
  footerPerPage: boolean
  needsPageCount: boolean
  info: { Title?: string, Author?: string, Subject?: string }
  /** `document.pdf`: standard (PDF/A) and font embedding. */
  pdf: PdfOptions
}
