// Run as `node --expose-gc heap-probe.js LINES`: streams an invoice of LINES lines (page X of Y
// in its footer) to a sink that drops the bytes, and prints the most heap the render kept
// alive, sampled after a full GC every 64 writes of the PDF writer, above what was in use before it began.
import type { OutputSink } from '../../workers/pdf/render-pdf.js'
import { render } from '../../workers/render.js'
import { getCompiled } from '../../workers/template/cache.js'
import { input, invoiceDefinition, invoiceHeader } from './pdf/fixtures.js'

// The test runner also loads this file as a test file (no arguments): then it does nothing.
const gc = (globalThis as { gc?: () => void }).gc
const lines = Number(process.argv[2] ?? 0)
if (gc !== undefined && lines > 0) probe(gc, lines)

function probe (gc: () => void, lines: number): void {
  // Rows share their strings: the input itself stays small next to what is measured.
  const descriptions = Array.from({ length: 50 }, (_, i) => `Widget model ${i} with a reasonably long description`)
  const skus = Array.from({ length: 1000 }, (_, i) => `SKU-${i}`)
  const rows = Array.from({ length: lines }, (_, i) =>
    ({ sku: skus[i % 1000], description: descriptions[i % 50], qty: 1 + (i % 5), amount: '12.50' }))
  const limits = { maxRows: 1e7, maxPages: 1e6, maxBytes: 1e9 }
  const inp = input(invoiceDefinition(), { header: invoiceHeader, lines: rows }, limits)
  const compiled = getCompiled(inp.versionKey, inp.definition)
  gc()
  const base = process.memoryUsage().heapUsed
  let pieces = 0
  let peak = 0
  let bytes = 0
  const sink: OutputSink = {
    count () {},
    write (chunk) {
      bytes += chunk.length
      if (++pieces % 64 !== 0) return
      gc()
      peak = Math.max(peak, process.memoryUsage().heapUsed - base)
    }
  }
  const r = render(compiled, inp, sink)
  process.stdout.write(JSON.stringify({ pages: r.pageCount, bytes, pieces, keptMB: peak / 1024 / 1024 }))
}
