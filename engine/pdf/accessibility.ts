// The accessibility checks of a PDF template (issue 34, docs/accessibility.md): what a screen
// reader needs that only the template author can give. One module for both uses: with
// `document.pdf.ua: PDF/UA-1` the findings are publish-time errors (compile.ts), without it
// `svc templates validate` lists them as warnings (engine/template/validate.ts).
// It reads the document as written (styles by name), not the compiled elements: a heading level
// is a tagging matter the layout does not keep. Page headers and footers are skipped: they
// become pagination artifacts, which a screen reader does not read (a logo there needs no alt).
// Fonts need no check: every glyph gets a ToUnicode entry (embedded fonts from the text they
// were shaped from, standard fonts through their embedded substitutes); the one glyph without,
// .notdef for a character no font has, depends on the data and is refused when rendering.

/** A finding: the dotted JSON path and what is missing (the same shape as a AccessibilityIssue). */
export interface AccessibilityIssue { path: string, message: string }

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v)

/** The bands a screen reader reads, in document order. */
const READ_BANDS = ['reportHeader', 'body', 'summary'] as const

/** Every finding with its dotted JSON path (`document.body[2].image.alt`), in document order. */
export function accessibilityIssues (document: unknown): AccessibilityIssue[] {
  const issues: AccessibilityIssue[] = []
  if (!isObj(document)) return issues
  const info = isObj(document.info) ? document.info : {}
  if (typeof info.title !== 'string' || info.title.trim() === '') {
    issues.push({ path: 'document.info.title', message: 'a title is required: the window title a screen reader announces' })
  }
  const styles = isObj(document.styles) ? document.styles : {}
  const order = { last: 0 }
  for (const band of READ_BANDS) items(document[band], `document.${band}`, styles, order, issues)
  return issues
}

function items (list: unknown, path: string, styles: Obj, order: { last: number }, issues: AccessibilityIssue[]): void {
  if (!Array.isArray(list)) return
  list.forEach((e: unknown, i) => { if (isObj(e)) element(e, `${path}[${i}]`, styles, order, issues) })
}

function element (e: Obj, path: string, styles: Obj, order: { last: number }, issues: AccessibilityIssue[]): void {
  if (typeof e.text === 'string' || typeof e.text === 'number') {
    const style = typeof e.style === 'string' ? styles[e.style] : undefined
    const level = typeof e.heading === 'number' ? e.heading : isObj(style) ? style.heading : undefined
    if (typeof level !== 'number') return
    // The element's own heading, or its style's (named in the message: the fix may be there).
    const own = typeof e.heading === 'number'
    const at = own ? `${path}.heading` : `${path}.style`
    const from = own ? '' : ` (from style ${String(e.style)})`
    if (order.last === 0 && level !== 1) {
      issues.push({ path: at, message: `the first heading is H${level}${from}: it must be H1` })
    } else if (order.last > 0 && level > order.last + 1) {
      issues.push({ path: at, message: `H${level}${from} follows H${order.last}: no heading level may be skipped` })
    }
    order.last = level
  } else if (isObj(e.image)) {
    const alt = e.image.alt
    if (typeof alt !== 'string' || alt.trim() === '') {
      issues.push({ path: `${path}.image.alt`, message: 'an image needs alt text: what a screen reader says instead' })
    }
  } else if (isObj(e.table)) {
    const t = e.table
    if (t.header === false) {
      issues.push({
        path: `${path}.table.header`,
        message: 'a table needs a header row (header: false leaves its ' +
        'columns unnamed for a screen reader)'
      })
    }
    items(t.groupHeader, `${path}.table.groupHeader`, styles, order, issues)
    items(t.groupFooter, `${path}.table.groupFooter`, styles, order, issues)
  } else if (Array.isArray(e.columns)) {
    e.columns.forEach((c: unknown, i) => {
      if (isObj(c)) items(c.items, `${path}.columns[${i}].items`, styles, order, issues)
    })
  }
}
