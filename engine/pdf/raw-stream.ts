// A stream object written with bytes that are final already: a cached font program, the
// deflated ICC profile. pdfkit's PDFReference.finalize first copies every stream's chunks into a
// new zero-filled array, so each document paid an allocation and a copy of bytes that never
// change (~20 KB per embedded standard face). Written here the way finalize writes it
// (`n 0 obj`, the dictionary, `stream`, the bytes, `endstream`, `endobj`), the bytes handed on as
// they are, and the offset recorded through pdfkit's _refEnd like any of its own objects.

/** What of a pdfkit document an object is written through (render-pdf.ts installs _write). */
export interface ObjectWriter {
  _offset: number
  _write (data: string | Uint8Array): void
  _refEnd (ref: { id: number, offset: number }): void
}

/** The reference pdfkit made for the stream (doc.ref()); it is ended here, never by pdfkit. */
interface StreamRef { id: number, offset: number }

/**
 * Writes `ref` as a stream of `bytes`, its dictionary `dict` (pdfDictOpen's text: `<<` and
 * entries, not closed) with /Length added last, as pdfkit orders it.
 */
export function endStream (doc: object, ref: unknown, dict: string, bytes: Uint8Array): void {
  const out = doc as unknown as ObjectWriter
  const r = ref as StreamRef
  r.offset = out._offset
  out._write(r.id + ' 0 obj')
  out._write(dict + '\n/Length ' + bytes.length + '\n>>')
  out._write('stream')
  out._write(bytes)
  out._write('\nendstream')
  out._write('endobj')
  out._refEnd(r)
}
