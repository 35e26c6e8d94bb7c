// Run as `node rss-probe.js ROWS tagged|untagged`: streams the example sales report with ROWS
// generated rows (past the held pages: counted, then drawn and written page by page) to a sink
// that drops the bytes, and prints this process's peak RSS (VmHWM) and the page count. Under
// --expose-gc also `betweenMB`: array-buffer memory still reachable when the counting pass is done
// and the count is announced (after a full collection), before the second pass writes anything.
import { readFileSync } from 'node:fs'
import type { OutputSink } from '../../../engine/pdf/render-pdf.js'
import { render } from '../../../engine/render.js'
import { getCompiled } from '../../../engine/template/cache.js'
import { reportInput } from './report-input.js'

const rows = Number(process.argv[2] ?? 0)
if (rows > 0) probe(rows, process.argv[3] === 'tagged')

function probe (n: number, tagged: boolean): void {
  const inp = reportInput(n, tagged, `rss:${tagged}`)
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
