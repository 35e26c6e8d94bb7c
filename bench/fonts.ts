// Cost of the font stack (not a test): `node dist/bench/fonts.js` renders the example invoice
// with its German customer (standard Helvetica only) and with Polish, Greek, Arabic and Chinese
// customers (embedded Noto subsets) on this thread, and prints the medians, the ratio to the
// standard-font invoice (CPU time per render), the size added and the hit rate of the
// parsed-font cache. `node dist/bench/fonts.js [renders per customer, default 2000]`.
// Figures go to bench/RESULTS.md ("# Engine: text of every script") by hand.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { render } from '../engine/render.js'
import { fontCacheStats } from '../engine/pdf/system-fonts.js'
import { getCompiled } from '../engine/template/cache.js'
import type { RenderInput, Row } from '../engine/types.js'
import { median } from './stats.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const LIMITS = { maxPages: 1000, maxBytes: 1e9, maxRows: 1e6, maxLabels: 1e6 }
const definition = readFileSync(root + 'examples/templates/invoice.json', 'utf8')
const data = JSON.parse(readFileSync(root + 'examples/data/invoice.json', 'utf8')) as { header: Row, lines: Row[] }
const N = Number(process.argv[2] ?? 2000)

const customers: Array<[string, string, string]> = [
  ['standard (German, WinAnsi)', 'Müller & Söhne GmbH', 'Musterstraße 12\n10115 Berlin\nGermany'],
  ['Polish', 'Łódź Hurt Sp. z o.o.', 'ul. Piotrkowska 90\n90-103 Łódź\nPoland'],
  ['Greek', 'Αθηναϊκή Εμπορική Α.Ε.', 'Ερμού 25\n105 63 Αθήνα\nΕλλάδα'],
  ['Arabic', 'شركة النور للتجارة', 'شارع التحرير 15\nالقاهرة 11511\nمصر'],
  ['Chinese', '上海贸易有限公司', '南京路100号\n上海 200001\n中国']
]

let base = { ms: 0, bytes: 0 }
for (const [label, name, address] of customers) {
  const input: RenderInput = {
    versionKey: 'bench:invoice',
    definition,
    parameters: { invoiceId: 1 },
    context: { language: 'en' },
    datasets: { header: { ...data.header, customer_name: name, customer_address: address }, lines: data.lines },
    limits: LIMITS
  }
  const compiled = getCompiled(input.versionKey, definition)
  for (let i = 0; i < 300; i++) render(compiled, input)
  // CPU time of batches of 50 (steadier than wall time on shared cores), median batch.
  const cpu: number[] = []
  let bytes = 0
  for (let b = 0; b < N / 50; b++) {
    const c0 = process.cpuUsage()
    for (let i = 0; i < 50; i++) bytes = render(compiled, input).bytes.length
    const c = process.cpuUsage(c0)
    cpu.push((c.user + c.system) / 1000 / 50)
  }
  const ms = median(cpu)
  if (base.ms === 0) base = { ms, bytes }
  console.log(`| ${label} | ${ms.toFixed(3)} ms | ${(ms / base.ms).toFixed(2)}× | ${bytes} B | ` +
    `+${((bytes - base.bytes) / 1024).toFixed(1)} KB |`)
}
const { loads, hits } = fontCacheStats
console.log(`parsed-font cache: ${loads} loads, ${hits} hits (hit rate ${(100 * hits / (loads + hits)).toFixed(2)}%)`)
