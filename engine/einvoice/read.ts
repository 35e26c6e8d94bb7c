// Evaluates the compiled mapping against a render's data: the Invoice model (model.ts) with
// every value converted to its term's kind. A value of the wrong kind fails the render naming
// the term; missing values stay absent (rules.ts decides which are required).
import { RenderError } from '../errors.js'
import type { EvalScope } from '../expr/expressions.js'
import { Dec } from './decimal.js'
import type { CompiledEinvoice } from './compile.js'
import type { AllowanceCharge, Invoice, Line, Party } from './model.js'
import { TERMS, termLabel } from './terms.js'

/** The render failure for a broken rule: `e-invoice rule BR-CO-15 (BT-112 …): detail`. */
export function violation (rule: string, key: string, detail: string): RenderError {
  return new RenderError('RENDER_FAILED', `e-invoice rule ${rule} (${termLabel(key)}): ${detail}`)
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0')

function toText (v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined
  if (v instanceof Date) return v.toISOString()
  const s = typeof v === 'string'
    ? v
    : typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint'
      ? String(v)
      : null
  if (s === null) return undefined
  const t = s.trim()
  return t === '' ? undefined : t
}

function toDate (v: unknown, key: string): string | undefined {
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) throw violation('SVC-TYPE', key, 'not a valid date')
    // DATE columns carry no zone: read in UTC, as formatDate prints them.
    return `${pad(v.getUTCFullYear(), 4)}-${pad(v.getUTCMonth() + 1)}-${pad(v.getUTCDate())}`
  }
  const s = toText(v)
  if (s === undefined) return undefined
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$/.exec(s)
  if (m === null) throw violation('SVC-TYPE', key, `expected a date (YYYY-MM-DD), got ${JSON.stringify(s)}`)
  return `${m[1]}-${m[2]}-${m[3]}`
}

function toDec (v: unknown, key: string): Dec | null {
  if (v === null || v === undefined || v === '') return null
  const d = Dec.parse(v)
  if (d === null) throw violation('SVC-TYPE', key, `expected a decimal number, got ${JSON.stringify(v)}`)
  return d
}

export function readInvoice (ce: CompiledEinvoice, base: EvalScope): Invoice {
  const raw = (key: string, scope: EvalScope = base): unknown => ce.values.get(key)?.(scope)
  const text = (key: string, scope?: EvalScope): string | undefined => {
    const v = raw(key, scope)
    return TERMS.get(key)?.kind === 'date' ? toDate(v, key) : toText(v)
  }
  const dec = (key: string, scope?: EvalScope): Dec | null => toDec(raw(key, scope), key)
  const party = (p: string): Party => ({
    name: text(`${p}.name`),
    tradingName: text(`${p}.tradingName`),
    legalId: text(`${p}.legalId`),
    vatId: text(`${p}.vatId`),
    taxNumber: text(`${p}.taxNumber`),
    electronicAddress: text(`${p}.electronicAddress`),
    address: address(`${p}.address`),
    contact: { name: text(`${p}.contact.name`), phone: text(`${p}.contact.phone`), email: text(`${p}.contact.email`) }
  })
  const address = (a: string): Party['address'] => ({
    line1: text(`${a}.line1`),
    line2: text(`${a}.line2`),
    city: text(`${a}.city`),
    postcode: text(`${a}.postcode`),
    subdivision: text(`${a}.subdivision`),
    country: text(`${a}.country`)
  })
  /** Rows of a list, each read with `row` and `index` bound like a table's. */
  const each = <T>(list: string, read: (s: EvalScope, i: number) => T): T[] => {
    const rowsOf = ce.rows.get(list)
    if (rowsOf === undefined) return []
    const rows = rowsOf(base)
    if (rows === null || rows === undefined) return []
    if (!Array.isArray(rows)) throw violation('SVC-TYPE', `${list}.rows`, `${list}.rows: expected a list of rows`)
    return rows.map((row, i) => read({ ...base, row, index: i }, i))
  }
  const allowanceCharge = (list: 'allowances' | 'charges') => (s: EvalScope): AllowanceCharge => ({
    charge: list === 'charges',
    amount: dec(`${list}.amount`, s) ?? Dec.ZERO,
    reason: text(`${list}.reason`, s),
    reasonCode: text(`${list}.reasonCode`, s),
    category: text(`${list}.category`, s),
    rate: dec(`${list}.rate`, s)
  })
  const lines = each('lines', (s, i): Line => ({
    id: text('lines.id', s) ?? String(i + 1),
    note: text('lines.note', s),
    name: text('lines.name', s),
    description: text('lines.description', s),
    sellerId: text('lines.sellerId', s),
    quantity: dec('lines.quantity', s),
    unit: text('lines.unit', s),
    price: dec('lines.price', s),
    category: text('lines.category', s),
    rate: dec('lines.rate', s),
    allowance: dec('lines.allowance', s),
    allowanceReason: text('lines.allowanceReason', s),
    charge: dec('lines.charge', s),
    chargeReason: text('lines.chargeReason', s),
    supplied: dec('lines.amount', s),
    net: Dec.ZERO
  }))
  const supplied = new Map<string, Dec>()
  for (const key of TERMS.keys()) {
    if (!key.startsWith('totals.') || key === 'totals.prepaid') continue
    const d = dec(key)
    if (d !== null) supplied.set(key, d)
  }
  const notes = raw('notes')
  const exemptionReasons: Record<string, string> = {}
  for (const c of ['E', 'AE', 'K', 'G', 'O']) {
    const r = text(`exemptionReasons.${c}`)
    if (r !== undefined) exemptionReasons[c] = r
  }
  const zero = Dec.ZERO
  return {
    profile: ce.profile,
    number: text('number'),
    issueDate: text('issueDate'),
    typeCode: text('typeCode') ?? '380',
    currency: text('currency'),
    dueDate: text('dueDate'),
    buyerReference: text('buyerReference'),
    contractReference: text('contractReference'),
    orderReference: text('orderReference'),
    paymentTerms: text('paymentTerms'),
    notes: (Array.isArray(notes) ? notes : [notes]).map(toText).filter((n): n is string => n !== undefined),
    precedingInvoice: text('precedingInvoice'),
    seller: party('seller'),
    buyer: party('buyer'),
    delivery: { name: text('delivery.name'), date: text('delivery.date'), address: address('delivery.address') },
    payment: {
      means: text('payment.means'),
      reference: text('payment.reference'),
      iban: text('payment.iban'),
      accountName: text('payment.accountName'),
      bic: text('payment.bic'),
      cardPan: text('payment.cardPan'),
      cardHolder: text('payment.cardHolder'),
      mandate: text('payment.mandate'),
      creditorId: text('payment.creditorId'),
      debitedIban: text('payment.debitedIban')
    },
    exemptionReasons,
    lines,
    allowances: each('allowances', allowanceCharge('allowances')),
    charges: each('charges', allowanceCharge('charges')),
    vat: [],
    totals: {
      lineTotal: zero,
      allowances: zero,
      charges: zero,
      taxBasis: zero,
      tax: zero,
      grand: zero,
      prepaid: dec('totals.prepaid') ?? zero,
      due: zero
    },
    supplied,
    suppliedVat: each('vat', (s) => ({
      category: text('vat.category', s) ?? '',
      rate: dec('vat.rate', s),
      amount: dec('vat.amount', s) ?? zero
    }))
  }
}
