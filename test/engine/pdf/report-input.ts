// The example sales report (examples/templates/sales-report.json) with `n` generated rows and
// `document.pdf = { tagged }`: the input of the memory probes (rss-probe.ts, loop-probe.ts).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { RenderInput } from '../../../engine/types.js'
import { input } from './fixtures.js'

export function reportInput (n: number, tagged: boolean, versionKey: string): RenderInput {
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
  return { ...input(def, { sales }, limits, versionKey), parameters: { from: '2024-01-01', to: '2024-12-31' } }
}
