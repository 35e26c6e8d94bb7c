// The font stack on a long document (not a test): `node dist/bench/fonts-report.js [rows]`
// renders the example sales report (examples/templates/sales-report.json) with generated rows
// whose customers and products are Latin, Arabic, Chinese and Japanese, in a fresh process:
// a warm-up report of 200 rows under another template key (installed fonts are parsed there,
// once per worker), then the big one. Prints pages, wall and CPU time of the big render, bytes,
// peak RSS (VmHWM of the child) and the parsed-font cache's loads and hits.
// Figures go to bench/RESULTS.md ("# Engine: text of every script") by hand.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { render } from '../engine/render.js'
import { fontCacheStats } from '../engine/pdf/system-fonts.js'
import { getCompiled } from '../engine/template/cache.js'
import type { RenderInput } from '../engine/types.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const LIMITS = { maxPages: 100_000, maxBytes: 1e9, maxRows: 10_000_000, maxLabels: 1_000_000 }
const definition = readFileSync(root + 'examples/templates/sales-report.json', 'utf8')

const CUSTOMERS = [
  'Łódź Hurt Sp. z o.o.', 'شركة النور للتجارة', '上海贸易有限公司', 'Müller & Söhne GmbH', 'مؤسسة الخليج للمقاولات',
  '株式会社東京商事', 'Αθηναϊκή Εμπορική Α.Ε.', '北京科技发展有限公司', 'Torgovy Dom Moskva', 'دار الكتب الحديثة'
]
const PRODUCTS = [
  'Widget, standard, galvanised, with mounting kit', 'مضخة مياه كهربائية مع ضمان لمدة سنتين', '不锈钢弹簧套装（10件）',
  'Kabel 5 m, geschirmt, vergoldete Stecker', '電動ドリル、充電式バッテリー付き', 'جهاز قياس رقمي', '办公椅，可调节高度，带扶手'
]

function rows (n: number): Array<Record<string, unknown>> {
  const regions = ['Central', 'East', 'North', 'South', 'West']
  const out = []
  for (let i = 0; i < n; i++) {
    out.push({
      region: regions[Math.floor(i * regions.length / n)],
      sold_on: `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
      customer: `${CUSTOMERS[i % CUSTOMERS.length]} ${i % 97}`,
      product: PRODUCTS[(i * 3) % PRODUCTS.length],
      qty: 1 + (i % 40),
      amount: ((i * 37) % 5000 + 0.5).toFixed(2)
    })
  }
  return out
}

const inputFor = (key: string, n: number): RenderInput => ({
  versionKey: key,
  definition,
  parameters: { from: '2024-01-01', to: '2024-12-31' },
  context: { language: 'en' },
  datasets: { sales: rows(n) },
  limits: LIMITS
})

if (process.argv[2] === '--child') {
  const warm = inputFor('bench:fonts-warm', 200)
  render(getCompiled(warm.versionKey, warm.definition), warm)
  const big = inputFor('bench:fonts-report', Number(process.argv[3]))
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  const r = render(getCompiled(big.versionKey, big.definition), big)
  const ms = performance.now() - t0
  const c = process.cpuUsage(c0)
  // VmHWM, not getrusage's maxRSS: Linux carries maxRSS over from the forking parent.
  const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN)
  const { loads, hits } = fontCacheStats
  const cpuMs = (c.user + c.system) / 1000
  const rssMB = hwm / 1024
  process.stdout.write(JSON.stringify({ pages: r.pageCount, ms, cpuMs, bytes: r.bytes.length, rssMB, loads, hits }))
  process.exit(0)
}

const n = Number(process.argv[2] ?? 6000)
const load = loadavg().map((l) => l.toFixed(1)).join(' ')
interface Result { pages: number, ms: number, cpuMs: number, bytes: number, rssMB: number, loads: number, hits: number }
const child = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', String(n)],
  { encoding: 'utf8' })
const r = JSON.parse(child) as Result
console.log(`mixed Latin/Arabic/CJK sales report, ${n} rows: ${r.pages} pages, ${r.ms.toFixed(0)} ms wall, ` +
  `${r.cpuMs.toFixed(0)} ms CPU, ${(r.bytes / 1024).toFixed(0)} KB, peak RSS ${r.rssMB.toFixed(0)} MB (load ` +
    `average ${load})`)
console.log(`parsed-font cache: ${r.loads} loads, ${r.hits} hits (hit ` +
  `rate ${(100 * r.hits / (r.loads + r.hits)).toFixed(1)}%)`)
