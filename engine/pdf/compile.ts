// Turns the `document` member of a template into a CompiledDocument (see model.ts): styles
// resolved, widths computed, expressions compiled, image assets decoded. Runs once per
// template version; errors are TemplateErrors naming the JSON path.
import { compileExpression, compileText, isConstantText, type CompiledExpr } from '../expr/expressions.js'
import { BARCODE_TYPES } from './barcode.js'
import { FontSet } from './fonts.js'
import { prepareImage, type PreparedImage } from './images.js'
import type { Direction } from './bidi.js'
import { ALIGN_CENTER, ALIGN_LEFT, ALIGN_RIGHT, ALIGN_START, type CompiledDocument, type Elem } from './model.js'
import { color, fail, margins, pageSize, resolveWidths, StyleBook, type StyleSpec } from './styles.js'
import { compileTable } from './compile-table.js'
import { checkPdfA } from './pdfa-checks.js'
import { pdfOptions, type PdfOptions } from './pdf-options.js'

type Obj = Record<string, unknown>

export interface Ctx {
  styles: StyleBook
  fonts: FontSet
  images: Map<string, PreparedImage>
  imageAssets: Obj
  pdf: PdfOptions
}

export function compileDocument (document: unknown, def: { assets?: { fonts?: Obj, images?: Obj } }): CompiledDocument {
  const d = obj(document, 'document')
  const page = obj(d.page ?? {}, 'document.page')
  const [pageWidth, pageHeight] = pageSize(page.size, page.orientation, 'document.page')
  const m = margins(page.margins, 'document.page.margins')
  const contentWidth = pageWidth - m.left - m.right
  if (contentWidth <= 0) throw fail('document.page.margins', 'no room left between the margins')
  const pdf = pdfOptions(d.pdf)
  const fonts = new FontSet(def.assets?.fonts, pdf.embedFonts)
  if (pdf.pdfa !== null) checkPdfA(fonts)
  const fallbackFont = typeof d.fallbackFont === 'string' ? d.fallbackFont : null
  if (fallbackFont !== null) fonts.get(fallbackFont, 'document.fallbackFont')
  const ctx: Ctx = {
    fonts,
    styles: new StyleBook(
      d.styles as Record<string, StyleSpec> | undefined,
      d.defaultStyle as StyleSpec | undefined,
      fonts,
      fallbackFont
    ),
    images: new Map(),
    imageAssets: def.assets?.images ?? {},
    pdf
  }
  const band = (key: string): Elem[] => compileItems(d[key] ?? [], `document.${key}`, contentWidth, ctx, key === 'body' || key === 'reportHeader' || key === 'summary')
  const pageHeader = band('pageHeader')
  const pageFooter = band('pageFooter')
  const mentions = (key: string, re: RegExp): boolean => re.test(JSON.stringify(d[key] ?? []))
  const info: CompiledDocument['info'] = {}
  const i = obj(d.info ?? {}, 'document.info')
  if (typeof i.title === 'string') info.Title = i.title
  if (typeof i.author === 'string') info.Author = i.author
  if (typeof i.subject === 'string') info.Subject = i.subject
  return {
    kind: 'pdf',
    pageWidth,
    pageHeight,
    margins: m,
    contentWidth,
    fonts,
    images: [...ctx.images.values()],
    pageHeader,
    pageFooter,
    reportHeader: band('reportHeader'),
    body: band('body'),
    summary: band('summary'),
    headerPerPage: mentions('pageHeader', /\bpages?\b/),
    footerPerPage: mentions('pageFooter', /\bpages?\b/),
    needsPageCount: mentions('pageHeader', /\bpages\b/) || mentions('pageFooter', /\bpages\b/),
    info,
    pdf
  }
}

export function obj (v: unknown, path: string): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw fail(path, 'expected an object')
  return v as Obj
}

export function num (v: unknown, dflt: number, path: string): number {
  if (v === undefined) return dflt
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw fail(path, 'expected a non-negative number')
  return v
}

/** `align`; text without one starts at its paragraph's start (right in right-to-left text). */
export function align (v: unknown, path: string, dflt = ALIGN_LEFT): number {
  if (v === undefined) return dflt
  if (v === 'left') return ALIGN_LEFT
  if (v === 'center') return ALIGN_CENTER
  if (v === 'right') return ALIGN_RIGHT
  throw fail(path, 'align must be left, center or right')
}

/** An expression given as `lines` or `{{ lines }}`. */
export function expr (v: unknown, path: string): CompiledExpr {
  if (typeof v !== 'string') throw fail(path, 'expected an expression string')
  const m = /^\s*\{\{([\s\S]*)\}\}\s*$/.exec(v)
  return compileExpression(m !== null ? m[1] : v, path)
}

export function direction (v: unknown, path: string): Direction {
  if (v === undefined || v === 'auto') return 'auto'
  if (v === 'ltr' || v === 'rtl') return v
  throw fail(path, 'direction must be auto, ltr or rtl')
}

export function compileItems (items: unknown, path: string, width: number, ctx: Ctx, tablesAllowed: boolean): Elem[] {
  if (!Array.isArray(items)) throw fail(path, 'expected an array of elements')
  return items.map((it, i) => compileElem(obj(it, `${path}[${i}]`), `${path}[${i}]`, width, ctx, tablesAllowed))
}

function compileElem (e: Obj, path: string, width: number, ctx: Ctx, tablesAllowed: boolean): Elem {
  const when = e.if === undefined ? null : expr(e.if, `${path}.if`)
  const base = { path, when, visible: true }
  if (typeof e.text === 'string' || typeof e.text === 'number') {
    const src = String(e.text)
    const style = ctx.styles.resolve(e, path)
    const w = e.width === undefined ? width : Math.min(width, num(e.width, width, `${path}.width`))
    return {
      ...base,
      kind: 'text',
      text: compileText(src, `${path}.text`),
      constant: isConstantText(src),
      style,
      align: align(e.align, `${path}.align`, ALIGN_START),
      direction: direction(e.direction, `${path}.direction`),
      maxLines: num(e.maxLines, 0, `${path}.maxLines`),
      width: w,
      lines: [],
      rtl: [],
      used: style,
      cached: null,
      cachedRtl: [],
      cachedStyle: null
    }
  }
  if (Array.isArray(e.columns)) {
    const gap = num(e.gap, 10, `${path}.gap`)
    const specs = e.columns.map((c, i) => obj(c, `${path}.columns[${i}]`))
    const widths = resolveWidths(specs.map((c) => c.width), width, gap, `${path}.columns`)
    const cols = specs.map((c, i) => ({ width: widths[i], items: compileItems(c.items ?? [], `${path}.columns[${i}].items`, widths[i], ctx, false) }))
    return { ...base, kind: 'columns', gap, cols, heights: cols.map(() => 0) }
  }
  if (e.table !== undefined) {
    if (!tablesAllowed) throw fail(path, 'tables are allowed in body, reportHeader and summary only')
    return compileTable(obj(e.table, `${path}.table`), base, `${path}.table`, width, ctx)
  }
  if (e.barcode !== undefined) {
    const b = obj(e.barcode, `${path}.barcode`)
    const p = `${path}.barcode`
    const type = BARCODE_TYPES[String(b.type)]
    // The barcode type comes from the template; index access may miss at runtime (noUncheckedIndexedAccess is off)
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    if (type === undefined) throw fail(`${p}.type`, `unknown barcode type ${JSON.stringify(b.type)}: use ${Object.keys(BARCODE_TYPES).join(', ')}`)
    return {
      ...base,
      kind: 'barcode',
      bcid: type.bcid,
      twoD: type.twoD,
      value: compileText(String(b.value ?? ''), `${p}.value`),
      height: num(b.height, 40, `${p}.height`),
      moduleWidth: num(b.moduleWidth, type.twoD ? 3 : 1, `${p}.moduleWidth`),
      width: Math.min(width, num(b.width ?? b.size, 0, `${p}.width`)),
      showText: b.text === true,
      textStyle: ctx.styles.resolve({ style: b.textStyle, font: 'Helvetica', size: 8 }, p, 'style'),
      color: color(b.color ?? '#000000', `${p}.color`),
      align: align(b.align, `${p}.align`),
      containerWidth: width,
      text: '',
      runs: [],
      cols: 1,
      rows: 1,
      w: 0,
      h: 0
    }
  }
  if (e.line !== undefined) {
    const l = obj(e.line, `${path}.line`)
    return { ...base, kind: 'line', color: color(l.color ?? '#000000', `${path}.line.color`), thickness: num(l.thickness, 0.5, `${path}.line.thickness`), width: Math.min(width, num(l.width, width, `${path}.line.width`)) }
  }
  if (e.rect !== undefined) {
    const r = obj(e.rect, `${path}.rect`)
    return {
      ...base,
      kind: 'rect',
      width: Math.min(width, num(r.width, width, `${path}.rect.width`)),
      height: num(r.height, 10, `${path}.rect.height`),
      fill: r.fill === undefined ? null : color(r.fill, `${path}.rect.fill`),
      stroke: r.stroke === undefined ? null : color(r.stroke, `${path}.rect.stroke`),
      thickness: num(r.thickness, 0.5, `${path}.rect.thickness`)
    }
  }
  if (e.image !== undefined) return compileImage(obj(e.image, `${path}.image`), base, `${path}.image`, width, ctx)
  if (e.pageBreak === true) return { ...base, kind: 'pageBreak' }
  if (typeof e.spacer === 'number') return { ...base, kind: 'spacer', height: num(e.spacer, 0, `${path}.spacer`) }
  throw fail(path, 'unknown element: expected one of text, columns, table, barcode, line, rect, image, pageBreak, spacer')
}

function compileImage (
  im: Obj,
  base: { path: string, when: CompiledExpr | null, visible: boolean },
  path: string,
  width: number,
  ctx: Ctx
): Elem {
  const name = im.asset
  if (typeof name !== 'string' || !Object.hasOwn(ctx.imageAssets, name)) { throw fail(`${path}.asset`, `unknown image asset ${JSON.stringify(name)}`) }
  let img = ctx.images.get(name)
  if (img === undefined) {
    // PDF/A: transparency is flattened onto white (PDF/A-1 has none; flat is valid in every part).
    img = prepareImage(ctx.images.size, ctx.imageAssets[name], `assets.images.${name}`, ctx.pdf.pdfa !== null)
    if (ctx.pdf.pdfa !== null && img.dict.ColorSpace === 'DeviceCMYK') {
      throw fail(`assets.images.${name}`, 'a CMYK JPEG cannot be used in a PDF/A document (document.pdf.standard): its colours are outside the sRGB output intent; save it as RGB')
    }
    if (ctx.pdf.pdfa?.part === 1 && img.dict.BitsPerComponent === 16) {
      throw fail(`assets.images.${name}`, 'a 16-bit PNG cannot be used in a PDF/A-1 document (PDF 1.4 has 8-bit images at most): save it with 8 bits per channel, or use PDF/A-2b')
    }
    ctx.images.set(name, img)
  }
  // One of width/height keeps the aspect ratio; neither means 1 px = 1 pt (capped to the box).
  let w = im.width === undefined ? undefined : num(im.width, 0, `${path}.width`)
  let h = im.height === undefined ? undefined : num(im.height, 0, `${path}.height`)
  if (w === undefined && h === undefined) w = Math.min(width, img.width)
  if (w === undefined) w = (h! * img.width) / img.height
  if (h === undefined) h = (w * img.height) / img.width
  if (w > width) {
    h = (h * width) / w
    w = width
  }
  return {
    ...base,
    kind: 'image',
    image: img,
    width: w,
    height: h,
    align: align(im.align, `${path}.align`),
    containerWidth: width
  }
}
