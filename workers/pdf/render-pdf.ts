// One PDF render: a pdfkit document used as the object/xref/compression writer, with content
// streams produced by our own layout (see pager.ts). Output is deterministic: fixed dates, so
// pdfkit's document ID (an md5 of the info dictionary) is fixed too.
import PDFDocument from 'pdfkit'
import { RenderError } from '../errors.js'
import { createScope } from '../expr/expressions.js'
import type { RenderInput, RenderSuccess } from '../types.js'
import type { Canvas } from './canvas.js'
import { DocFonts } from './fonts.js'
import { embedImage } from './images.js'
import type { CompiledDocument } from './model.js'
import { Pager } from './pager.js'

/** CreationDate/ModDate of every PDF: identical input must give identical bytes. */
export const FIXED_DATE = new Date(Date.UTC(2000, 0, 1))

interface PageLike { fonts: Record<string, unknown>, xobjects: Record<string, unknown> }
interface DocInternals { page: PageLike, push (chunk: Uint8Array | null): boolean, _offset: number }

/** Rows over all datasets: a `single` dataset counts 1, a `multiple` its length. */
export function countRows (datasets: RenderInput['datasets']): number {
  let n = 0
  for (const k in datasets) {
    const v = datasets[k]
    if (Array.isArray(v)) n += v.length
    // Datasets come from the data source; values may be undefined
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    else if (v !== null && v !== undefined) n += 1
  }
  return n
}

export function renderPdf (cd: CompiledDocument, input: RenderInput): RenderSuccess {
  const { limits } = input
  const rows = countRows(input.datasets)
  if (rows > limits.maxRows) throw new RenderError('RENDER_LIMIT_EXCEEDED', `maxRows (${limits.maxRows}) exceeded: ${rows} rows`)
  const doc = new PDFDocument({
    autoFirstPage: false,
    font: null, // no default Helvetica: standard fonts are handled by metrics.ts, see there
    compress: true,
    info: { Producer: 'svc', Creator: 'svc', ...cd.info, CreationDate: FIXED_DATE, ModDate: FIXED_DATE }
  } as unknown as PDFKit.PDFDocumentOptions)
  const internals = doc as unknown as DocInternals
  // Collect output synchronously instead of through the Readable stream (whose first pushes
  // are delivered on a later tick): pdfkit writes everything through push().
  // The constructor already pushed the `%PDF-1.3` header into the stream buffer: take it out.
  const head = doc.read() as Uint8Array | null
  const chunks: Uint8Array[] = head === null ? [] : [head]
  let bytes = head === null ? 0 : head.length
  internals.push = (chunk) => {
    if (chunk !== null) {
      chunks.push(chunk)
      bytes += chunk.length
    }
    return true
  }
  const fonts = new DocFonts(doc)
  const imageRefs = new Array<unknown>(cd.images.length)
  const pageOptions = { size: [cd.pageWidth, cd.pageHeight], margins: { top: 0, left: 0, bottom: 0, right: 0 } }
  const sink = {
    page (parts: Canvas[]): void {
      doc.addPage(pageOptions as PDFKit.PDFDocumentOptions)
      // addPage() wrote out the previous page: stop as soon as the output is too big.
      if (bytes > limits.maxBytes) throw new RenderError('RENDER_LIMIT_EXCEEDED', `maxBytes (${limits.maxBytes}) exceeded`)
      const page = internals.page
      let ops = ''
      for (const c of parts) {
        ops += c.ops
        for (const f of c.faces) page.fonts[fonts.resName(f)] = fonts.ref(f)
        for (const img of c.images) {
          imageRefs[img.index] ??= embedImage(doc, img)
          page.xobjects['I' + img.index] = imageRefs[img.index]
        }
      }
      doc.addContent(ops)
    }
  }
  const scope = createScope({ datasets: input.datasets, parameters: input.parameters, context: input.context })
  const pageCount = new Pager(cd, scope, fonts, limits.maxPages, sink).run()
  fonts.end()
  doc.end()
  if (bytes > limits.maxBytes) throw new RenderError('RENDER_LIMIT_EXCEEDED', `maxBytes (${limits.maxBytes}) exceeded`)
  const out = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, bytes)
  const result: RenderSuccess = { ok: true, format: 'pdf', bytes: out, pageCount, labelCount: 0 }
  if (fonts.missing.size > 0) result.warnings = [missingWarning(fonts.missing)]
  return result
}

/** One warning naming the characters no font had (the first 20), e.g. "U+1F600". */
function missingWarning (missing: Set<number>): string {
  const cps = [...missing].sort((a, b) => a - b)
  const list = cps.slice(0, 20).map((c) => 'U+' + c.toString(16).toUpperCase().padStart(4, '0')).join(', ')
  return `${cps.length} character(s) no font has, drawn as boxes: ${list}${cps.length > 20 ? ', …' : ''}`
}
