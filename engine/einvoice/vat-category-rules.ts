// The VAT category rules of EN 16931 (BR-S, BR-Z, BR-E, BR-AE, BR-IC for K, BR-G, BR-O): the rate
// each category allows on lines (-05), document allowances (-06) and charges (-07), and the
// parties' identifiers each category needs or forbids.
import type { Dec } from './decimal.js'
import type { Invoice } from './model.js'
import type { Violation } from './violation.js'

const CATEGORY_RULE: ReadonlyMap<string, string> = new Map([
  ['S', 'BR-S'], ['Z', 'BR-Z'], ['E', 'BR-E'], ['AE', 'BR-AE'], ['K', 'BR-IC'], ['G', 'BR-G'], ['O', 'BR-O']
])

/** Rate rules per category (lines -05, allowances -06, charges -07) and the parties each category needs (-02 …). */
export function categoryRules (inv: Invoice, v: Violation[]): void {
  const seen = new Set<string>()
  // `at` only when a rule is broken: building `line 7: ` for every line cost more than the checks.
  const item = (category: string | undefined, rate: Dec | null, key: string, suffix: string,
    at: () => string): void => {
    if (category === undefined) return
    const prefix = CATEGORY_RULE.get(category)
    if (prefix === undefined) {
      const detail = `${at()}${JSON.stringify(category)} is not in UNCL 5305 (S, Z, E, AE, K, G, O)`
      v.push({ rule: 'BR-CL-17', key: `${key}.category`, detail })
      return
    }
    seen.add(category)
    const broken = (detail: string): void => { v.push({ rule: `${prefix}-${suffix}`, key: `${key}.rate`, detail }) }
    if (category === 'O') {
      if (rate !== null) broken(`${at()}category O (outside the scope of VAT) has no VAT rate`)
    } else if (rate === null) broken(`${at()}category ${category} needs a VAT rate`)
    else if (category === 'S' ? rate.sign() <= 0 : !rate.isZero()) {
      broken(`${at()}category ${category} needs a rate ${category === 'S' ? 'above 0' : 'of 0'}, got ${rate.toString()}`)
    }
  }
  for (const l of inv.lines) item(l.category, l.rate, 'lines', '05', () => `line ${l.id}: `)
  for (const a of inv.allowances) item(a.category, a.rate, 'allowances', '06', () => 'allowance: ')
  for (const c of inv.charges) item(c.category, c.rate, 'charges', '07', () => 'charge: ')
  const s = inv.seller; const b = inv.buyer
  for (const c of seen) {
    const prefix = CATEGORY_RULE.get(c) ?? ''
    if (['S', 'Z', 'E'].includes(c) && s.vatId === undefined && s.taxNumber === undefined) {
      v.push({
        rule: `${prefix}-02`,
        key: 'seller.vatId',
        detail: `category ${c} needs the seller VAT identifier (BT-31) or tax registration identifier (BT-32)`
      })
    }
    if (['AE', 'K', 'G'].includes(c) && s.vatId === undefined) {
      v.push({
        rule: `${prefix}-02`,
        key: 'seller.vatId',
        detail: `category ${c} needs the seller VAT identifier`
      })
    }
    if (c === 'AE' && b.vatId === undefined && b.legalId === undefined) {
      v.push({
        rule: 'BR-AE-02',
        key: 'buyer.vatId',
        detail: 'reverse charge needs the buyer VAT identifier (BT-48) or legal registration identifier (BT-47)'
      })
    }
    if (c === 'K' && b.vatId === undefined) {
      v.push({
        rule: 'BR-IC-02',
        key: 'buyer.vatId',
        detail: 'an intra-community supply needs the buyer VAT identifier'
      })
    }
    if (c === 'K' && inv.delivery.date === undefined) {
      v.push({
        rule: 'BR-IC-11',
        key: 'delivery.date',
        detail: 'an intra-community supply needs the actual delivery date'
      })
    }
    if (c === 'K' && inv.delivery.address.country === undefined) {
      v.push({
        rule: 'BR-IC-12',
        key: 'delivery.address.country',
        detail: 'an intra-community supply needs the deliver-to country'
      })
    }
    if (c === 'O') {
      if (s.vatId !== undefined) {
        v.push({
          rule: 'BR-O-02',
          key: 'seller.vatId',
          detail: 'an invoice outside the scope of VAT (O) has no seller VAT identifier'
        })
      }
      if (b.vatId !== undefined) {
        v.push({
          rule: 'BR-O-04',
          key: 'buyer.vatId',
          detail: 'an invoice outside the scope of VAT (O) has no buyer VAT identifier'
        })
      }
      if (seen.size > 1) {
        v.push({
          rule: 'BR-O-11',
          key: 'lines.category',
          detail: 'category O cannot be mixed with other VAT categories'
        })
      }
    }
  }
}
