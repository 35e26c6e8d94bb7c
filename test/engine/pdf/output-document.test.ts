// engine/pdf/output-document.ts: pdfkit's document with its bytes handed to a sink as written,
// never through the Readable stream it is (whose first push queued a tick that kept it alive).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { OutputDocument } from '../../../engine/pdf/output-document.js'

const options = (o: Record<string, unknown>): PDFKit.PDFDocumentOptions =>
  ({ autoFirstPage: false, font: null, ...o }) as unknown as PDFKit.PDFDocumentOptions

interface StreamState { readableLength: number, _readableState: { readingMore: boolean } }

test('the header and every later write go to the sink, none into the stream', () => {
  const got: Uint8Array[] = []
  const doc = new OutputDocument(options({ pdfVersion: '1.7' }), (c) => got.push(c))
  doc._write('1 0 obj')
  const text = Buffer.concat(got).toString('latin1')
  assert.ok(text.startsWith('%PDF-1.7\n%\xff\xff\xff\xff\n'), JSON.stringify(text))
  assert.ok(text.endsWith('1 0 obj\n'))
  assert.equal(doc.bytes, Buffer.byteLength(text, 'latin1'))
  const state = doc as unknown as StreamState
  // A push into the stream buffers it and schedules a read-more tick (readingMore) holding the document.
  assert.equal(state.readableLength, 0)
  assert.equal(state._readableState.readingMore, false)
})

test('a constructor that threw after its header leaves nothing to the next document', () => {
  // pdfkit writes the header, then adds the first page, which an unknown size makes throw.
  assert.throws(() => new OutputDocument(options({ autoFirstPage: true, size: 'NO-SUCH-SIZE' }), () => {}))
  const got: Uint8Array[] = []
  const doc = new OutputDocument(options({}), (c) => got.push(c))
  assert.equal(Buffer.concat(got).toString('latin1').split('%PDF-').length, 2)
  assert.equal(doc.bytes, Buffer.concat(got).length)
})
