// One fixture per rule the engine checks natively (engine/einvoice/rules.ts): each breaks one
// rule of an otherwise valid invoice, and the render fails with RENDER_FAILED naming that
// rule's id and its business term. Nothing is written for a failing invoice.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { renderResult } from '../../../engine/render.js'
import { einvoiceTemplate, invoiceData, MAPPING, renderInput, type InvoiceData } from './fixtures.js'

type Obj = Record<string, unknown>
type Edit = (d: InvoiceData) => void
interface Fixture { rule: string, term: string, mapping?: (m: Obj) => Obj, data?: (d: InvoiceData) => void }

const NOTHING = '{{ header.nothing }}'
const set = (path: string, value: unknown) => (m: Obj): Obj => {
  const copy = structuredClone(m)
  const keys = path.split('.')
  let o = copy
  for (const k of keys.slice(0, -1)) o = (o[k] ??= {}) as Obj
  const last = keys[keys.length - 1]!
  if (value === undefined) Reflect.deleteProperty(o, last)
  else o[last] = value
  return copy
}
const header = (h: Obj): Edit => (d) => { Object.assign(d.header, h) }
const line0 = (l: Obj): Edit => (d) => { Object.assign(d.lines[0]!, l) }
const allLines = (l: Obj): Edit => (d) => { for (const x of d.lines) Object.assign(x, l) }
/** All lines in category `c` (rate `r`), then `more`. */
const every = (c: string, r: string | null, more: Edit = () => undefined): Edit => (d) => {
  allLines({ vat_category: c, vat_rate: r })(d)
  more(d)
}
const ac = (category: string | null, rate: string | null, reason?: string): Obj[] =>
  [{ amount: '1', reason, category, rate }]
const seller = (key: string, value: unknown): ((m: Obj) => Obj) => set(`seller.${key}`, value)

const FIXTURES: Fixture[] = [
  // Mandatory terms
  { rule: 'BR-02', term: 'BT-1', data: header({ number: null }) },
  { rule: 'BR-03', term: 'BT-2', data: header({ issued_on: null }) },
  { rule: 'BR-05', term: 'BT-5', data: header({ currency: '' }) },
  { rule: 'BR-06', term: 'BT-27', mapping: seller('name', NOTHING) },
  { rule: 'BR-07', term: 'BT-44', data: header({ customer_name: null }) },
  { rule: 'BR-09', term: 'BT-40', mapping: seller('address.country', NOTHING) },
  { rule: 'BR-11', term: 'BT-55', data: header({ customer_country: null }) },
  { rule: 'BR-16', term: 'BT-126', data: (d) => { d.lines = [] } },
  { rule: 'BR-22', term: 'BT-129', data: line0({ qty: null }) },
  { rule: 'BR-23', term: 'BT-130', data: line0({ unit: null }) },
  { rule: 'BR-25', term: 'BT-153', data: line0({ description: null }) },
  { rule: 'BR-26', term: 'BT-146', data: line0({ unit_price: null, amount: null }) },
  { rule: 'BR-27', term: 'BT-146', data: line0({ unit_price: '-1.00', amount: null }) },
  { rule: 'BR-CO-04', term: 'BT-151', data: line0({ vat_category: null }) },
  { rule: 'BR-41', term: 'BT-139', mapping: set('lines.allowanceReason', undefined) },
  { rule: 'BR-42', term: 'BT-144', mapping: set('lines.charge', '{{ row.sku == "SPR-001" ? 1 : null }}') },
  { rule: 'BR-32', term: 'BT-95', data: (d) => { d.allowances = ac(null, null, 'x') } },
  { rule: 'BR-33', term: 'BT-97', data: (d) => { d.allowances = ac('S', '19') } },
  { rule: 'BR-37', term: 'BT-102', data: (d) => { d.charges = ac(null, null, 'x') } },
  { rule: 'BR-38', term: 'BT-104', data: (d) => { d.charges = ac('S', '19') } },
  { rule: 'BR-49', term: 'BT-81', mapping: set('payment.means', NOTHING) },
  { rule: 'BR-61', term: 'BT-84', mapping: set('payment.iban', undefined) },
  { rule: 'BR-CO-09', term: 'BT-31', data: header({ seller_vat_id: '123456789' }) },
  { rule: 'BR-CO-25', term: 'BT-9', mapping: (m) => set('paymentTerms', undefined)(set('dueDate', undefined)(m)) },
  { rule: 'BR-CO-26', term: 'BT-31', mapping: seller('legalId', undefined), data: header({ seller_vat_id: null }) },
  // Calculation rules: supplied amounts against the computed ones
  { rule: 'BR-CO-10', term: 'BT-106', mapping: set('totals.lineTotal', '236.38') },
  { rule: 'BR-CO-11', term: 'BT-107', mapping: set('totals.allowances', '1.00') },
  { rule: 'BR-CO-12', term: 'BT-108', mapping: set('totals.charges', '1.00') },
  { rule: 'BR-CO-13', term: 'BT-109', mapping: set('totals.taxBasis', '236.36') },
  { rule: 'BR-CO-14', term: 'BT-110', mapping: set('totals.tax', '41.33') },
  { rule: 'BR-CO-15', term: 'BT-112', data: header({ total: '277.70' }) },
  { rule: 'BR-CO-16', term: 'BT-115', mapping: set('totals.due', '0') },
  {
    rule: 'BR-CO-17',
    term: 'BT-117',
    // 206.40 × 19 % = 39.216: per-line VAT (1.216 + 37.9985 → 39.21) is what this rule refuses.
    mapping: set('vat', {
      rows: 'vat', category: '{{ row.category }}', rate: '{{ row.rate }}', amount: '{{ row.amount }}'
    }),
    data: (d) => { (d as unknown as Obj).vat = [{ category: 'S', rate: '19', amount: '39.21' }] }
  },
  { rule: 'SVC-LINE-NET', term: 'BT-131', data: line0({ amount: '6.41' }) },
  // VAT categories
  { rule: 'BR-S-05', term: 'BT-152', data: line0({ vat_rate: '0' }) },
  { rule: 'BR-S-06', term: 'BT-96', data: (d) => { d.allowances = ac('S', '0', 'x') } },
  { rule: 'BR-S-07', term: 'BT-103', data: (d) => { d.charges = ac('S', null, 'x') } },
  { rule: 'BR-S-02', term: 'BT-31', data: header({ seller_vat_id: null }) },
  { rule: 'BR-Z-05', term: 'BT-152', data: line0({ vat_category: 'Z' }) },
  { rule: 'BR-Z-02', term: 'BT-31', data: every('Z', '0', header({ seller_vat_id: null })) },
  { rule: 'BR-E-05', term: 'BT-152', data: line0({ vat_category: 'E' }) },
  { rule: 'BR-E-02', term: 'BT-31', data: every('E', '0', header({ seller_vat_id: null })) },
  { rule: 'BR-AE-05', term: 'BT-152', data: line0({ vat_category: 'AE', vat_rate: '19' }) },
  { rule: 'BR-AE-02', term: 'BT-48', data: every('AE', '0', header({ customer_vat_id: null })) },
  { rule: 'BR-IC-05', term: 'BT-152', data: line0({ vat_category: 'K', vat_rate: '19' }) },
  { rule: 'BR-IC-02', term: 'BT-48', data: every('K', '0', header({ customer_vat_id: null })) },
  { rule: 'BR-IC-11', term: 'BT-72', data: every('K', '0', header({ delivered_on: null })) },
  { rule: 'BR-IC-12', term: 'BT-80', mapping: set('delivery.address', undefined), data: every('K', '0') },
  { rule: 'BR-G-05', term: 'BT-152', data: line0({ vat_category: 'G', vat_rate: '7' }) },
  { rule: 'BR-G-02', term: 'BT-31', data: every('G', '0', header({ seller_vat_id: null })) },
  { rule: 'BR-O-05', term: 'BT-152', data: every('O', null, line0({ vat_rate: '0' })) },
  { rule: 'BR-O-02', term: 'BT-31', data: every('O', null) },
  { rule: 'BR-O-04', term: 'BT-48', data: every('O', null, header({ seller_vat_id: null })) },
  { rule: 'BR-O-11', term: 'BT-151', data: line0({ vat_category: 'O', vat_rate: null }) },
  // Code lists
  { rule: 'BR-CL-01', term: 'BT-3', data: header({ type_code: '999' }) },
  { rule: 'BR-CL-04', term: 'BT-5', data: header({ currency: 'EURO' }) },
  { rule: 'BR-CL-14', term: 'BT-55', data: header({ customer_country: 'XX' }) },
  { rule: 'BR-CL-16', term: 'BT-81', mapping: set('payment.means', '{{ "99" }}') },
  { rule: 'BR-CL-17', term: 'BT-151', data: line0({ vat_category: 'L' }) },
  { rule: 'BR-CL-23', term: 'BT-130', data: line0({ unit: 'BOX' }) },
  // Values of the wrong kind
  { rule: 'SVC-TYPE', term: 'BT-146', data: line0({ unit_price: 'twelve' }) },
  { rule: 'SVC-TYPE', term: 'BT-2', data: header({ issued_on: '5 March 2026' }) }
]

const XR = (m: Obj): Obj => ({ ...m, profile: 'XRECHNUNG', delivery: { date: '{{ header.delivered_on }}' } })
const XRECHNUNG_FIXTURES: Fixture[] = [
  { rule: 'BR-DE-15', term: 'BT-10', data: header({ buyer_reference: null }) },
  { rule: 'PEPPOL-EN16931-R010', term: 'BT-49', data: header({ customer_email: null }) },
  { rule: 'PEPPOL-EN16931-R020', term: 'BT-34', mapping: seller('electronicAddress', NOTHING) },
  { rule: 'BR-DE-3', term: 'BT-37', mapping: seller('address.city', NOTHING) },
  { rule: 'BR-DE-4', term: 'BT-38', mapping: seller('address.postcode', NOTHING) },
  { rule: 'BR-DE-5', term: 'BT-41', mapping: seller('contact.name', NOTHING) },
  { rule: 'BR-DE-6', term: 'BT-42', mapping: seller('contact.phone', NOTHING) },
  { rule: 'BR-DE-7', term: 'BT-43', mapping: seller('contact.email', NOTHING) },
  { rule: 'BR-DE-8', term: 'BT-52', data: header({ customer_city: null }) },
  { rule: 'BR-DE-9', term: 'BT-53', data: header({ customer_postcode: null }) },
  { rule: 'BR-DE-1', term: 'BT-81', mapping: set('payment', { means: NOTHING }) },
  { rule: 'BR-DE-10', term: 'BT-77', mapping: set('delivery.address', { country: 'DE', postcode: '10115' }) },
  { rule: 'BR-DE-11', term: 'BT-78', mapping: set('delivery.address', { country: 'DE', city: 'Berlin' }) },
  { rule: 'BR-DE-16', term: 'BT-31', mapping: seller('legalId', 'HRB 1'), data: header({ seller_vat_id: null }) },
  { rule: 'BR-DE-25-b', term: 'BT-91', mapping: set('payment', { means: '59', mandate: 'M-1' }) }
]

function render (f: Fixture, base: Obj): ReturnType<typeof renderResult> {
  const data = invoiceData()
  f.data?.(data)
  const mapping = f.mapping !== undefined ? f.mapping(base) : base
  return renderResult(renderInput(einvoiceTemplate(mapping), data))
}

test('the unbroken fixtures render (so each failure below is its one broken rule)', () => {
  assert.equal(render({ rule: '', term: '' }, MAPPING).ok, true)
  assert.equal(render({ rule: '', term: '' }, XR(MAPPING)).ok, true)
})

const PROFILES = [['EN16931', FIXTURES, MAPPING], ['XRECHNUNG', XRECHNUNG_FIXTURES, XR(MAPPING)]] as const
for (const [profile, list, base] of PROFILES) {
  for (const f of list) {
    test(`${profile}: ${f.rule} (${f.term}) fails the render with its rule id`, () => {
      const r = render(f, base)
      assert.equal(r.ok, false, `${f.rule}: the render succeeded`)
      assert.equal(r.code, 'RENDER_FAILED')
      assert.match(r.message, new RegExp(`e-invoice rule ${f.rule.replace(/-/g, '\\-')} \\(${f.term} `), r.message)
    })
  }
}
