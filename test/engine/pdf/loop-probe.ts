// Run as `node --expose-gc loop-probe.js N tagged|untagged|pdfa`: renders a small sales report N times
// in one synchronous loop (no turn of the event loop in between, as a benchmark or a batch does),
// then prints the array-buffer and heap memory still reachable after full collections, in MB.
import { render } from '../../../engine/render.js'
import { getCompiled } from '../../../engine/template/cache.js'
import { reportInput } from './report-input.js'

const n = Number(process.argv[2] ?? 0)
if (n > 0) probe(n, process.argv[3] ?? 'untagged')

/** `pdfa`: untagged PDF/A-3b, whose documents also hold embedded font programs. */
function probe (count: number, mode: string): void {
  const inp = reportInput(40, mode === 'tagged', `loop:${mode}`)
  if (mode === 'pdfa') {
    const def = JSON.parse(inp.definition) as { document: Record<string, unknown> }
    def.document.pdf = { standard: 'PDF/A-3b', tagged: false }
    inp.definition = JSON.stringify(def)
  }
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error('run with --expose-gc')
  const compiled = getCompiled(inp.versionKey, inp.definition)
  render(compiled, inp)
  // Twice: dead array buffers are freed while sweeping, after the first collection returns.
  gc(); gc()
  const before = process.memoryUsage()
  let bytes = 0
  for (let i = 0; i < count; i++) bytes += render(compiled, inp).bytes.length
  gc(); gc()
  const after = process.memoryUsage()
  const mb = (x: number): number => x / 2 ** 20
  process.stdout.write(JSON.stringify({
    documentMB: mb(bytes / count),
    arrayBuffersMB: mb(after.arrayBuffers - before.arrayBuffers),
    heapMB: mb(after.heapUsed - before.heapUsed)
  }))
}
