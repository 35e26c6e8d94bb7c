// pdfkit's PDFDocument with its output taken as it is written, never through the Readable stream
// pdfkit is. Everything pdfkit writes goes through _write() and push(); here push() hands each
// chunk to the render's sink (collected, or streamed out), and _write() turns strings into bytes
// with Buffer's latin1 encoding (pdfkit's own loop in JS, one array per line, was ~7% of a render).
//
// Both are methods of this class rather than functions set on each document: the constructor
// itself writes the `%PDF-x.y` header, and through the stream that push entered the Readable's
// buffer and scheduled a process.nextTick (maybeReadMore) holding the document until the event
// loop turned. A worker's loop turns after each task; a loop of renders that never yields (the
// engine benchmarks) kept every document it made alive: after 4,000 PDF/A invoices, 4,000
// documents with their font programs (bench/RESULTS.md, 2026-11-27 (evening)).
import PDFDocument from 'pdfkit'

/** Where a document's bytes go, chunk by chunk, in order. */
export type Sink = (chunk: Uint8Array) => void

type PdfKitClass = new (options: PDFKit.PDFDocumentOptions) => PDFKit.PDFDocument
interface PdfKitOutput { _offset: number }

/** Chunks the constructor writes (the header), before the document has its sink. */
let early: Uint8Array[] = []

export class OutputDocument extends (PDFDocument as unknown as PdfKitClass) {
  /** Bytes handed to the sink so far. */
  bytes: number
  private readonly sink: Sink

  constructor (options: PDFKit.PDFDocumentOptions, sink: Sink) {
    // Nothing a constructor that threw (after its header) pushed may reach the next document.
    early = []
    super(options)
    this.bytes = 0
    this.sink = sink
    const head = early
    early = []
    for (const c of head) this.push(c)
  }

  override push (chunk: Uint8Array | null): boolean {
    if (chunk === null) return true
    // The constructor's writes come before `sink` is set (fields are defined after super()).
    if ((this as unknown as { sink?: Sink }).sink === undefined) {
      early.push(chunk)
      return true
    }
    this.bytes += chunk.length
    this.sink(chunk)
    return true
  }

  _write (data: string | Uint8Array): void {
    const b = typeof data === 'string' ? Buffer.from(data + '\n', 'latin1') : data
    this.push(b)
    ;(this as unknown as PdfKitOutput)._offset += b.length
  }
}
