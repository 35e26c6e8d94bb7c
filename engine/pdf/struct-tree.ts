// The structure tree of a tagged PDF, written as it grows (ISO 32000-1, 14.7): every structure
// element is an object written as soon as it is closed, so memory holds only the open elements
// (a table, its body, the row being laid out) as object numbers and strings, never pdfkit
// objects. Page objects get their number when the page begins (pdfkit's page is renumbered to
// it when written, see renumberPage), so an element can name its pages before they are written.
// The parent tree (14.7.4.4) gets one array per page, written with the page; the root at the end.
// Objects go straight into pdfkit's output (its offsets table and xref stay right), in batches,
// their offsets counted when the batch goes out (pdfkit may write in between: a font's object).
import { giveBack, takeBatch, type ObjectBatch } from './object-batch.js'
import { fmt } from './pdf-number.js'
import type { OffsetTable } from './offsets.js'
import { utf16Hex } from './pdf-raw.js'
import type { ObjectWriter } from './raw-stream.js'

/** pdfkit's object bookkeeping, as this writer uses it (render-pdf.ts hands it over). */
export interface ObjectOutput extends ObjectWriter {
  _offsets: OffsetTable
  _waiting: number
}

/** A structure element: open while its content is laid out, then closed and written. */
export interface StructElem {
  id: number
  /** The structure type: P, H1, Table, TD, … */
  type: string
  parent: number
  /** Marked content so far (MCIDs, MCRs on other pages), in reading order: /K of a leaf element. */
  kids: string
  /**
   * Child elements, in reading order, as runs of object numbers (first, step, count): a table
   * body's rows are a few runs a page, not a number each. An element has children or content.
   */
  runs: number[]
  count: number
  /** Object number of the page of the first marked content (0: none yet): the element's /Pg. */
  pg: number
  /** More of the dictionary, ready to write: `/A << … >>`, `/Alt (…)`. */
  extra: string
}

/** Batches above this size go out at once. */
const BATCH = 32 * 1024

export class StructTree {
  readonly rootId: number
  private readonly out: ObjectOutput
  private readonly pageHeight: number
  /** Page number → page object number (index 0 unused). */
  private readonly pageIds: number[] = [0]
  /** Page index (its /StructParents) → object number of its parent-tree array. */
  private readonly parentArrays: number[] = []
  /** Objects written, not yet out (object-batch.ts). */
  private readonly batch: ObjectBatch
  /** The batch's objects: object number, offset in the batch, in pairs. */
  private readonly placed: number[] = []

  constructor (out: ObjectOutput, pageHeight: number) {
    this.out = out
    this.pageHeight = pageHeight
    this.batch = takeBatch()
    this.rootId = this.alloc()
  }

  /** A new element under `parent` (null: the root), added to the parent's kids. */
  open (type: string, parent: StructElem | null, extra = ''): StructElem {
    const id = this.alloc()
    const el: StructElem = { id, type, parent: parent?.id ?? this.rootId, kids: '', runs: [], count: 0, pg: 0, extra }
    if (parent !== null) {
      if (parent.kids !== '') throw new Error(`structure tree: ${parent.type} has content and children`)
      addRun(parent.runs, id)
      parent.count++
    }
    return el
  }

  /** Page `n` begins: its object number is taken now. */
  startPage (n: number): void {
    if (this.pageIds[n] === undefined) this.pageIds[n] = this.alloc()
  }

  /** Marked content `mcid` on page `n` belongs to `el`. */
  content (el: StructElem, n: number, mcid: number): void {
    if (el.runs.length > 0) throw new Error(`structure tree: ${el.type} has children and content`)
    const page = this.pageId(n)
    if (el.pg === 0) el.pg = page
    el.kids += page === el.pg ? mcid + ' ' : '<</Type/MCR/Pg ' + page + ' 0 R/MCID ' + mcid + '>> '
    el.count++
  }

  /** The element is complete: its object is written. */
  close (el: StructElem): void {
    // Written compact (no optional /Type, no spaces where delimiters separate): a long table
    // has a few of these per row.
    const b = this.start(el.id)
    b.str('<</S/')
    b.str(el.type)
    b.str('/P ')
    b.int(el.parent)
    b.str(' 0 R')
    if (el.pg !== 0) {
      b.str('/Pg ')
      b.int(el.pg)
      b.str(' 0 R')
    }
    if (el.count > 0) {
      b.str(el.count === 1 ? '/K ' : '/K [')
      if (el.runs.length > 0) refs(b, el.runs)
      else b.str(el.kids)
      if (el.count !== 1) b.str(']')
    }
    b.str(el.extra)
    b.str('>>\nendobj\n')
    if (b.length > BATCH) this.flush()
  }

  /**
   * pdfkit has just added page `n` as object `pdfkitId`: renumbered to the number the structure
   * elements use (the other number gets an empty object), its parent-tree array written with
   * `parents` (the element of each MCID). Returns the page's number and its /StructParents key.
   */
  renumberPage (n: number, pdfkitId: number, parents: readonly number[]): { id: number, key: number } {
    this.startPage(n)
    const id = this.pageId(n)
    this.object(pdfkitId, 'null')
    const arr = this.alloc()
    const b = this.start(arr)
    b.str('[')
    for (const p of parents) {
      b.int(p)
      b.str(' 0 R ')
    }
    b.str(']\nendobj\n')
    const key = this.parentArrays.length
    this.parentArrays.push(arr)
    this.flush()
    return { id, key }
  }

  /** Writes the parent tree and the root (`kids`: the root's elements). */
  finish (kids: readonly number[]): void {
    const tree = this.alloc()
    let nums = ''
    this.parentArrays.forEach((id, key) => { nums += key + ' ' + id + ' 0 R ' })
    this.object(tree, '<< /Nums [' + nums + '] >>')
    this.object(this.rootId, '<< /Type /StructTreeRoot /K [' + kids.map((k) => k + ' 0 R').join(' ') +
      '] /ParentTree ' + tree + ' 0 R /ParentTreeNextKey ' + this.parentArrays.length + ' >>')
    this.flush()
    giveBack(this.batch)
  }

  /** `/BBox` in PDF space from a box in layout coordinates (y grows downwards from the top). */
  bbox (x: number, y: number, w: number, h: number): string {
    const top = this.pageHeight - y
    return '[' + fmt(x) + ' ' + fmt(top - h) + ' ' + fmt(x + w) + ' ' + fmt(top) + ']'
  }

  private pageId (n: number): number {
    const id = this.pageIds[n]
    if (id === undefined) throw new Error(`structure tree: page ${n} not begun`)
    return id
  }

  /** A new object number, as pdfkit's doc.ref() takes one. */
  private alloc (): number {
    this.out._offsets.push(null)
    this.out._waiting++
    return this.out._offsets.length
  }

  /** Object `id` begins in the batch: its offset noted, `id 0 obj` written. */
  private start (id: number): ObjectBatch {
    const b = this.batch
    this.placed.push(id, b.length)
    b.int(id)
    b.str(' 0 obj\n')
    return b
  }

  private object (id: number, body: string): void {
    const b = this.start(id)
    b.str(body)
    b.str('\nendobj\n')
  }

  /** Into pdfkit's output in one write, as bytes: the batch ends with its newline already. */
  flush (): void {
    const b = this.batch
    if (b.length === 0) return
    const at = this.out._offset
    const placed = this.placed
    for (let i = 0; i + 1 < placed.length; i += 2) this.out._refEnd({ id: placed[i]!, offset: at + placed[i + 1]! })
    placed.length = 0
    this.out._write(b.take())
  }
}

/** Appends `id` to runs of (first, step, count). */
function addRun (runs: number[], id: number): void {
  const n = runs.length
  if (n > 0) {
    const first = runs[n - 3]!
    const count = runs[n - 1]! // n is a multiple of 3
    if (count === 1) { runs[n - 2] = id - first; runs[n - 1] = 2; return }
    if (first + runs[n - 2]! * count === id) { runs[n - 1] = count + 1; return }
  }
  runs.push(id, 0, 1)
}

/** `a 0 R b 0 R …` from runs, a line each 16 (lines of a PDF file stay short). */
function refs (b: ObjectBatch, runs: readonly number[]): void {
  let k = 0
  for (let i = 0; i + 2 < runs.length; i += 3) {
    const first = runs[i]!
    const step = runs[i + 1]!
    const count = runs[i + 2]!
    for (let j = 0; j < count; j++) {
      b.int(first + j * step)
      b.str((++k & 15) === 0 ? ' 0 R\n' : ' 0 R ')
    }
  }
}

/** A PDF text string: literal if ASCII, else UTF-16BE with a byte order mark, in hex. */
export function pdfText (s: string): string {
  if (/^[\x20-\x7e]*$/.test(s)) return '(' + s.replace(/[\\()]/g, (c) => '\\' + c) + ')'
  return utf16Hex(s)
}
