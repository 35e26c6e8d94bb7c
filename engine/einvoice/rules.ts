// The EN 16931 rules the engine checks natively before it writes an e-invoice (docs/einvoice.md,
// "Rules checked natively"): mandatory terms, the calculation rules BR-CO-10 … BR-CO-17 against
// the amounts a data source supplies, the VAT category rules (S, Z, E, AE, K, G, O), the code
// lists, and XRechnung's own requirements. Every violation is collected; the render fails with
// all of them (the first five in the message), each naming its rule id and its term.
import { RenderError } from '../errors.js'
import type { Dec } from './decimal.js'
import { codeList } from './compile.js'
import type { AllowanceCharge, Invoice, Line } from './model.js'
import { vatKey } from './money.js'
import { anyGiven, describe, type Violation } from './violation.js'
import { categoryRules } from './vat-category-rules.js'
import { xrechnungRules } from './xrechnung-rules.js'

const MAX_SHOWN = 5

export function checkInvoice (inv: Invoice): void {
  const v: Violation[] = []
  const need = (rule: string, key: string, value: unknown): void => {
    if (value === undefined || value === null) v.push({ rule, key, detail: 'is required' })
  }
  const code = (key: string, value: string | undefined, at = ''): void => {
    const list = codeList(key)
    if (value !== undefined && list !== null && !list.codes.has(value)) {
      v.push({
        rule: list.rule,
        key,
        detail: `${at}${JSON.stringify(value)} is not in ${list.name}`
      })
    }
  }
  need('BR-02', 'number', inv.number)
  need('BR-03', 'issueDate', inv.issueDate)
  need('BR-05', 'currency', inv.currency)
  need('BR-06', 'seller.name', inv.seller.name)
  need('BR-07', 'buyer.name', inv.buyer.name)
  need('BR-09', 'seller.address.country', inv.seller.address.country)
  need('BR-11', 'buyer.address.country', inv.buyer.address.country)
  if (inv.lines.length === 0) v.push({ rule: 'BR-16', key: 'lines.id', detail: 'an invoice has at least one line' })
  code('typeCode', inv.typeCode)
  code('currency', inv.currency)
  code('seller.address.country', inv.seller.address.country)
  code('buyer.address.country', inv.buyer.address.country)
  code('delivery.address.country', inv.delivery.address.country)
  code('payment.means', inv.payment.means)
  if (inv.seller.vatId === undefined && inv.seller.legalId === undefined) {
    v.push({
      rule: 'BR-CO-26',
      key: 'seller.vatId',
      detail: 'the seller VAT identifier (BT-31) or legal registration identifier (BT-30) is required'
    })
  }
  for (const [key, id] of [['seller.vatId', inv.seller.vatId], ['buyer.vatId', inv.buyer.vatId]] as const) {
    if (id !== undefined && !/^[A-Z]{2}/.test(id)) {
      v.push({
        rule: 'BR-CO-09',
        key,
        detail: `${JSON.stringify(id)} must start with a country prefix`
      })
    }
  }
  const paymentGiven = anyGiven(inv.payment)
  if (paymentGiven) need('BR-49', 'payment.means', inv.payment.means)
  if ((inv.payment.means === '30' || inv.payment.means === '58') && inv.payment.iban === undefined) {
    v.push({
      rule: 'BR-61',
      key: 'payment.iban',
      detail: `is required for credit transfer (payment means ${inv.payment.means})`
    })
  }
  if (inv.totals.due.sign() > 0 && inv.dueDate === undefined && inv.paymentTerms === undefined) {
    v.push({
      rule: 'BR-CO-25',
      key: 'dueDate',
      detail: 'an amount is due: give the due date (BT-9) or the payment terms (BT-20)'
    })
  }
  for (const l of inv.lines) lineRules(l, v)
  for (const a of inv.allowances) allowanceChargeRules(a, v)
  for (const c of inv.charges) allowanceChargeRules(c, v)
  categoryRules(inv, v)
  calculationRules(inv, v)
  if (inv.profile === 'XRECHNUNG') xrechnungRules(inv, v)
  if (v.length > 0) {
    const shown = v.slice(0, MAX_SHOWN).map(describe)
    throw new RenderError('RENDER_FAILED', shown.join('; ') + (v.length > MAX_SHOWN
      ? `; and ${v.length - MAX_SHOWN} more`
      : ''))
  }
}

// Per line: nothing is built (not even the `line 7: ` prefix) unless a rule is broken.
const UNIT = codeList('lines.unit')
const at = (l: Line): string => `line ${l.id}: `

function lineRules (l: Line, v: Violation[]): void {
  const need = (rule: string, key: string, value: unknown): void => {
    if (value === undefined || value === null) v.push({ rule, key, detail: `${at(l)}is required` })
  }
  need('BR-22', 'lines.quantity', l.quantity)
  need('BR-23', 'lines.unit', l.unit)
  need('BR-25', 'lines.name', l.name)
  need('BR-26', 'lines.price', l.price)
  need('BR-CO-04', 'lines.category', l.category)
  if (l.price !== null && l.price.sign() < 0) {
    v.push({
      rule: 'BR-27',
      key: 'lines.price',
      detail: `${at(l)}the net price must not be negative`
    })
  }
  if (l.allowance !== null && l.allowanceReason === undefined) {
    v.push({
      rule: 'BR-41',
      key: 'lines.allowanceReason',
      detail: `${at(l)}a line allowance needs its reason`
    })
  }
  if (l.charge !== null && l.chargeReason === undefined) {
    v.push({
      rule: 'BR-42',
      key: 'lines.chargeReason',
      detail: `${at(l)}a line charge needs its reason`
    })
  }
  if (l.unit !== undefined && UNIT !== null && !UNIT.codes.has(l.unit)) {
    v.push({
      rule: UNIT.rule,
      key: 'lines.unit',
      detail: `${at(l)}${JSON.stringify(l.unit)} is not in ${UNIT.name}`
    })
  }
  if (l.supplied !== null && !l.supplied.eq(l.net)) {
    v.push({
      rule: 'SVC-LINE-NET',
      key: 'lines.amount',
      detail: `${at(l)}supplied ${l.supplied.toString()}, but quantity × price − allowance + charge = ${l.net.toString(2)}`
    })
  }
}

function allowanceChargeRules (a: AllowanceCharge, v: Violation[]): void {
  const list = a.charge ? 'charges' : 'allowances'
  if (a.category === undefined) {
    v.push({
      rule: a.charge ? 'BR-37' : 'BR-32',
      key: `${list}.category`,
      detail: 'is required'
    })
  }
  if (a.reason === undefined && a.reasonCode === undefined) {
    v.push({
      rule: a.charge ? 'BR-38' : 'BR-33',
      key: `${list}.reason`,
      detail: 'the reason or its code is required'
    })
  }
}

/** The supplied amounts against the computed ones (money.ts). */
function calculationRules (inv: Invoice, v: Violation[]): void {
  const checks: Array<[string, string, Dec]> = [
    ['BR-CO-10', 'totals.lineTotal', inv.totals.lineTotal],
    ['BR-CO-11', 'totals.allowances', inv.totals.allowances],
    ['BR-CO-12', 'totals.charges', inv.totals.charges],
    ['BR-CO-13', 'totals.taxBasis', inv.totals.taxBasis],
    ['BR-CO-14', 'totals.tax', inv.totals.tax],
    ['BR-CO-15', 'totals.grand', inv.totals.grand],
    ['BR-CO-16', 'totals.due', inv.totals.due]
  ]
  for (const [rule, key, computed] of checks) {
    const given = inv.supplied.get(key)
    if (given !== undefined && !given.eq(computed)) {
      v.push({
        rule,
        key,
        detail: `supplied ${given.toString()}, computed ${computed.toString(2)}`
      })
    }
  }
  const byKey = new Map(inv.vat.map((r) => [vatKey(r.category, r.rate), r]))
  for (const s of inv.suppliedVat) {
    const r = byKey.get(vatKey(s.category, s.rate))
    const label = `${s.category} ${s.rate?.toString() ?? ''}%`
    if (r === undefined) {
      v.push({
        rule: 'BR-CO-17',
        key: 'vat.amount',
        detail: `supplied VAT for ${label}, a category and rate no line has`
      })
    } else if (!r.amount.eq(s.amount)) {
      v.push({
        rule: 'BR-CO-17',
        key: 'vat.amount',
        detail: `${label}: supplied ${s.amount.toString()},` +
        ` taxable ${r.basis.toString(2)} × rate = ${r.amount.toString(2)}`
      })
    }
  }
}
