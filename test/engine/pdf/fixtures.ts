// Test fixtures: an invoice template in the layout syntax of docs/layout.md, data, helpers
// that run poppler/zbar on real output.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RenderInput, RenderLimits } from '../../../engine/types.js'

export const LIMITS: RenderLimits = { maxPages: 1000, maxBytes: 50_000_000, maxRows: 100_000, maxLabels: 10_000 }

export const invoiceDocument = {
  page: { size: 'A4', orientation: 'portrait', margins: [40, 40, 50, 40] },
  styles: {
    title: { font: 'Helvetica-Bold', size: 18 },
    small: { font: 'Helvetica', size: 8, color: '#555555' },
    th: { font: 'Helvetica-Bold', size: 9 },
    total: { font: 'Helvetica-Bold', size: 11 }
  },
  defaultStyle: { font: 'Helvetica', size: 9 },
  pageHeader: [{ text: '{{ header.company }}', style: 'small', align: 'right' }, { spacer: 6 }],
  body: [
    { text: 'Invoice {{ header.number }}', style: 'title' },
    { spacer: 8 },
    {
      columns: [
        {
          width: '50%',
          items: [{ text: 'Bill to', style: 'th' }, {
            text: '{{ header.customer_name }}\n{{ header.customer_address }}'
          }]
        },
        {
          width: '*',
          items: [{
            text: 'Date: {{ header.date }}',
            align: 'right'
          }, { text: 'Due: {{ header.due }}', align: 'right' }]
        }
      ]
    },
    { spacer: 10 },
    {
      table: {
        rows: 'lines',
        zebra: '#f2f2f2',
        headerStyle: 'th',
        headerFill: '#dddddd',
        lineColor: '#cccccc',
        repeatHeader: true,
        columns: [
          { header: 'SKU', value: '{{ row.sku }}', width: 60 },
          { header: 'Item', value: '{{ row.description }}', width: '*' },
          { header: 'Qty', value: '{{ row.qty }}', width: 40, align: 'right' },
          { header: 'Amount', value: '{{ formatNumber(row.amount, 2) }}', width: 80, align: 'right' }
        ]
      }
    },
    { line: {} },
    { text: 'Total {{ formatNumber(sum(lines, "amount"), 2) }} {{ header.currency }}', style: 'total', align: 'right' },
    { spacer: 10 },
    { barcode: { type: 'code128', value: '{{ header.number }}', height: 30, text: true } }
  ],
  pageFooter: [{ text: 'Page {{ page }} of {{ pages }}', align: 'center', style: 'small' }]
}

export function invoiceDefinition (
  document: unknown = invoiceDocument,
  assets: Record<string, unknown> = {}
): Record<string, unknown> {
  return { code: 'invoice', format: 'document', parameters: [], datasets: [], document, assets }
}

export function invoiceLines (n: number): Array<Record<string, unknown>> {
  const out = []
  for (let i = 1; i <= n; i++) {
    out.push({
      sku: `SKU-${String(i).padStart(4, '0')}`,
      description: `Widget model ${i} with a reasonably long description`,
      qty: (i % 5) + 1,
      amount: String((i * 7.25).toFixed(2)),
      region: i <= n / 2 ? 'North' : 'South'
    })
  }
  return out
}

export const invoiceHeader = {
  number: 'INV-2026-0042',
  company: 'ACME Tools Ltd',
  customer_name: 'Globex Corporation',
  customer_address: '12 Industrial Way, Springfield',
  date: '2026-11-21',
  due: '2026-12-21',
  currency: 'EUR'
}

export function input (
  definition: unknown, datasets: Record<string, unknown>, limits: Partial<RenderLimits> = {}, versionKey = 'test:1'
): RenderInput {
  return {
    versionKey,
    definition: JSON.stringify(definition),
    parameters: {},
    context: { language: 'en' },
    datasets: datasets as RenderInput['datasets'],
    limits: { ...LIMITS, ...limits }
  }
}

/** Runs `fn` with the PDF written to a temp file; the folder is removed afterwards. */
export function withPdf<T> (bytes: Uint8Array, fn: (file: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-test-'))
  try {
    const file = join(dir, 'out.pdf')
    writeFileSync(file, bytes)
    return fn(file, dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export function pdfText (bytes: Uint8Array, page?: number): string {
  return withPdf(bytes, (file) => {
    const args = ['-layout', ...(page !== undefined ? ['-f', String(page), '-l', String(page)] : []), file, '-']
    return execFileSync('pdftotext', args, { encoding: 'utf8' })
  })
}

export function pdfInfo (bytes: Uint8Array): { pages: number, size: string, raw: string } {
  return withPdf(bytes, (file) => {
    const raw = execFileSync('pdfinfo', [file], { encoding: 'utf8' })
    return { pages: Number(/Pages:\s+(\d+)/.exec(raw)?.[1]), size: /Page size:\s+(.*)/.exec(raw)?.[1] ?? '', raw }
  })
}

/** Rasterises page 1 at 300 dpi and returns what zbarimg decodes (one line per symbol). */
export function decodeBarcodes (bytes: Uint8Array): string[] {
  return withPdf(bytes, (file, dir) => {
    execFileSync('pdftoppm', ['-r', '300', '-png', '-f', '1', '-l', '1', file, join(dir, 'p')])
    const png = execFileSync('sh', ['-c', `ls ${dir}/p*.png`], { encoding: 'utf8' }).trim()
    let out = ''
    try {
      out = execFileSync('zbarimg', ['--raw', '-q', png], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    } catch (err) {
      out = String((err as { stdout?: string }).stdout ?? '')
    }
    return out.split('\n').filter((l) => l.length > 0)
  })
}

export function writeDebug (name: string, bytes: Uint8Array): void {
  if (process.env.PDF_DEBUG_DIR !== undefined) writeFileSync(join(process.env.PDF_DEBUG_DIR, name), bytes)
}

/** Rasterises page 1 at 300 dpi and returns the Data Matrix symbols dmtxread finds (zbar has no Data Matrix). */
export function decodeDataMatrix (bytes: Uint8Array): string[] {
  return withPdf(bytes, (file, dir) => {
    execFileSync('pdftoppm', ['-r', '150', '-png', '-f', '1', '-l', '1', file, join(dir, 'p')])
    const png = execFileSync('sh', ['-c', `ls ${dir}/p*.png`], { encoding: 'utf8' }).trim()
    const out = execFileSync('dmtxread', ['-n', '-m', '20000', png],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    return out.split('\n').filter((l) => l.length > 0)
  })
}

export function normalisedLines (text: string): string[] {
  return text.split('\n').map((l) => l.trim().replace(/\s+/g, ' ')).filter((l) => l.length > 0)
}
