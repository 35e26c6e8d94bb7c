import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { createRenderPool } from '../../pool/render-pool.js'
import type { RenderInput } from '../../engine/types.js'
import { input, invoiceDefinition, invoiceHeader, invoiceLines } from '../engine/pdf/fixtures.js'

// 10,000 renders: part of `make test`, left out of the quick engine loop (`make test-engine`).
const datasets = [
  { code: 'header', cardinality: 'single', query: 'SELECT 1', fields: [] },
  { code: 'lines', cardinality: 'multiple', query: 'SELECT 1', fields: [] }
]
const def = { ...invoiceDefinition(), datasets }
const small = (key: string): RenderInput => input(def, { header: invoiceHeader, lines: invoiceLines(10) }, {}, key)

const pools: Array<{ close (): Promise<void> }> = []
after(async () => { for (const p of pools) await p.close() })

test('workers do not keep finished documents: memory stays flat over thousands of renders', async () => {
  const pool = createRenderPool({ threads: 2, maxQueue: 64, timeoutMs: 10_000 })
  pools.push(pool)
  const renderMany = async (n: number): Promise<void> => {
    let left = n
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (left-- > 0) assert.ok((await pool.render(small('pool:mem'))).ok)
    }))
  }
  // Warm up: worker heaps grow to their working size over the first few thousand renders
  // (measured: +~95 MB by 5,000, then flat to 40,000), so the measured stretch starts after.
  await renderMany(5000)
  const before = process.memoryUsage().rss
  await renderMany(5000)
  const grown = (process.memoryUsage().rss - before) / 1e6
  // A leak of the size once measured here (~50 KB per render) would add ~250 MB.
  assert.ok(grown < 100, `RSS grew by ${grown.toFixed(0)} MB over 5,000 renders`)
})
