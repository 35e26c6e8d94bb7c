// The structure tree of a tagged PDF, written as it grows (ISO 32000-1, 14.7): every structure
// element is an object written as soon as it is closed, so memory holds only the open elements
// (a table, its body, the row being laid out) as object numbers and strings, never pdfkit
// objects. Page objects get their number when the page begins (pdfkit's page is renumbered to
// it when written, see renumberPage), so an element can name its pages before they are written.
// The parent tree (14.7.4.4) gets one array per page, written with the page; the root at the end.
// Objects go straight into pdfkit's output (its offsets table and xref stay right), in batches,
// their offsets counted when the batch goes out (pdfkit may write in between: a font's object).
import { putAscii, putBytes, putUint } from '../bytes.js'
import { ascii, giveBack, takeBatch, type ObjectBatch } from './object-batch.js'
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
  /** The first marked content's MCID (-1: none yet), on page `pg`: most leaves have just this. */
  mcid: number
  /** Marked content after the first (MCIDs, MCRs on other pages), in reading order, as /K text. */
  kids: string
  /**
   * Child elements, in reading order, as runs of object numbers (first, step, count): a table
   * body's rows are a few runs a page, not a number each. null until the first child (leaves
   * have none). An element has children or content.
   */
  runs: number[] | null
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
    const el: StructElem = { id, type, parent: parent?.id ?? this.rootId, mcid: -1, kids: '', runs: null, count: 0, pg: 0, extra }
    if (parent !== null) {
      if (parent.mcid >= 0) throw new Error(`structure tree: ${parent.type} has content and children`)
      if (parent.runs === null) parent.runs = [id, 0, 1]
      else addRun(parent.runs, id)
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
    if (el.runs !== null) throw new Error(`structure tree: ${el.type} has children and content`)
    const page = this.pageId(n)
    if (el.pg === 0) {
      el.pg = page
      el.mcid = mcid
    } else el.kids += page === el.pg ? ' ' + mcid : ' <</Type/MCR/Pg ' + page + ' 0 R/MCID ' + mcid + '>>'
    el.count++
  }

  /** The element is complete: its object is written. */
  close (el: StructElem): void {
    // Written compact (no optional /Type, no spaces where delimiters separate), the constant
    // text between numbers as bytes made once, straight into the batch's buffer, with room made
    // once for the object's longest form: a long table has a few of these per row.
    const h = head(el.type)
    const runs = el.runs
    const b = this.batch
    // Its longest form: four numbers of up to 10 digits, the constant pieces, a reference per child.
    const children = runs === null ? 0 : el.count * REF_ROOM
    const buf = b.room(LONGEST + h.length + el.kids.length + el.extra.length + children)
    let at = b.length
    this.placed.push(el.id, at)
    at = putUint(buf, at, el.id)
    at = putBytes(buf, at, h)
    at = putUint(buf, at, el.parent)
    if (el.pg !== 0) {
      at = putBytes(buf, at, PG)
      at = putUint(buf, at, el.pg)
      if (el.count === 1) {
        at = putBytes(buf, at, K)
        at = putUint(buf, at, el.mcid)
      } else {
        at = putBytes(buf, at, K_ARRAY)
        at = putUint(buf, at, el.mcid)
        at = putAscii(buf, at, el.kids)
        at = putBytes(buf, at, CLOSE_ARRAY)
      }
    } else if (runs !== null) {
      at = putBytes(buf, at, el.count === 1 ? K : K_ARRAY)
      at = refs(buf, at, runs)
      at = putBytes(buf, at, el.count === 1 ? REF : REF_CLOSE)
    } else at = putBytes(buf, at, REF)
    if (el.extra !== '') at = putAscii(buf, at, el.extra)
    b.length = putBytes(buf, at, END)
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
    const b = this.batch
    const buf = b.room(LONGEST + parents.length * REF_ROOM)
    this.placed.push(arr, b.length)
    let at = putBytes(buf, putUint(buf, b.length, arr), ARRAY_OBJ)
    for (let i = 0; i < parents.length; i++) at = putBytes(buf, putUint(buf, at, parents[i]!), REF_SPACE)
    b.length = putBytes(buf, at, ARRAY_END)
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

  /** Object `id` begins in the batch: its offset noted, its number written (the caller writes ` 0 obj`). */
  private start (id: number): ObjectBatch {
    const b = this.batch
    this.placed.push(id, b.length)
    b.int(id)
    return b
  }

  private object (id: number, body: string): void {
    const b = this.start(id)
    b.str(' 0 obj\n')
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

const ARRAY_OBJ = ascii(' 0 obj\n[')
const ARRAY_END = ascii(']\nendobj\n')
const PG = ascii(' 0 R/Pg ')
const K = ascii(' 0 R/K ')
const K_ARRAY = ascii(' 0 R/K [')
const CLOSE_ARRAY = ascii(']')
const REF = ascii(' 0 R')
const REF_CLOSE = ascii(' 0 R]')
const REF_SPACE = ascii(' 0 R ')
const REF_LINE = ascii(' 0 R\n')
const END = ascii('>>\nendobj\n')

/** Room for the longest object but its head, text and references: 4 numbers and the pieces between. */
const LONGEST = 4 * 10 + 64
/** Room for a reference in a list: up to 10 digits and ` 0 R` with its separator. */
const REF_ROOM = 16

/**
 * `a 0 R b 0 R … z` from runs at `at` (the caller writes the last ` 0 R`), a line each 16 (lines
 * of a PDF file stay short); returns the end. The caller has made room (REF_ROOM a reference).
 */
function refs (buf: Buffer, at: number, runs: readonly number[]): number {
  let k = 0
  for (let i = 0; i + 2 < runs.length; i += 3) {
    const first = runs[i]!
    const step = runs[i + 1]!
    const count = runs[i + 2]!
    for (let j = 0; j < count; j++) {
      if (k > 0) at = putBytes(buf, at, (k & 15) === 0 ? REF_LINE : REF_SPACE)
      k++
      at = putUint(buf, at, first + j * step)
    }
  }
  return at
}

/** ` 0 obj` and `<</S/type/P ` after the object's number, by type, as bytes made once. */
const HEADS = new Map<string, Uint8Array>()

function head (type: string): Uint8Array {
  let h = HEADS.get(type)
  if (h === undefined) {
    h = ascii(' 0 obj\n<</S/' + type + '/P ')
    // Types are the standard ones and a template's own few (role map); bounded all the same.
    if (HEADS.size < 256) HEADS.set(type, h)
  }
  return h
}

/** A PDF text string: literal if ASCII, else UTF-16BE with a byte order mark, in hex. */
export function pdfText (s: string): string {
  if (/^[\x20-\x7e]*$/.test(s)) return '(' + s.replace(/[\\()]/g, (c) => '\\' + c) + ')'
  return utf16Hex(s)
}
