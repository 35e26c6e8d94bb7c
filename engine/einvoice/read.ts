// Reads the Invoice model (model.ts) from a render's data through the mapping's accessors
// (reader.ts: every value converted to its term's kind). The order of the reads is the order
// of the failures a render reports: lines first, then the totals, notes, exemption reasons and
// the header, the document allowances and charges, the supplied VAT rows.
import { rowScope, type EvalScope } from '../expr/expressions.js'
import { Dec } from './decimal.js'
import type { CompiledEinvoice } from './compile.js'
import type { AllowanceCharge, Invoice, Line, Party } from './model.js'
import type { AddressReader, AllowanceChargeReader, ListReader, PartyReader } from './reader.js'
import { toText } from './reader.js'
import { violation } from './violation.js'

export function readInvoice (ce: CompiledEinvoice, base: EvalScope): Invoice {
  const r = ce.reader
  const address = (a: AddressReader): Party['address'] => ({
    line1: a.line1(base),
    line2: a.line2(base),
    city: a.city(base),
    postcode: a.postcode(base),
    subdivision: a.subdivision(base),
    country: a.country(base)
  })
  const party = (p: PartyReader): Party => ({
    name: p.name(base),
    tradingName: p.tradingName(base),
    legalId: p.legalId(base),
    vatId: p.vatId(base),
    taxNumber: p.taxNumber(base),
    electronicAddress: p.electronicAddress(base),
    address: address(p.address),
    contact: { name: p.contact.name(base), phone: p.contact.phone(base), email: p.contact.email(base) }
  })
  /** Rows of a list, each read with `row` and `index` bound like a table's. */
  const each = <R, T>(list: string, l: ListReader<R>, read: (t: R, s: EvalScope, i: number) => T): T[] => {
    if (l.rows === undefined) return []
    const rows = l.rows(base)
    if (rows === null || rows === undefined) return []
    if (!Array.isArray(rows)) throw violation('SVC-TYPE', `${list}.rows`, `${list}.rows: expected a list of rows`)
    // One scope for every row: what an expression returns never holds its scope.
    const s = rowScope(base)
    const out: T[] = [] // not rows.map (lists.ts)
    for (let i = 0; i < rows.length; i++) {
      s.row = rows[i]
      s.index = i
      out.push(read(l.terms, s, i))
    }
    return out
  }
  const allowanceCharge = (charge: boolean) => (t: AllowanceChargeReader, s: EvalScope): AllowanceCharge => ({
    charge,
    amount: t.amount(s) ?? Dec.ZERO,
    reason: t.reason(s),
    reasonCode: t.reasonCode(s),
    category: t.category(s),
    rate: t.rate(s)
  })
  const lines = each('lines', r.lines, (t, s, i): Line => ({
    id: t.id(s) ?? String(i + 1),
    note: t.note(s),
    name: t.name(s),
    description: t.description(s),
    sellerId: t.sellerId(s),
    quantity: t.quantity(s),
    unit: t.unit(s),
    price: t.price(s),
    category: t.category(s),
    rate: t.rate(s),
    allowance: t.allowance(s),
    allowanceReason: t.allowanceReason(s),
    charge: t.charge(s),
    chargeReason: t.chargeReason(s),
    supplied: t.amount(s),
    net: Dec.ZERO
  }))
  const supplied = new Map<string, Dec>()
  for (const [key, get] of r.supplied) {
    const d = get(base)
    if (d !== null) supplied.set(key, d)
  }
  const notes = r.notes(base)
  const exemptionReasons: Record<string, string> = {}
  for (const [c, get] of r.exemptions) {
    const reason = get(base)
    if (reason !== undefined) exemptionReasons[c] = reason
  }
  const zero = Dec.ZERO
  const d = r.delivery
  const p = r.payment
  return {
    profile: ce.profile,
    number: r.number(base),
    issueDate: r.issueDate(base),
    typeCode: r.typeCode(base) ?? '380',
    currency: r.currency(base),
    dueDate: r.dueDate(base),
    buyerReference: r.buyerReference(base),
    contractReference: r.contractReference(base),
    orderReference: r.orderReference(base),
    paymentTerms: r.paymentTerms(base),
    notes: textsOf(notes),
    precedingInvoice: r.precedingInvoice(base),
    seller: party(r.seller),
    buyer: party(r.buyer),
    delivery: { name: d.name(base), date: d.date(base), address: address(d.address) },
    payment: {
      means: p.means(base),
      reference: p.reference(base),
      iban: p.iban(base),
      accountName: p.accountName(base),
      bic: p.bic(base),
      cardPan: p.cardPan(base),
      cardHolder: p.cardHolder(base),
      mandate: p.mandate(base),
      creditorId: p.creditorId(base),
      debitedIban: p.debitedIban(base)
    },
    exemptionReasons,
    lines,
    allowances: each('allowances', r.allowances, allowanceCharge(false)),
    charges: each('charges', r.charges, allowanceCharge(true)),
    vat: [],
    totals: {
      lineTotal: zero,
      allowances: zero,
      charges: zero,
      taxBasis: zero,
      tax: zero,
      grand: zero,
      prepaid: r.prepaid(base) ?? zero,
      due: zero
    },
    supplied,
    suppliedVat: each('vat', r.vat, (t, s) => ({
      category: t.category(s) ?? '',
      rate: t.rate(s),
      amount: t.amount(s) ?? zero
    }))
  }
}

/** The notes' texts, those that are not empty (see lists.ts for why a loop). */
function textsOf (notes: unknown): string[] {
  const out: string[] = []
  for (const n of Array.isArray(notes) ? notes as unknown[] : [notes]) {
    const t = toText(n)
    if (t !== undefined) out.push(t)
  }
  return out
}
