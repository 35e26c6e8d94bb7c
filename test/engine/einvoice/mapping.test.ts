// Publish-time validation of `document.einvoice` (validateAndCompile, what publishing and
// `svc templates validate` run): each problem names its JSON path and its business term.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { validateAndCompile } from '../../../engine/template/validate.js'
import { einvoiceTemplate, MAPPING } from './fixtures.js'

type Obj = Record<string, unknown>

function errors (template: Obj): Array<{ path: string, message: string }> {
  const r = validateAndCompile(template)
  return r.ok ? [] : r.errors
}

const without = (path: string, m: Obj = MAPPING): Obj => {
  const copy = structuredClone(m)
  const keys = path.split('.')
  let o = copy
  for (const k of keys.slice(0, -1)) o = o[k] as Obj
  Reflect.deleteProperty(o, keys[keys.length - 1]!)
  return copy
}

test('the fixture template is valid, and `invoice` is a known name in its layout', () => {
  const r = validateAndCompile(einvoiceTemplate())
  assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.errors))
  assert.ok(r.compiled.einvoice !== undefined)
  assert.equal(r.compiled.einvoice.profile, 'EN16931')
})

test('a missing mandatory term is an error naming its JSON path and BT number', () => {
  const errs = errors(einvoiceTemplate(without('seller.name')))
  assert.deepEqual(errs, [{ path: '/document/einvoice/seller/name', message: 'BT-27 Seller name is required' }])
  const lines = errors(einvoiceTemplate(without('lines.unit')))
  const unit = 'BT-130 Invoiced quantity unit of measure code is required'
  assert.deepEqual(lines, [{ path: '/document/einvoice/lines/unit', message: unit }])
})

test('XRECHNUNG requires its own terms, each named', () => {
  const errs = errors(einvoiceTemplate(without('buyerReference', { ...MAPPING, profile: 'XRECHNUNG' })))
  const message = 'BT-10 Buyer reference is required by XRechnung'
  assert.deepEqual(errs, [{ path: '/document/einvoice/buyerReference', message }])
  assert.deepEqual(errors(einvoiceTemplate(without('buyerReference'))), [], 'EN16931 does not require BT-10')
})

test('ill-typed constants, unknown terms and profiles, lists without rows are errors', () => {
  const m = {
    ...MAPPING, issueDate: '2026-13', currency: 'EURO', profile: 'PEPPOL', colour: 'blue', charges: { amount: '1' }
  }
  const errs = errors(einvoiceTemplate(m))
  const byPath = new Map(errs.map((e) => [e.path, e.message]))
  assert.match(byPath.get('/document/einvoice/issueDate') ?? '', /^BT-2 Invoice issue date: expected a date/)
  assert.match(byPath.get('/document/einvoice/currency') ?? '', /^BT-5 .*: "EURO" is not in ISO 4217/)
  assert.match(byPath.get('/document/einvoice/profile') ?? '', /unknown profile "PEPPOL"/)
  assert.match(byPath.get('/document/einvoice/colour') ?? '', /unknown term 'colour'/)
  assert.match(byPath.get('/document/einvoice/charges/rows') ?? '', /^BG-21 Document level charges: 'rows'/)
  assert.equal(errs.length, 5)
})

test('an e-invoice needs a PDF/A-3b document', () => {
  for (const pdf of [{}, { standard: 'PDF/A-2b' }]) {
    const errs = errors(einvoiceTemplate(MAPPING, pdf))
    assert.equal(errs.length, 1)
    assert.equal(errs[0]?.path, '/document/pdf/standard')
    assert.match(errs[0].message, /PDF\/A-3b/)
  }
})

test('expressions of the mapping are checked like the layout\'s: row fields by their dataset', () => {
  const m = structuredClone(MAPPING)
  ;(m.lines as Obj).name = '{{ row.descripton }}'
  const errs = errors(einvoiceTemplate(m))
  assert.equal(errs.length, 1)
  assert.equal(errs[0]?.path, '/document/einvoice/lines/name')
  assert.match(errs[0].message, /'descripton' is not a field of dataset 'lines'; did you mean row\.description/)
  const bad = { ...MAPPING, number: '{{ header.numbr }}' }
  assert.match(errors(einvoiceTemplate(bad))[0]?.message ?? '', /did you mean header\.number\?/)
})

test('`invoice` is unknown in a template without an e-invoice', () => {
  const t = einvoiceTemplate()
  const doc = t.document as Obj
  Reflect.deleteProperty(doc, 'einvoice')
  const errs = errors(t)
  const message = "'invoice.vat' is not a dataset of this template"
  assert.deepEqual(errs, [{ path: '/document/body/3/table/rows', message }])
  // Once the table is gone, the path check reports the other uses.
  const body = doc.body as Obj[]
  body.splice(3, 1)
  assert.ok(errors(t).some((e) => /unknown name 'invoice'/.test(e.message)), JSON.stringify(errors(t)))
})
