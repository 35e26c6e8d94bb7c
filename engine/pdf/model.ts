// Compiled document: plain objects built once per template version. Widths are resolved at
// compile time (every container has a fixed width), so a render only evaluates expressions,
// wraps text and places boxes. Fields marked "scratch" hold per-render intermediate results;
// a worker renders one document at a time, so one slot per element is enough and nothing is
// allocated per element per render.
import type { CompiledExpr, CompiledText } from '../expr/expressions.js'
import type { Direction } from './bidi.js'
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

interface Base {
  /** JSON path of the element, used in error messages. */
  path: string
  /** Optional `if` condition; the element is skipped when it is falsy. */
  when: CompiledExpr | null
  /** Scratch: result of the last `when` evaluation. */
  visible: boolean
}

export interface TextEl extends Base {
  kind: 'text'
  text: CompiledText
  constant: boolean
  style: Style
  align: number
  direction: Direction
  maxLines: number
  width: number
  /** Scratch: wrapped lines, whether each is right-to-left, and the style they were measured with. */
  lines: string[]
  rtl: boolean[]
  used: Style
  /** For constant text: lines wrapped on first use, kept for later renders. */
  cached: string[] | null
  cachedRtl: boolean[]
  cachedStyle: Style | null
}

export interface Column { width: number, items: Elem[] }
export interface ColumnsEl extends Base { kind: 'columns', gap: number, cols: Column[], heights: number[] }

export interface TableColumn {
  header: CompiledText
  value: CompiledText
  width: number
  align: number
  direction: Direction
  maxLines: number
  /** Scratch: wrapped lines of the current row and their directions. */
  lines: string[]
  rtl: boolean[]
  used: Style
}

export interface TableEl extends Base {
  kind: 'table'
  rows: CompiledExpr
  columns: TableColumn[]
  width: number
  style: Style
  headerStyle: Style
  headerFill: string | null
  zebra: string | null
  lineColor: string | null
  padding: number
  repeatHeader: boolean
  showHeader: boolean
  groupBy: CompiledText | null
  groupHeader: Elem[]
  groupFooter: Elem[]
  /** Scratch: header lines per column. */
  headerLines: string[][]
  headerRtl: boolean[][]
  headerUsed: Style[]
}

export interface BarcodeEl extends Base {
  kind: 'barcode'
  bcid: string
  value: CompiledText
  height: number
  moduleWidth: number
  /** Fixed total width (linear) or side (2D); 0 = from moduleWidth. */
  width: number
  twoD: boolean
  showText: boolean
  textStyle: Style
  color: string
  align: number
  containerWidth: number
  /** Scratch: encoding of the current value. */
  text: string
  runs: number[]
  cols: number
  rows: number
  w: number
  h: number
}

export interface LineEl extends Base { kind: 'line', color: string, thickness: number, width: number }
export interface RectEl extends Base { kind: 'rect', width: number, height: number, fill: string | null, stroke: string | null, thickness: number }
export interface ImageEl extends Base { kind: 'image', image: PreparedImage, width: number, height: number, align: number, containerWidth: number }
export interface BreakEl extends Base { kind: 'pageBreak' }
export interface SpacerEl extends Base { kind: 'spacer', height: number }

export type Elem = TextEl | ColumnsEl | TableEl | BarcodeEl | LineEl | RectEl | ImageEl | BreakEl | SpacerEl

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
