// A file embedded in a PDF/A-3 document as an associated file (ISO 19005-3 6.8): the catalog's
// /AF array and the EmbeddedFiles name tree point to its file specification (/F, /UF,
// /AFRelationship, /Desc); the stream carries /Subtype (its MIME type) and /Params /ModDate.
// The dates are the document's fixed one, so the bytes stay deterministic. `xmp` is the file's
// part of the document's XMP packet (the Factur-X properties and their extension schema).
import { PdfRaw, pdfDictOpen, pdfString } from './pdf-raw.js'
import { endStream } from './raw-stream.js'
import type { XmpPart } from './xmp-schemas.js'

export interface AssociatedFile {
  name: string
  /** MIME type, written as the stream's /Subtype (`text/xml` → `/text#2Fxml`). */
  mime: string
  relationship: 'Alternative' | 'Data' | 'Source' | 'Supplement' | 'Unspecified'
  description: string
  /** The file's bytes as a zlib stream (RFC 1950), written as the stream's /FlateDecode data. */
  deflated: Buffer
  /** The file's size in bytes (its /Params /Size). */
  size: number
  xmp: XmpPart
}

/** Extra input of a PDF render: more names for expressions, and files to embed. */
export interface PdfExtras {
  /** Added to the expression scope's names (e.g. `invoice`), beside the datasets. */
  names?: Record<string, unknown>
  files?: AssociatedFile[]
}

interface Ref { data: Record<string, unknown>, end (chunk?: Uint8Array): void }
interface Doc {
  ref (data?: Record<string, unknown>): Ref
  addNamedEmbeddedFile (name: string, ref: Ref): void
  _root: { data: Record<string, unknown> }
}

/**
 * The embedded file stream (deflated, with /Params /CreationDate, /ModDate and /Size), its file
 * specification (/F, /UF, /EF for both, /AFRelationship, /Desc), the catalog's /AF and the
 * EmbeddedFiles name tree entry. Written here rather than by pdfkit's doc.file(), which leaves
 * the stream uncompressed and /EF without /UF.
 */
export function embedAssociatedFile (doc: PDFKit.PDFDocument, f: AssociatedFile, date: Date): void {
  const d = doc as unknown as Doc
  // No /CheckSum (optional, ISO 32000-1 table 46): its MD5 cost ~0.1 ms of a ~1.6 ms Factur-X
  // invoice's CPU inside a render (same-process A/B), and neither Factur-X nor PDF/A asks for it.
  // The stream is written as it is (raw-stream.ts), its dictionary's text made once per MIME type
  // and date: pdfkit's finalize would copy the bytes and convert two dictionaries and two dates.
  const stream = d.ref()
  endStream(doc, stream, streamDict(f.mime, date) + '\n/Size ' + f.size + '\n>>\n/Filter /FlateDecode', f.deflated)
  const name = pdfString(f.name)
  const spec = d.ref({
    Type: 'Filespec',
    F: name,
    UF: name,
    EF: { F: stream, UF: stream },
    Desc: pdfString(f.description),
    AFRelationship: f.relationship
  })
  spec.end()
  d.addNamedEmbeddedFile(f.name, spec)
  const af: unknown = d._root.data.AF
  d._root.data.AF = Array.isArray(af) ? [...(af as unknown[]), spec] : [spec]
}

/** The stream dictionary's text up to /Params' /Size, by MIME type and date (one or two per thread). */
const DICTS = new Map<string, string>()

function streamDict (mime: string, date: Date): string {
  const key = mime + ' ' + date.getTime()
  let text = DICTS.get(key)
  if (text === undefined) {
    const when = pdfDate(date)
    text = pdfDictOpen({
      Type: 'EmbeddedFile',
      Subtype: new PdfRaw('/' + nameEscape(mime)),
      Params: new PdfRaw('<<\n/CreationDate ' + when + '\n/ModDate ' + when)
    })
    if (DICTS.size < 16) DICTS.set(key, text)
  }
  return text
}

/** A date as pdfkit's PDFObject.convert writes it (ISO 32000-1 7.9.4, UTC). */
function pdfDate (d: Date): string {
  const p = (n: number, w: number): string => String(n).padStart(w, '0')
  return '(D:' + p(d.getUTCFullYear(), 4) + p(d.getUTCMonth() + 1, 2) + p(d.getUTCDate(), 2) +
    p(d.getUTCHours(), 2) + p(d.getUTCMinutes(), 2) + p(d.getUTCSeconds(), 2) + 'Z)'
}

/** A PDF name's delimiters and non-regular characters as #xx (`text/xml` → `text#2Fxml`). */
const nameEscape = (s: string): string =>
  s.replace(/[^!-~]|[#%/()<>[\]{}]/g, (c) => '#' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'))
