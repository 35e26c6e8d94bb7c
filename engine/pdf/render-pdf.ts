// One PDF render: a pdfkit document used as the object/xref/compression writer, with content
// streams produced by our own layout (see pager.ts). Output is deterministic: fixed dates, so
// pdfkit's document ID (an md5 of the info dictionary) is fixed too.
import { OutputDocument, type Sink } from './output-document.js'
import { RenderError } from '../errors.js'
import { createScope } from '../expr/expressions.js'
import { mapped } from '../lists.js'
import type { RenderInput, RenderSuccess } from '../types.js'
import type { Canvas } from './canvas.js'
import { deflate } from '../deflate.js'
import { DocFonts } from './fonts.js'
import { embedImage } from './images.js'
import type { CompiledDocument } from './model.js'
import { Pager } from './pager.js'
import { addOutputIntent } from './output-intent.js'
import { bcp47, useXmp, type DocInfo } from './pdfa-metadata.js'
import { embedAssociatedFile, type PdfExtras } from './associated-file.js'
import { PdfRaw, pdfString } from './pdf-raw.js'
import { useOffsets, type OffsetsOwner } from './offsets.js'
import { StructTree, type ObjectOutput } from './struct-tree.js'
import { Tags } from './tags.js'
import { useXref, type XrefOwner } from './xref.js'

const EMPTY = Object.freeze({})

/** CreationDate/ModDate of every PDF: identical input must give identical bytes. */
export const FIXED_DATE = new Date(Date.UTC(2000, 0, 1))

/** A pdfkit stream object (PDFReference): its chunks are deflated when it is written. */
interface StreamRef {
  buffer: Uint8Array[]
  compress: boolean
  data: Record<string, unknown>
}
interface PageLike {
  content: StreamRef
  fonts: Record<string, unknown>
  xobjects: Record<string, unknown>
  dictionary: { id: number, data: Record<string, unknown> }
  _setTabOrder (): void
}
interface DocInternals extends ObjectOutput, OffsetsOwner, XrefOwner {
  endMetadata (): void
  page: PageLike
  _root: { id: number, data: { Pages: { data: { Kids: Array<{ data: unknown }> } } } & Record<string, unknown> }
}

/** Rows over all datasets: a `single` dataset counts 1, a `multiple` its length. */
export function countRows (datasets: RenderInput['datasets']): number {
  let n = 0
  for (const k in datasets) {
    const v = datasets[k]
    if (Array.isArray(v)) n += v.length
    // Datasets come from the data source; values may be undefined

    else if (v !== null && v !== undefined) n += 1
  }
  return n
}

/**
 * Where a render's output goes in stream mode (see worker/chunk-sender.ts, pool/output-hub.ts): `count` once,
 * before the first `write`, then the bytes in order.
 */
export interface OutputSink {
  count (n: number): void
  write (chunk: Uint8Array): void
}

/**
 * Pages a pass may hold while the page count is unknown (a header or footer shows `pages`, or
 * a stream must announce the count before its first byte). Documents up to this size render in
 * one pass as before; longer ones are counted first, then drawn page by page, so memory does
 * not grow with the page count. Holding is cheap (~4 KB per page: its content stream, plus its
 * ~2 KB of output in stream mode, ~3 MB at most) and the second pass is not (~30% more CPU).
 */
export const HOLD_PAGES = 500

interface Pass {
  /** Known page count: pages are written, and streamed, as soon as they are finished. */
  total?: number
  holdLimit?: number
  out?: OutputSink
  extras?: PdfExtras
}

/** `extras`: names for expressions and files to embed (an e-invoice's, engine/einvoice/render-einvoice.ts). */
export function renderPdf (
  cd: CompiledDocument, input: RenderInput, out?: OutputSink, extras?: PdfExtras
): RenderSuccess {
  const { limits } = input
  const rows = countRows(input.datasets)
  if (rows > limits.maxRows) throw new RenderError('RENDER_LIMIT_EXCEEDED', `maxRows (${limits.maxRows}) exceeded: ${rows} rows`)
  // The common path, unchanged: nothing waits for the page count.
  if (out === undefined && !cd.needsPageCount) return pass(cd, input, { extras }) as RenderSuccess
  // Held pages (and a stream's held output) are bounded: a longer document is counted by the
  // same pass, then drawn again with the count known.
  const first = pass(cd, input, { holdLimit: HOLD_PAGES, out, extras })
  if (!('counted' in first)) return first
  out?.count(first.counted)
  return pass(cd, input, { total: first.counted, out, extras }) as RenderSuccess
}

/** A render, or (past plan.holdLimit) the page count of one with nothing written. */
function pass (cd: CompiledDocument, input: RenderInput, plan: Pass): RenderSuccess | { counted: number } {
  const { limits } = input
  const { pdfa, version } = cd.pdf
  const info: DocInfo = { Producer: 'svc', Creator: 'svc', ...cd.info, CreationDate: FIXED_DATE, ModDate: FIXED_DATE }
  const chunks: Uint8Array[] = []
  const direct = plan.out !== undefined && plan.total !== undefined ? plan.out : undefined
  // The count known, every chunk leaves as soon as pdfkit writes it; else the chunks are collected.
  const output: Sink = direct !== undefined ? (chunk) => direct.write(chunk) : (chunk) => { chunks.push(chunk) }
  const doc = new OutputDocument({
    autoFirstPage: false,
    font: null, // no default Helvetica: standard fonts are handled by metrics.ts, see there
    compress: true,
    info,
    // 1.3 (pdfkit's default) for a plain document; above 1.3 pdfkit's end() calls endMetadata (below).
    ...(version !== '1.3' ? { pdfVersion: version } : {})
  } as unknown as PDFKit.PDFDocumentOptions, output)
  const internals = doc as unknown as DocInternals
  // A cross-reference stream where the version has them (1.5) and no PDF/A claim rules them out (xref.ts).
  useXref(internals, version === '1.7' && pdfa === null)
  // pdfkit would write its own XMP packet in any PDF above 1.3 (a tagged one is 1.7), unescaped:
  // only PDF/A and PDF/UA documents have one, written by pdfa-metadata.ts in endMetadata's place.
  if (pdfa === null && !cd.pdf.ua) internals.endMetadata = () => {}
  const fonts = new DocFonts(doc, pdfa?.part === 1, cd.pdf.tagged)
  const imageRefs = new Array<unknown>(cd.images.length)
  const pageOptions = { size: [cd.pageWidth, cd.pageHeight], margins: { top: 0, left: 0, bottom: 0, right: 0 } }
  const kids = internals._root.data.Pages.data.Kids
  // Tagged: objects for every structure element, and their offsets kept compact (offsets.ts).
  if (cd.pdf.tagged) useOffsets(internals)
  const tags = cd.pdf.tagged ? new Tags(new StructTree(internals, cd.pageHeight)) : null
  let pageNo = 0
  const sink = {
    page (parts: Canvas[]): void {
      doc.addPage(pageOptions)
      // addPage() wrote out the previous page's objects; the page tree keeps its reference only
      // for `n 0 R`: drop the written dictionary (and its content and resource objects with
      // it) so a long document does not keep ~1 KB per page.
      const written = kids.at(-2)
      if (written !== undefined) written.data = EMPTY
      // addPage() wrote out the previous page: stop as soon as the output is too big.
      if (doc.bytes > limits.maxBytes) throw new RenderError('RENDER_LIMIT_EXCEEDED', `maxBytes (${limits.maxBytes}) exceeded`)
      const page = internals.page
      const ops: Array<string | Uint8Array> = []
      for (const c of parts) {
        // Tagged: the page header and footer (canvases without tags) are pagination artifacts.
        if (c.held !== null) ops.push(c.held)
        else if (tags === null || c.tags !== null) ops.push(c.ops.view())
        else if (c.ops.length > 0) ops.push('/Artifact<</Type/Pagination>>BDC\n', c.ops.view(), 'EMC\n')
        for (const f of c.faces) page.fonts[fonts.resName(f)] = fonts.ref(f)
        for (const img of c.images) {
          imageRefs[img.index] ??= embedImage(doc, img)
          page.xobjects['I' + img.index] = imageRefs[img.index]
        }
      }
      ops.push('\n') // as pdfkit's addContent would write it
      writeContent(page.content, ops)
      pageNo++
      if (tags !== null) {
        const d = page.dictionary
        const { id, key } = tags.tree.renumberPage(pageNo, d.id, parts.find((c) => c.tags !== null)?.parents ?? [])
        d.id = id
        d.data.StructParents = key
        // /Tabs is PDF 1.5, PDF/A-1 is 1.4: then not even pdfkit's own (it adds /Tabs when the catalog has /MarkInfo).
        if (version !== '1.4') d.data.Tabs = 'S'
        else page._setTabOrder = () => {}
      }
    }
  }
  const names = plan.extras?.names
  const datasets = names === undefined ? input.datasets : { ...input.datasets, ...names }
  const scope = createScope({ datasets, parameters: input.parameters, context: input.context })
  const options = {
    maxPages: limits.maxPages, sink, total: plan.total, holdLimit: plan.holdLimit, tags: tags ?? undefined
  }
  const pager = new Pager(cd, scope, fonts, options)
  const pageCount = pager.run()
  if (pager.overflowed) {
    // Nothing of this pass outlives it (output-document.ts: no stream tick holds the document),
    // so its held output is not carried through the second pass (tagged-memory.test.ts).
    return { counted: pageCount }
  }
  if (tags !== null) markCatalog(internals._root.data, tags, bcp47(input.context.language))
  fonts.end()
  const { ua } = cd.pdf
  // ISO 19005-2/3 forbid the .notdef glyph that draws a character no font has (part 1 does not);
  // ISO 14289-1 7.21.7 wants every glyph mapped to Unicode, which .notdef is not.
  if ((ua || (pdfa !== null && pdfa.part > 1)) && fonts.missing.size > 0) {
    const level = ua ? 'PDF/UA-1' : `PDF/A-${pdfa!.part}${pdfa!.conformance.toLowerCase()}`
    throw new RenderError('RENDER_FAILED', `${level} cannot show characters no font has: ${missingList(fonts.missing)}`)
  }
  if (pdfa !== null) {
    addOutputIntent(doc)
    const files = plan.extras?.files ?? []
    for (const f of files) embedAssociatedFile(doc, f, FIXED_DATE)
    useXmp(doc, { pdfa, ua }, info, bcp47(input.context.language), mapped(files, (f) => f.xmp))
  } else if (ua) {
    // PDF/UA-1 without PDF/A: XMP with pdfuaid:part and dc:title all the same (ISO 14289-1 5, 7.1).
    useXmp(doc, { pdfa, ua }, info, bcp47(input.context.language))
  }
  doc.end()
  if (doc.bytes > limits.maxBytes) throw new RenderError('RENDER_LIMIT_EXCEEDED', `maxBytes (${limits.maxBytes}) exceeded`)
  let out: Uint8Array
  if (plan.out === undefined) {
    const only = chunks.length === 1 ? chunks.at(0) : undefined
    out = only ?? Buffer.concat(chunks, doc.bytes)
  } else {
    // Streamed: what was held (a short document) leaves now, after its count.
    if (direct === undefined) {
      plan.out.count(pageCount)
      for (const c of chunks) plan.out.write(c)
    }
    out = new Uint8Array(0)
  }
  const result: RenderSuccess = { ok: true, format: 'pdf', bytes: out, pageCount, labelCount: 0 }
  if (fonts.missing.size > 0) result.warnings = [missingWarning(fonts.missing)]
  return result
}

/** zlib level of page content streams (see writeContent). */
const CONTENT_LEVEL = 4

/**
 * A page's content stream, deflated here (deflate.ts, at CONTENT_LEVEL) instead of by pdfkit at
 * zlib's default level: pdfkit's chunks (addPage's flipping `cm`), then `ops`, written into one
 * buffer without joining them first.
 */
function writeContent (content: StreamRef, ops: Array<string | Uint8Array>): void {
  const parts = [...content.buffer, ...ops]
  let n = 0
  for (const c of parts) n += c.length // a string's latin1 bytes: one per code unit
  const all = Buffer.allocUnsafe(n)
  let at = 0
  for (const c of parts) {
    if (typeof c === 'string') at += all.write(c, at, 'latin1')
    else { all.set(c, at); at += c.length }
  }
  content.compress = false
  content.data.Filter = 'FlateDecode'
  // Level 4, not zlib's 6: the example invoice's 11.3 KB content deflates in ~46 us instead of ~80
  // (loop, median) for 2,526 bytes instead of 2,361 (+4% of a 3.9 KB plain invoice, +0.3% of a PDF/A one).
  content.buffer = [deflate(all, CONTENT_LEVEL)]
}

/**
 * A catalog value pdfkit's doc.end() calls end() on (its own StructTreeRoot, MarkInfo and
 * ViewerPreferences are objects it writes there): ours are written already, or direct.
 */
class Written extends PdfRaw {
  end (): void {}
}

/** The tagged document's catalog entries (ISO 32000-1, 14.7 and 14.8; 12.2 for the title shown). */
function markCatalog (root: Record<string, unknown>, tags: Tags, lang: string | null): void {
  tags.finish()
  root.StructTreeRoot = new Written(tags.tree.rootId + ' 0 R')
  root.MarkInfo = new Written('<< /Marked true >>')
  root.ViewerPreferences = new Written('<< /DisplayDocTitle true >>')
  if (lang !== null) root.Lang = pdfString(lang)
}

/** One warning naming the characters no font had (the first 20), e.g. "U+1F600". */
function missingWarning (missing: Set<number>): string {
  return `${missing.size} character(s) no font has, drawn as boxes: ${missingList(missing)}`
}

function missingList (missing: Set<number>): string {
  const cps = [...missing].sort((a, b) => a - b)
  return cps.slice(0, 20).map((c) => 'U+' + c.toString(16).toUpperCase().padStart(4, '0')).join(', ') + (cps.length > 20 ? ', …' : '')
}
