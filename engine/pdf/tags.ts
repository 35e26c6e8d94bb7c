// Tagging while drawing: which structure element the content being drawn belongs to, and the
// marked content around it in the page's content stream (`/P<</MCID 3>>BDC … EMC`), or the
// artifact it is (`/Artifact<</Type/Layout>>BDC … EMC`). Elements say what they are by their
// module's role (elements/types.ts); boxes.ts and pager.ts open and close them around draw and
// flow, the table (table.ts) builds its own rows and cells. A page break closes the open marked
// content on the old page and opens it again, with the next MCID, on the new one, so an element
// that runs over pages is one structure element. Only body canvases carry tags: the page header
// and footer are pagination artifacts as a whole (render-pdf.ts).
import type { Canvas } from './canvas.js'
import type { AnyModule, Elem } from './elements/index.js'
import { StructTree, pdfText, type StructElem } from './struct-tree.js'

export type ArtifactType = 'Layout' | 'Pagination'

const EMC = 'EMC\n'

export class Tags {
  readonly tree: StructTree
  private readonly stack: StructElem[] = []
  private readonly document: StructElem
  private page = 0
  /** The element whose marked content is open, or the artifact's BDC; null: nothing open. */
  private marked: StructElem | null = null
  private artifactOpen: string | null = null

  constructor (tree: StructTree) {
    this.tree = tree
    this.document = tree.open('Document', null)
    this.stack.push(this.document)
  }

  /** The element new elements go under. */
  get top (): StructElem {
    const t = this.stack.at(-1)
    if (t === undefined) throw new Error('tags: the document element is closed')
    return t
  }

  /** A grouping element (Sect, Div, Table, TR, …) under the current one; it becomes the current one. */
  begin (type: string, extra = ''): StructElem {
    const el = this.tree.open(type, this.top, extra)
    this.stack.push(el)
    return el
  }

  end (el: StructElem): void {
    if (this.stack.pop() !== el) throw new Error(`tags: ${el.type} closed out of order`)
    this.tree.close(el)
  }

  /** A leaf element (P, TD, Figure) under the current one, its content marked until unmark(). */
  leaf (c: Canvas, type: string, extra = ''): StructElem {
    const el = this.open(type, extra)
    this.mark(c, el)
    return el
  }

  /** An element under the current one that does not become the current one: mark() its content. */
  open (type: string, extra = ''): StructElem {
    return this.tree.open(type, this.top, extra)
  }

  /** Ends the element's marked content; `done`: the element is complete too (else: close() later). */
  unmark (c: Canvas, el: StructElem, done = true): void {
    if (this.marked !== el) throw new Error(`tags: ${el.type} is not the open marked content`)
    c.ops.str(EMC)
    this.marked = null
    if (done) this.tree.close(el)
  }

  close (el: StructElem): void { this.tree.close(el) }

  artifact (c: Canvas, type: ArtifactType): void {
    if (this.marked !== null || this.artifactOpen !== null) throw new Error('tags: marked content nested')
    const bdc = '/Artifact<</Type/' + type + '>>BDC\n'
    this.artifactOpen = bdc
    c.ops.str(bdc)
  }

  endArtifact (c: Canvas): void {
    if (this.artifactOpen === null) throw new Error('tags: no artifact open')
    c.ops.str(EMC)
    this.artifactOpen = null
  }

  /** The page's content ends: what is open is closed in it. */
  pageEnd (c: Canvas): void {
    if (this.marked !== null || this.artifactOpen !== null) c.ops.str(EMC)
  }

  /** Page `n` begins: what was open at the end of the last one goes on here. */
  pageStart (c: Canvas, n: number): void {
    this.page = n
    this.tree.startPage(n)
    if (this.marked !== null) this.mark(c, this.marked)
    if (this.artifactOpen !== null) c.ops.str(this.artifactOpen)
  }

  /**
   * Opens what the element is, by its module's role, before it draws or flows at (x, y): nothing
   * for `None` (a spacer or page break would leave an empty artifact, on both pages of a break).
   */
  enter (m: AnyModule, el: Elem, c: Canvas, x: number, y: number): StructElem | null {
    const role = m.role
    if (role === 'None') return null
    if (role === 'Artifact') { this.artifact(c, 'Layout'); return null }
    const s = m.structure?.(el, x, y)
    let extra = ''
    if (s?.alt !== undefined && s.alt !== '') extra += ' /Alt ' + pdfText(s.alt)
    if (s?.box !== undefined) extra += ' /A << /O /Layout /BBox ' + this.tree.bbox(...s.box) + ' >>'
    const type = s?.type ?? role
    // Tables lay out their own rows and cells (table.ts).
    if (role === 'P' || role === 'H' || role === 'Figure') return this.leaf(c, type, extra)
    return this.begin(type, extra)
  }

  leave (m: AnyModule, opened: StructElem | null, c: Canvas): void {
    if (m.role === 'None') return
    if (opened === null) this.endArtifact(c)
    else if (m.role === 'P' || m.role === 'H' || m.role === 'Figure') this.unmark(c, opened)
    else this.end(opened)
  }

  /** The document is complete: the root's tree is written. */
  finish (): void {
    this.end(this.document)
    this.tree.finish([this.document.id])
  }

  /** Marked content of `el` begins (its content is drawn on `c` until unmark()). */
  mark (c: Canvas, el: StructElem): void {
    if (this.artifactOpen !== null || (this.marked !== null && this.marked !== el)) {
      throw new Error('tags: marked content nested')
    }
    const mcid = c.parents.length
    c.parents.push(el.id)
    c.ops.str(bdc(el.type, mcid))
    this.tree.content(el, this.page, mcid)
    this.marked = el
  }
}

/**
 * `/type<</MCID n>>BDC` and its newline, made once per type and MCID below MCIDS: MCIDs count
 * from 0 on every page, so the same few hundred strings come back page after page (one append to
 * the page's content instead of four and a number's string for every cell).
 */
const MCIDS = 512
const BDCS = new Map<string, string[]>()

function bdc (type: string, mcid: number): string {
  if (mcid >= MCIDS) return '/' + type + '<</MCID ' + mcid + '>>BDC\n'
  let byMcid = BDCS.get(type)
  if (byMcid === undefined) {
    byMcid = []
    // Types are the standard ones and a template's own few; bounded all the same.
    if (BDCS.size < 64) BDCS.set(type, byMcid)
  }
  let text = byMcid[mcid]
  if (text === undefined) {
    text = '/' + type + '<</MCID ' + mcid + '>>BDC\n'
    byMcid[mcid] = text
  }
  return text
}
