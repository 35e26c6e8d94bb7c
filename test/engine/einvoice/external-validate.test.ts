// The engine's e-invoices checked by the official validators (../shared/einvoice/validate):
// every named case and a generated corpus of 200 invoices in ONE Factur-X EN 16931 run, the
// XRechnung variant in an XRechnung 3.0 run. Both runs start together and overlap.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { CASES } from './cases.js'
import { CORPUS, renderAll, type RenderedSet } from './rendered.js'
import { validate, type FileResult } from './tools.js'

let set: RenderedSet
let facturx: Promise<FileResult[]>
let xrechnung: Promise<FileResult[]>

before(() => {
  set = renderAll()
  facturx = validate('facturx', set.files.map((f) => f.file))
  xrechnung = validate('xrechnung', [set.xrechnung.file])
})
after(() => { set.remove() })

test('the corpus is what the issue asks for: 200 invoices, 1 to 300 lines, every VAT situation', () => {
  assert.equal(set.files.length, CASES.length + CORPUS)
  assert.ok(set.files.some((f) => f.long))
  for (const s of ['standard', 'zero', 'exempt', 'reverse', 'intra', 'export', 'outside']) {
    assert.ok(set.files.some((f) => f.name.includes(`(${s},`)), s)
  }
})

function problems (r: { profiles: Array<{ xsdErrors: unknown[], errors: unknown[] }> }): unknown[] {
  return r.profiles.flatMap((p) => [...p.xsdErrors, ...p.errors])
}

test('every case and the 200-invoice corpus pass the Factur-X EN 16931 validator with 0 errors (one run)', async () => {
  const results = await facturx
  const files = set.files
  assert.equal(results.length, files.length)
  for (const [i, r] of results.entries()) {
    assert.equal(r.profiles[0]?.profile, 'facturx')
    assert.deepEqual(problems(r), [], `${files[i]!.name}: ${JSON.stringify(problems(r)).slice(0, 2000)}`)
  }
})

test('the XRechnung variant passes the XRechnung 3.0 validator with 0 errors', async () => {
  const r = (await xrechnung).at(0)
  assert.ok(r !== undefined)
  assert.equal(r.profiles[0]?.profile, 'xrechnung')
  assert.deepEqual(problems(r), [])
})
