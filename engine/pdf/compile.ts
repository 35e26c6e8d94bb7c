// Turns the `document` member of a template into a CompiledDocument (see model.ts): styles
// resolved, widths computed, expressions compiled, image assets decoded. Runs once per
// template version; errors are TemplateErrors naming the JSON path. Each element compiles
// itself (elements/*.ts); this file finds its module and compiles the document around them.
import { ELEMENTS, ELEMENT_TYPES, type AnyModule, type Elem } from './elements/index.js'
import { exprOf, obj } from './elements/fields.js'
import type { CompileCtx, ElementBase } from './elements/types.js'
import { FontSet } from './fonts.js'
import type { CompiledDocument } from './model.js'
import { checkPdfA } from './pdfa-checks.js'
import { accessibilityIssues } from './accessibility.js'
import { TemplateError } from '../errors.js'
import { pdfOptions } from './pdf-options.js'
import { fail, margins, pageSize, StyleBook, type StyleSpec } from './styles.js'

type Obj = Record<string, unknown>
/** The template's assets, as far as the document uses them. */
export interface DocumentAssets { assets?: { fonts?: Obj, images?: Obj } }

/**
 * `document`: a DocumentSpec (schema.ts) when it was validated at publish, but checked here all the
 * same (see elements/fields.ts): tests and previews compile without validation.
 */
export function compileDocument (document: unknown, def: DocumentAssets): CompiledDocument {
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
  const ctx: CompileCtx = {
    fonts,
    styles: new StyleBook(
      d.styles as Record<string, StyleSpec> | undefined,
      d.defaultStyle as StyleSpec | undefined,
      fonts,
      fallbackFont
    ),
    images: new Map(),
    imageAssets: def.assets?.images ?? {},
    pdf,
    items: (items, path, width, blocks) => compileItems(items, path, width, ctx, blocks)
  }
  const band = (key: string): Elem[] => {
    const blocks = key === 'body' || key === 'reportHeader' || key === 'summary'
    return compileItems(d[key] ?? [], `document.${key}`, contentWidth, ctx, blocks)
  }
  const pageHeader = band('pageHeader')
  const pageFooter = band('pageFooter')
  const mentions = (key: string, re: RegExp): boolean => re.test(JSON.stringify(d[key] ?? []))
  const info: CompiledDocument['info'] = {}
  const i = obj(d.info ?? {}, 'document.info')
  if (typeof i.title === 'string') info.Title = i.title
  if (typeof i.author === 'string') info.Author = i.author
  if (typeof i.subject === 'string') info.Subject = i.subject
  if (pdf.ua) refuseInaccessible(document)
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

/** PDF/UA-1: the accessibility findings (validate's warnings otherwise) are publish-time errors. */
function refuseInaccessible (document: unknown): void {
  const issues = accessibilityIssues(document)
  if (issues.length === 0) return
  const first = issues[0]!
  throw new TemplateError(`${first.path}: ${first.message} (document.pdf.ua: PDF/UA-1)`, issues)
}

/** `blocks`: body-only elements (tables) are allowed (body, reportHeader, summary). */
function compileItems (items: unknown, path: string, width: number, ctx: CompileCtx, blocks: boolean): Elem[] {
  if (!Array.isArray(items)) throw fail(path, 'expected an array of elements')
  return items.map((it, i) => compileElem(obj(it, `${path}[${i}]`), `${path}[${i}]`, width, ctx, blocks))
}

const UNKNOWN = `unknown element: expected one of ${ELEMENT_TYPES.join(', ')}`

function compileElem (e: Obj, path: string, width: number, ctx: CompileCtx, blocks: boolean): Elem {
  const when = e.if === undefined ? null : exprOf(e.if, `${path}.if`)
  const base: ElementBase = { path, when, visible: true }
  const m = moduleFor(e)
  if (m === undefined) throw fail(path, UNKNOWN)
  if (m.flows === 'body' && !blocks) throw fail(path, `${m.type}s are allowed in body, reportHeader and summary only`)
  return m.compile(e, base, { path, width }, ctx)
}

/** The module of the first type, in registry order, whose member the element has. */
function moduleFor (e: Obj): AnyModule | undefined {
  for (const t of ELEMENT_TYPES) {
    const m = ELEMENTS[t] as AnyModule
    const v = e[t]
    if (m.accepts !== undefined ? m.accepts(v) : v !== undefined) return m
  }
  return undefined
}
