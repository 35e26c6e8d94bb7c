// The jsreport-style peer of `make bench` (issue 15): jsreport 4's core with the chrome-pdf
// recipe (HTML printed by headless Chromium, Debian's) and the handlebars engine, in this
// process, rendering the same invoices as an HTML template laid out like ours. Installed by
// `make bench-peers` (scripts/peers.sh) into .svc/peers, outside the project's dependencies;
// absent, the row is left out.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { InvoiceData } from './engine-baselines.js'

interface JsReport {
  use (extension: unknown): void
  init (): Promise<void>
  render (req: unknown): Promise<{ content: Buffer }>
  close (): Promise<void>
}

export interface JsReportPeer {
  version: string
  call (data: InvoiceData[]): (i: number) => Promise<boolean>
  close (): Promise<void>
}

const CSS = `body{font-family:Helvetica,Arial,sans-serif;font-size:10pt;margin:0}h1{font-size:18pt;margin:12pt 0}
.top{display:flex;justify-content:space-between;border-bottom:1px solid #1f3a5f;color:#1f3a5f}
.cols{display:flex;gap:40pt}.label{font-weight:bold;color:#555;font-size:9pt}
table{width:100%;border-collapse:collapse;margin-top:12pt}th{background:#1f3a5f;color:#fff;text-align:left;padding:3pt}
td{padding:3pt}tr:nth-child(even) td{background:#f2f2f2}.r{text-align:right}.totals td{background:none}`
const HTML = `<html><head><style>${CSS}</style></head><body>
<div class="top"><b>ACME Supplies Ltd</b><span>Invoice {{header.number}}</span></div>
<h1>Invoice {{header.number}}</h1>
<div class="cols"><div><div class="label">From</div>ACME Supplies Ltd<br>1 Dock Road<br>20457 Hamburg<br>Germany</div>
<div><div class="label">Bill to</div><b>{{header.customer_name}}</b><br>{{header.customer_address}}</div></div>
<div class="cols"><div><div class="label">Issued</div>{{header.issued_on}}</div><div><div class="label">Due</div>{{header.due_on}}</div>
<div><div class="label">Amount due</div><b>{{money header.total header.currency}}</b></div></div>
<table><tr><th class="r">#</th><th>SKU</th><th>Description</th><th class="r">Qty</th><th class="r">Unit price</th><th class="r">Amount</th></tr>
{{#each lines}}<tr><td class="r">{{line_no}}</td><td>{{sku}}</td><td>{{description}}</td><td class="r">{{qty}}</td>
<td class="r">{{money unit_price ../header.currency}}</td><td class="r">{{money amount ../header.currency}}</td></tr>{{/each}}
<tr class="totals"><td colspan="5" class="r">Subtotal</td><td class="r">{{money header.subtotal header.currency}}</td></tr>
<tr class="totals"><td colspan="5" class="r">Tax</td><td class="r">{{money header.tax header.currency}}</td></tr>
<tr class="totals"><td colspan="5" class="r"><b>Total</b></td><td class="r"><b>{{money header.total header.currency}}</b></td></tr>
</table></body></html>`
const HELPERS = `function money (v, cur) {
  return new Intl.NumberFormat('en', { style: 'currency', currency: String(cur) }).format(Number(v))
}`
// Page numbers in Chromium's footer, as our invoice has them.
const FOOTER = '<div style="font-size:8pt;width:100%;text-align:center">Page <span class="pageNumber"></span> of ' +
  '<span class="totalPages"></span></div>'

/** The peer, or undefined when `make bench-peers` has not installed it under `dir`. */
export async function jsreportPeer (dir: string, workers: number): Promise<JsReportPeer | undefined> {
  const modules = join(dir, 'node_modules')
  if (!existsSync(join(modules, '@jsreport/jsreport-core'))) return undefined
  const require = createRequire(join(modules, 'package.json'))
  const core = require('@jsreport/jsreport-core') as (options: unknown) => JsReport
  const version = (require('@jsreport/jsreport-core/package.json') as { version: string }).version
  const jsreport = core({
    store: { provider: 'memory' },
    logger: { silent: true },
    reportTimeout: 60_000,
    workers: { numberOfWorkers: workers },
    chrome: {
      strategy: 'chrome-pool',
      numberOfWorkers: workers,
      // Debian's Chromium; no sandbox as root in this VM. The marker (a switch Chromium ignores)
      // finds the browsers again: jsreport.close() leaves them running (measured: 120 processes
      // after a few runs).
      launchOptions: { executablePath: '/usr/bin/chromium', args: ['--no-sandbox', MARKER] }
    }
  })
  // CommonJS extensions: each module is a factory of the extension jsreport.use() takes.
  const extension = (name: string): unknown => (require(name) as () => unknown)()
  jsreport.use(extension('@jsreport/jsreport-chrome-pdf'))
  jsreport.use(extension('@jsreport/jsreport-handlebars'))
  await jsreport.init()
  const template = {
    content: HTML,
    helpers: HELPERS,
    engine: 'handlebars',
    recipe: 'chrome-pdf',
    chrome: {
      format: 'A4',
      displayHeaderFooter: true,
      footerTemplate: FOOTER,
      headerTemplate: '<div></div>',
      marginTop: '40px',
      marginBottom: '50px',
      marginLeft: '40px',
      marginRight: '40px'
    }
  }
  return {
    version,
    call: (data) => async (i) => {
      const r = await jsreport.render({ template, data: data[i % data.length] })
      return r.content.subarray(0, 5).toString('latin1') === '%PDF-'
    },
    close: async () => {
      await jsreport.close()
      killMarked()
    }
  }
}

const MARKER = `--svc-bench-peer=${process.pid}`

/** SIGKILL to the browsers this process started (their renderers exit with them). */
function killMarked (): void {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')
      if (args.includes(MARKER)) process.kill(Number(pid), 'SIGKILL')
    } catch { /* gone already, or not ours to read */ }
  }
}
