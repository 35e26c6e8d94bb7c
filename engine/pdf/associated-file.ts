// A file embedded in a PDF/A-3 document as an associated file (ISO 19005-3 6.8): the catalog's
// /AF array and the EmbeddedFiles name tree point to its file specification (/F, /UF,
// /AFRelationship, /Desc); the stream carries /Subtype (its MIME type) and /Params /ModDate.
// pdfkit's doc.file() writes exactly these objects; the dates are the document's fixed one, so
// the bytes stay deterministic. `xmp` is more rdf:Description elements for the document's XMP
// packet (the Factur-X extension schema and its properties).

export interface AssociatedFile {
  name: string
  /** MIME type, written as the stream's /Subtype (`text/xml` → `/text#2Fxml`). */
  mime: string
  relationship: 'Alternative' | 'Data' | 'Source' | 'Supplement' | 'Unspecified'
  description: string
  data: Buffer
  xmp: string
}

/** Extra input of a PDF render: more names for expressions, and files to embed. */
export interface PdfExtras {
  /** Added to the expression scope's names (e.g. `invoice`), beside the datasets. */
  names?: Record<string, unknown>
  files?: AssociatedFile[]
}

interface FileOptions {
  name: string
  type: string
  relationship: string
  description: string
  creationDate: Date
  modifiedDate: Date
}
/** pdfkit 0.20's attachment call; its type declarations leave out `relationship`. */
interface AttachDoc { file (src: Buffer, options: FileOptions): unknown }

export function embedAssociatedFile (doc: PDFKit.PDFDocument, f: AssociatedFile, date: Date): void {
  const options: FileOptions = {
    name: f.name,
    type: f.mime,
    relationship: f.relationship,
    description: f.description,
    creationDate: date,
    modifiedDate: date
  }
  ;(doc as unknown as AttachDoc).file(f.data, options)
}
