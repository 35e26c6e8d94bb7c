// Page flow: places bands and elements top to bottom, starts new pages, and hands finished
// pages to the writer. Pages are written as soon as they are finished unless a header or
// footer needs the page count (`pages`) and it is not known yet; then they wait in memory
// until the end, but at most `holdLimit` of them: beyond, the held pages are dropped and the
// pass goes on counting only (`overflowed`); the caller then lays out again with `total` known.
import { RenderError } from '../errors.js'
import type { EvalScope } from '../expr/expressions.js'
import { Canvas, NullCanvas } from './canvas.js'
import { draw, drawFlow, isVisible, measure, measureFlow } from './boxes.js'
import { moduleOf, type Elem } from './elements/index.js'
import type { PageFlow } from './elements/types.js'
import type { DocFonts } from './fonts.js'
import type { CompiledDocument } from './model.js'
import type { Tags } from './tags.js'

export interface PageSink {
  /** Writes one finished page: header, body and footer canvases. */
  page (parts: Canvas[]): void
}

export interface PagerOptions {
  maxPages: number
  sink: PageSink
  /** The page count, known from an earlier pass: every page is written as soon as it is finished. */
  total?: number
  /** Pages written or held before the count is known; past them the pass only counts. */
  holdLimit?: number
  /** A tagged document: the body is tagged as it is drawn. */
  tags?: Tags
}

export class Pager implements PageFlow {
  readonly cd: CompiledDocument
  readonly scope: EvalScope
  readonly fonts: DocFonts
  readonly left: number
  top = 0
  bottom = 0
  y = 0
  pageNo = 0
  body: Canvas
  private readonly maxPages: number
  private readonly sink: PageSink
  /** Past holdLimit: nothing is written or kept any more, run() only counts the pages. */
  overflowed = false
  private readonly total: number | undefined
  private readonly holdLimit: number
  /** Finished pages wait for the page count (a header or footer shows it, and it is unknown). */
  private holding: boolean
  private readonly buffered: Canvas[] = []
  private readonly header: Canvas
  private readonly footer: Canvas
  private headerHeight = 0
  private footerHeight = 0
  /** Tagging; null when untagged, and once the pass only counts. */
  private tags: Tags | null

  constructor (cd: CompiledDocument, scope: EvalScope, fonts: DocFonts, options: PagerOptions) {
    this.cd = cd
    this.scope = scope
    this.fonts = fonts
    this.maxPages = options.maxPages
    this.sink = options.sink
    this.total = options.total
    this.holdLimit = options.holdLimit ?? Infinity
    this.holding = cd.needsPageCount && this.total === undefined
    this.left = cd.margins.left
    this.tags = options.tags ?? null
    this.body = new Canvas(fonts, this.tags)
    this.header = new Canvas(fonts)
    this.footer = new Canvas(fonts)
  }

  /** Lays out the whole document; returns the page count. */
  run (): number {
    try {
      return this.runPages()
    } finally {
      // Every page has been handed to the sink: the canvases' buffers go back for the next pass.
      this.header.ops.release()
      this.footer.ops.release()
      this.body.ops.release()
    }
  }

  private runPages (): number {
    const { cd, scope } = this
    // Header and footer are measured once, on page 1, and keep that height on every page.
    scope.page = 1
    scope.pages = 1
    this.headerHeight = measureFlow(cd.pageHeader, scope)
    this.footerHeight = measureFlow(cd.pageFooter, scope)
    this.top = cd.margins.top + this.headerHeight
    this.bottom = cd.pageHeight - cd.margins.bottom - this.footerHeight
    if (this.bottom - this.top < 20) {
      throw new RenderError('RENDER_FAILED', 'document.page: page header and footer leave no room for the body')
    }
    if (!cd.headerPerPage) drawFlow(cd.pageHeader, scope, this.header, this.left, cd.margins.top)
    if (!cd.footerPerPage) drawFlow(cd.pageFooter, scope, this.footer, this.left, this.bottom)
    scope.pages = 0
    this.startPage()
    this.section(cd.reportHeader)
    this.section(cd.body)
    this.section(cd.summary)
    this.finishPage()
    if (this.holding) {
      scope.pages = this.pageNo
      this.buffered.forEach((page, i) => { this.writePage(page, i + 1) })
    }
    return this.pageNo
  }

  private startPage (): void {
    if (this.pageNo >= this.maxPages) {
      throw new RenderError('RENDER_LIMIT_EXCEEDED', `maxPages (${this.maxPages}) exceeded`)
    }
    if (this.pageNo >= this.holdLimit && !this.overflowed) this.overflow()
    this.pageNo++
    this.scope.page = this.pageNo
    this.y = this.top
    if (this.holding) this.body = new Canvas(this.fonts, this.tags)
    else this.body.reset()
    this.tags?.pageStart(this.body, this.pageNo)
  }

  /** A band of the body (report header, body, summary): a section when tagged. */
  private section (items: Elem[]): void {
    const tags = this.tags
    if (tags === null || items.length === 0) { this.flow(items, this.left); return }
    const sect = tags.begin('Sect')
    this.flow(items, this.left)
    // Past the hold limit the pass only counts, and tags nothing.
    if (this.tags !== null) tags.end(sect)
  }

  /**
   * Too long to hold: drop what is held and go on laying out without drawing (layout needs only
   * heights, which the elements measure themselves), to count the pages.
   */
  private overflow (): void {
    this.overflowed = true
    this.holding = false
    this.buffered.length = 0
    this.tags = null
    this.body = new NullCanvas(this.fonts)
  }

  private finishPage (): void {
    if (this.overflowed) return
    this.tags?.pageEnd(this.body)
    if (this.holding) {
      // Held until the count is known: its content copied out at its own size (off the V8 heap,
      // written as it is by render-pdf.ts), and the canvas's buffer given back for the next page's.
      this.body.held = this.body.ops.take()
      this.body.ops.release()
      this.buffered.push(this.body)
    } else this.writePage(this.body, this.pageNo)
  }

  newPage (): void {
    this.finishPage()
    this.startPage()
  }

  private writePage (body: Canvas, n: number): void {
    const { cd, scope } = this
    const current = scope.page
    const pages = scope.pages
    scope.page = n
    // Only headers and footers see the count: the body was laid out with pages 0 in every pass.
    if (this.total !== undefined) scope.pages = this.total
    if (cd.headerPerPage) {
      this.header.reset()
      drawFlow(cd.pageHeader, scope, this.header, this.left, cd.margins.top)
    }
    if (cd.footerPerPage) { this.footer.reset(); drawFlow(cd.pageFooter, scope, this.footer, this.left, this.bottom) }
    scope.page = current
    scope.pages = pages
    this.sink.page([this.header, body, this.footer])
  }

  /** Places a flow of elements at the cursor, breaking pages as needed. */
  flow (items: Elem[], x: number): void {
    const scope = this.scope
    for (const el of items) {
      const m = moduleOf(el)
      if (m.flow !== undefined) {
        if (!isVisible(el, scope)) continue
        const tags = this.tags
        const opened = tags?.enter(m, el, this.body, x, this.y) ?? null
        m.flow(el, this, x)
        if (tags !== null && this.tags !== null) tags.leave(m, opened, this.body)
        continue
      }
      // Moved whole to the next page when it does not fit.
      const h = measure(el, scope)
      if (this.y + h > this.bottom && this.y > this.top) this.newPage()
      draw(el, this.body, x, this.y)
      this.y += h
    }
  }

  measureBand (items: Elem[]): number {
    return measureFlow(items, this.scope)
  }

  drawBand (items: Elem[], x: number, y: number): number {
    return drawFlow(items, this.scope, this.body, x, y)
  }
}
