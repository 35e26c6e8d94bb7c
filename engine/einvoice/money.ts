// The money of an e-invoice, computed once (docs/einvoice.md, "Rounding"): line net amount =
// quantity × net price − line allowance + line charge, rounded to 2 decimals; per VAT category
// and rate, the taxable amount = its lines' net amounts − its document allowances + its
// document charges, and its VAT = taxable × rate / 100 rounded to 2 decimals (BR-CO-17: on the
// category total, never a sum of per-line VAT); totals per BR-CO-10 … BR-CO-16. Every rounding
// is half away from zero, every step exact (decimal.ts).
import { Dec } from './decimal.js'
import type { Invoice, VatRow } from './model.js'
import { DEFAULT_EXEMPTION } from './code-lists.js'

const HUNDRED = Dec.of(100n, 0)

/** `S/19`: the breakdown key of a category and rate (O has no rate). */
export const vatKey = (category: string | undefined, rate: Dec | null): string =>
  `${category ?? ''}/${rate === null ? '' : rate.toString()}`

export function lineNet (quantity: Dec | null, price: Dec | null, allowance: Dec | null, charge: Dec | null): Dec {
  let net = (quantity ?? Dec.ZERO).times(price ?? Dec.ZERO)
  if (allowance !== null) net = net.minus(allowance)
  if (charge !== null) net = net.plus(charge)
  return net.round(2)
}

/** Fills lines' `net`, `vat` and `totals` in place. */
export function computeMoney (inv: Invoice): void {
  const groups = new Map<string, VatRow>()
  const group = (category: string | undefined, rate: Dec | null): VatRow => {
    const key = vatKey(category, rate)
    let g = groups.get(key)
    if (g === undefined) {
      g = { category: category ?? '', rate, basis: Dec.ZERO, amount: Dec.ZERO }
      groups.set(key, g)
    }
    return g
  }
  for (const l of inv.lines) {
    l.net = lineNet(l.quantity, l.price, l.allowance, l.charge)
    const g = group(l.category, l.rate)
    g.basis = g.basis.plus(l.net)
  }
  for (const a of inv.allowances) { const g = group(a.category, a.rate); g.basis = g.basis.minus(a.amount.round(2)) }
  for (const c of inv.charges) { const g = group(c.category, c.rate); g.basis = g.basis.plus(c.amount.round(2)) }
  for (const g of groups.values()) {
    g.amount = g.rate === null ? Dec.ZERO : g.basis.times(g.rate).div(HUNDRED, 2)
    if (g.category !== 'S') g.exemption = inv.exemptionReasons[g.category] ?? DEFAULT_EXEMPTION[g.category]
  }
  // Loops, not map() and a spread: see lists.ts.
  const vat: VatRow[] = []
  for (const g of groups.values()) vat.push(g)
  inv.vat = vat
  const t = inv.totals
  t.lineTotal = total(inv.lines, (l) => l.net)
  t.allowances = total(inv.allowances, (a) => a.amount.round(2))
  t.charges = total(inv.charges, (c) => c.amount.round(2))
  t.taxBasis = t.lineTotal.minus(t.allowances).plus(t.charges)
  t.tax = total(vat, (v) => v.amount)
  t.grand = t.taxBasis.plus(t.tax)
  t.prepaid = t.prepaid.round(2)
  t.due = t.grand.minus(t.prepaid)
}

/** The sum of `f` over `xs`, exact (a loop rather than map() and a sum: see lists.ts). */
function total<T> (xs: readonly T[], f: (x: T) => Dec): Dec {
  let t = Dec.ZERO
  for (let i = 0; i < xs.length; i++) t = t.plus(f(xs[i]!)) // i < xs.length
  return t
}
