// Run as `node rss-probe.js ROWS tagged|untagged`: streams the example sales report with ROWS
// generated rows (past the held pages: counted, then drawn and written page by page) to a sink
// that drops the bytes, and prints this process's peak RSS (VmHWM) and the page count. Under
// --expose-gc also `betweenMB`: array-buffer memory still reachable when the counting pass is done
// and the count is announced (after a full collection), before the second pass writes anything.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { OutputSink } from '../../../engine/pdf/render-pdf.js'
import { render } from '../../../engine/render.js'
import { getCompiled } from '../../../engine/template/cache.js'
import { input } from './fixtures.js'

const rows = Number(process.argv[2] ?? 0)
if (rows > 0) probe(rows, process.argv[3] === 'tagged')

function probe (n: number, tagged: boolean): void {
  const root = join(import.meta.dirname, '..', '..', '..', '..')
  const def = JSON.parse(readFileSync(join(root, 'examples', 'templates', 'sales-report.json'), 'utf8')) as {
    document: Record<string, unknown>
  }
  def.document.pdf = { tagged }
  // Rows share their strings: the input stays small next to what is measured.
  const regions = ['Central', 'East', 'North', 'South', 'West']
  const customers = Array.from({ length: 97 }, (_, k) => `Customer ${k} Trading Company International Holdings`)
  const products = ['Widget, standard, galvanised, with mounting kit and printed instructions', 'Cable 5 m, shielded']
  const sales = Array.from({ length: n }, (_, i) => ({
    region: regions[Math.floor(i * regions.length / n)],
    sold_on: '2024-03-05',
    customer: customers[i % 97],
    product: products[i % 2],
    qty: 1 + (i % 40),
    amount: '123.45'
  }))
  const limits = { maxRows: 1e7, maxPages: 1e6, maxBytes: 1e10 }
  const inp = { ...input(def, { sales }, limits, `rss:${tagged}`), parameters: { from: '2024-01-01', to: '2024-12-31' } }
  const gc = (globalThis as { gc?: () => void }).gc
  let betweenMB: number | undefined
  const count = (): void => {
    if (gc === undefined) return
    // Twice: V8 frees the backing stores of dead array buffers while sweeping, after the
    // collection returns; the second collection finishes the first one's sweep (with one, the
    // figure moved between 2.3 and 7 MB from run to run).
    gc()
    gc()
    betweenMB = process.memoryUsage().arrayBuffers / 2 ** 20
  }
  const sink: OutputSink = { count, write () {} }
  const r = render(getCompiled(inp.versionKey, inp.definition), inp, sink)
  const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1])
  process.stdout.write(JSON.stringify({ pages: r.pageCount, rssMB: hwm / 1024, betweenMB }))
}
