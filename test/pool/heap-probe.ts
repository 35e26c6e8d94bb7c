// Run as `node --expose-gc heap-probe.js LINES`: streams an invoice of LINES lines (page X of Y
// in its footer: counted first, then drawn with every page written as it is finished) to a
// sink that drops the bytes, and prints the heap the render keeps alive, sampled after a full
// GC at the page count and every SAMPLE_EVERY writes of the drawing pass, as [bytes written so
// far, heap above what was in use before it began]. Memory that grows with the pages shows as a
// slope over the bytes; one render gives it, and a full GC per sample is most of the probe's cost.
import type { OutputSink } from '../../engine/pdf/render-pdf.js'
import { render } from '../../engine/render.js'
import { getCompiled } from '../../engine/template/cache.js'
import { input, invoiceDefinition, invoiceHeader } from '../engine/pdf/fixtures.js'

/** About 15 writes per page: a sample every ~34 pages. */
const SAMPLE_EVERY = 512

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
  let bytes = 0
  let counted = false
  const samples: Array<[number, number]> = []
  const sink: OutputSink = {
    // The count comes after the counting pass: what follows is the drawing pass.
    count () {
      counted = true
      gc()
      samples.push([0, process.memoryUsage().heapUsed - base])
    },
    write (chunk) {
      bytes += chunk.length
      if (!counted || ++pieces % SAMPLE_EVERY !== 0) return
      gc()
      samples.push([bytes, process.memoryUsage().heapUsed - base])
    }
  }
  const r = render(compiled, inp, sink)
  process.stdout.write(JSON.stringify({ pages: r.pageCount, bytes, pieces, samples }))
}
