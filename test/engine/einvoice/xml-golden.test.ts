// The CII XML is a contract with every receiver of an invoice: the XML of the example invoices,
// of every named case, of the XRechnung variant and of the 200-invoice corpus (under both
// profiles) must stay byte-identical. xml-golden.json holds the SHA-256 of each, written with
// main's build before the build was made cheaper (issue 33); a change that means to alter the
// XML regenerates it: `SVC_GOLDEN_WRITE=1 node --test dist/test/engine/einvoice/xml-golden.test.js`.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { test } from 'node:test'
import { einvoiceOf } from '../../../engine/einvoice/render-einvoice.js'
import { compileTemplate } from '../../../engine/template/compile.js'
import type { TemplateDefinition } from '../../../engine/template/definition.js'
import type { DatasetValues, RenderInput } from '../../../engine/types.js'
import { CASES, XRECHNUNG_CASE } from './cases.js'
import { corpusInvoice } from './corpus.js'
import { einvoiceTemplate, renderInput, type InvoiceData } from './fixtures.js'
import { CORPUS } from './rendered.js'

type Obj = Record<string, unknown>
const root = new URL('../../../../', import.meta.url)
const goldenFile = new URL('test/engine/einvoice/xml-golden.json', root)

function xmlOf (definition: Obj, input: RenderInput): string {
  const ce = compileTemplate(definition as unknown as TemplateDefinition).einvoice
  assert.ok(ce !== undefined, 'an e-invoice template')
  return einvoiceOf(ce, input).xml
}

const sha = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex')

/** Name → SHA-256 of its XML, for every input above. */
function hashes (): Record<string, string> {
  const out: Record<string, string> = {}
  const example = JSON.parse(readFileSync(new URL('examples/templates/invoice.json', root), 'utf8')) as Obj
  for (const f of ['invoice', 'invoice-arabic', 'invoice-hebrew']) {
    const datasets = JSON.parse(readFileSync(new URL(`examples/data/${f}.json`, root), 'utf8')) as DatasetValues
    out[`examples/data/${f}.json`] = sha(xmlOf(example, {
      versionKey: f,
      definition: '',
      parameters: { invoiceId: 42 },
      context: { language: 'en' },
      datasets,
      limits: { maxPages: 100, maxBytes: 50_000_000, maxRows: 100_000, maxLabels: 0 }
    }))
  }
  const one = (mapping: Obj, data: InvoiceData): string => {
    const t = einvoiceTemplate(mapping)
    return sha(xmlOf(t, renderInput(t, data)))
  }
  for (const c of CASES) out[`case: ${c.name}`] = one(c.mapping, c.data)
  out[`case: ${XRECHNUNG_CASE.name}`] = one(XRECHNUNG_CASE.mapping, XRECHNUNG_CASE.data)
  // The XRechnung mapping drops the delivery country, which K (intra-community) needs.
  for (let i = 0; i < CORPUS; i++) {
    const data = corpusInvoice(i)
    out[`corpus ${i}`] = one(CASES[0]!.mapping, data)
    if (data.scenario !== 'intra') out[`corpus ${i} XRechnung`] = one(XRECHNUNG_CASE.mapping, data)
  }
  return out
}

test('the XML of every example, case and corpus invoice is byte-identical to the recorded one', () => {
  const now = hashes()
  if (process.env.SVC_GOLDEN_WRITE === '1') writeFileSync(goldenFile, JSON.stringify(now, null, 1) + '\n')
  const golden = JSON.parse(readFileSync(goldenFile, 'utf8')) as Record<string, string>
  assert.deepEqual(now, golden)
})
