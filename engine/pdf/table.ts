// Table layout: header row (repeated after page breaks), wrapped cells, zebra rows, optional
// grouping of consecutive rows with equal `groupBy` text with group header/footer bands.
// A row moves to the next page whole; only a row taller than a full page is split by lines.
// Tagged (tags.ts): one Table however many pages it runs over, THead with TH cells (scope
// column), TBody with a TR per row and group band; header rows repeated after a page break,
// zebra fills and rules are artifacts. Tags are read from the page's canvas at each use: past
// the hold limit the pass only counts (pager.ts) and tags nothing.
import { RenderError } from '../errors.js'
import type { EvalScope } from '../expr/expressions.js'
import { drawLines } from './draw-lines.js'
import type { TableEl } from './elements/table.js'
import type { PageFlow } from './elements/types.js'
import { hyphenatorFor } from './hyphenate.js'
import type { StructElem } from './struct-tree.js'
import type { ArtifactType } from './tags.js'
import { wrap } from './text.js'

const keys: string[] = []
const starts: number[] = []
const cells: StructElem[] = []
const TH = ' /A << /O /Table /Scope /Column >>'

export function layoutTable (t: TableEl, p: PageFlow, x: number): void {
  const scope = p.scope
  const v = t.rows(scope)
  if (v === null || v === undefined) return
  if (!Array.isArray(v)) {
    throw new RenderError('RENDER_FAILED', `${t.path}.rows: expected a list of rows, got ${typeof v}`)
  }
  const rows = v as unknown[]
  const headerH = t.showHeader ? measureHeader(t, scope) : 0
  const firstH = rows.length > 0 ? rowHeight(t, scope, rows[0], 0) : 0
  if (p.y + headerH + firstH > p.bottom && p.y > p.top) p.newPage()
  if (t.showHeader) drawHeader(p, t, x, headerH, true)
  const tbody = rows.length > 0 ? p.body.tags?.begin('TBody') : undefined
  if (t.groupBy === null) {
    for (let i = 0; i < rows.length; i++) placeRow(p, t, x, rows, i, headerH)
  } else {
    keys.length = 0
    for (let i = 0; i < rows.length; i++) { scope.row = rows[i]; scope.index = i; keys.push(t.groupBy(scope)) }
    let s = 0
    while (s < rows.length) {
      let e = s + 1
      while (e < rows.length && keys[e] === keys[s]) e++
      placeGroup(p, t, x, rows, s, e, headerH)
      s = e
    }
    scope.group = null
  }
  scope.row = null
  if (tbody !== undefined) p.body.tags?.end(tbody)
}

function placeGroup (p: PageFlow, t: TableEl, x: number, rows: unknown[], s: number, e: number, headerH: number): void {
  const scope = p.scope
  scope.group = rows.slice(s, e)
  scope.row = rows[s]
  scope.index = s
  if (t.groupHeader.length > 0) {
    // Keep the group header with the group's first row.
    const gh = p.measureBand(t.groupHeader)
    const need = gh + rowHeight(t, scope, rows[s], s)
    if (p.y + need > p.bottom && p.y > p.top + headerH) breakPage(p, t, x, headerH)
    scope.row = rows[s]
    scope.index = s
    bandRow(p, t, t.groupHeader, x)
  }
  for (let i = s; i < e; i++) placeRow(p, t, x, rows, i, headerH)
  if (t.groupFooter.length > 0) {
    scope.row = rows[e - 1]
    scope.index = e - 1
    const gf = p.measureBand(t.groupFooter)
    if (p.y + gf > p.bottom && p.y > p.top + headerH) breakPage(p, t, x, headerH)
    bandRow(p, t, t.groupFooter, x)
  }
}

/** A group header or footer: tagged, a row of one cell across the columns, the band's elements in it. */
function bandRow (p: PageFlow, t: TableEl, band: TableEl['groupHeader'], x: number): void {
  const tags = p.body.tags
  const tr = tags?.begin('TR')
  const td = tags?.begin('TD', ' /A << /O /Table /ColSpan ' + t.columns.length + ' >>')
  p.y += p.drawBand(band, x, p.y)
  if (td !== undefined && tr !== undefined) { tags?.end(td); tags?.end(tr) }
}

/** Draws an artifact (a fill, a rule, a repeated header) when tagged. */
function artifact (p: PageFlow, type: ArtifactType, draw: () => void): void {
  const tags = p.body.tags
  tags?.artifact(p.body, type)
  draw()
  tags?.endArtifact(p.body)
}

function breakPage (p: PageFlow, t: TableEl, x: number, headerH: number): void {
  p.newPage()
  if (t.showHeader && t.repeatHeader) artifact(p, 'Pagination', () => { drawHeader(p, t, x, headerH, false) })
}

/** Wraps every cell of `row` into the columns' scratch lines; returns the row height. */
function rowHeight (t: TableEl, scope: EvalScope, row: unknown, index: number): number {
  scope.row = row
  scope.index = index
  let h = t.style.lineHeight
  const cols = t.columns
  const st = t.style
  const hyphens = st.hyphenate ? hyphenatorFor(scope.context.language) : null
  for (let c = 0; c < cols.length; c++) {
    const col = cols[c]! // c < cols.length
    const s = col.value(scope)
    col.used = st
    const ch =
      wrap(st.face, st.size, s, col.width - 2 * t.padding, col.maxLines, col.lines, col.rtl, col.direction, hyphens) *
      st.lineHeight
    if (ch > h) h = ch
  }
  return h + 2 * t.padding
}

function placeRow (p: PageFlow, t: TableEl, x: number, rows: unknown[], i: number, headerH: number): void {
  const h = rowHeight(t, p.scope, rows[i], i)
  if (p.y + h > p.bottom && p.y > p.top + headerH) breakPage(p, t, x, headerH)
  if (p.y + h <= p.bottom) { drawRow(p, t, x, i, h); return }
  splitRow(p, t, x, headerH)
}

function drawRow (p: PageFlow, t: TableEl, x: number, i: number, h: number): void {
  const c = p.body
  const tags = c.tags
  const zebra = t.zebra
  if (zebra !== null && (i & 1) === 1) artifact(p, 'Layout', () => { c.rect(x, p.y, t.width, h, zebra) })
  const tr = tags?.begin('TR')
  let cx = x
  const pad = t.padding
  for (let k = 0; k < t.columns.length; k++) {
    const col = t.columns[k]! // k < length
    const td = tags?.leaf(c, 'TD')
    drawLines(c, col.used, col.lines, col.rtl, 0, col.lines.length, cx + pad, p.y + pad, col.width - 2 * pad, col.align)
    if (td !== undefined) tags?.unmark(c, td)
    cx += col.width
  }
  if (tr !== undefined) tags?.end(tr)
  p.y += h
  rule(p, t, x)
}

/** The rule under a row, if the table has one. */
function rule (p: PageFlow, t: TableEl, x: number): void {
  const color = t.lineColor
  if (color !== null) artifact(p, 'Layout', () => { p.body.line(x, p.y, x + t.width, p.y, color, 0.5) })
}

/** A row taller than a page: as many lines of every cell as fit, then the rest on the next pages. */
function splitRow (p: PageFlow, t: TableEl, x: number, headerH: number): void {
  const cols = t.columns
  const pad = t.padding
  // starts: the first line of every column still to draw, one entry per column.
  starts.length = 0
  for (let k = 0; k < cols.length; k++) starts.push(0)
  // One TD per column whatever the pages its lines fall on.
  const tags = p.body.tags
  const tr = tags?.begin('TR')
  cells.length = 0
  if (tags !== null) for (let k = 0; k < cols.length; k++) cells.push(tags.open('TD'))
  for (;;) {
    const avail = p.bottom - p.y - 2 * pad
    let cx = x
    let used = 0
    let left = false
    for (let k = 0; k < cols.length; k++) {
      const col = cols[k]! // k < cols.length = starts.length
      const from = starts[k]!
      const lh = col.used.lineHeight
      const to = Math.min(col.lines.length, from + Math.max(1, Math.floor(avail / lh)))
      const td = cells[k]
      if (td !== undefined) p.body.tags?.mark(p.body, td)
      drawLines(
        p.body,
        col.used,
        col.lines,
        col.rtl,
        from,
        to,
        cx + pad,
        p.y + pad,
        col.width - 2 * pad,
        col.align
      )
      if (td !== undefined) p.body.tags?.unmark(p.body, td, false)
      used = Math.max(used, (to - from) * lh)
      starts[k] = to
      if (to < col.lines.length) left = true
      cx += col.width
    }
    p.y += used + 2 * pad
    if (!left) break
    breakPage(p, t, x, headerH)
  }
  const live = p.body.tags
  if (live !== null && tr !== undefined) {
    for (const td of cells) live.close(td)
    live.end(tr)
  }
  rule(p, t, x)
}

/** The header's scratch arrays hold one entry per column (compile-table.ts): checked once per header. */
function checkHeader (t: TableEl): void {
  const n = t.columns.length
  if (t.headerLines.length !== n || t.headerRtl.length !== n || t.headerUsed.length !== n) {
    throw new Error(`${t.path}: header scratch does not match the columns`)
  }
}

function measureHeader (t: TableEl, scope: EvalScope): number {
  checkHeader(t)
  scope.row = null
  let h = t.headerStyle.lineHeight
  const st = t.headerStyle
  const hyphens = st.hyphenate ? hyphenatorFor(scope.context.language) : null
  for (let c = 0; c < t.columns.length; c++) {
    const col = t.columns[c]! // c < length, and checkHeader: the header arrays have as many entries
    const s = col.header(scope)
    t.headerUsed[c] = st
    const lines = t.headerLines[c]!
    const ch = wrap(st.face, st.size, s, col.width - 2 * t.padding, 0, lines, t.headerRtl[c]!, col.direction, hyphens) *
      st.lineHeight
    if (ch > h) h = ch
  }
  return h + 2 * t.padding
}

/** `tagged`: the first header is the table's THead; repeated ones are artifacts (breakPage). */
function drawHeader (p: PageFlow, t: TableEl, x: number, h: number, tagged: boolean): void {
  const c = p.body
  const fill = t.headerFill
  if (fill !== null) {
    if (tagged) artifact(p, 'Layout', () => { c.rect(x, p.y, t.width, h, fill) })
    else c.rect(x, p.y, t.width, h, fill)
  }
  checkHeader(t)
  const tags = tagged ? c.tags : null
  const thead = tags?.begin('THead')
  const tr = tags?.begin('TR')
  let cx = x
  for (let k = 0; k < t.columns.length; k++) {
    const col = t.columns[k]! // k < length, and checkHeader: the header arrays have as many entries
    const lines = t.headerLines[k]!
    const th = tags?.leaf(c, 'TH', TH)
    drawLines(
      c,
      t.headerUsed[k]!,
      lines,
      t.headerRtl[k]!,
      0,
      lines.length,
      cx + t.padding,
      p.y + t.padding,
      col.width - 2 * t.padding,
      col.align
    )
    if (th !== undefined) tags?.unmark(c, th)
    cx += col.width
  }
  if (thead !== undefined && tr !== undefined) { tags?.end(tr); tags?.end(thead) }
  p.y += h
  if (tagged) rule(p, t, x)
  else if (t.lineColor !== null) c.line(x, p.y, x + t.width, p.y, t.lineColor, 0.5)
}
