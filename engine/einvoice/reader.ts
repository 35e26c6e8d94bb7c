// The mapping as accessors, made once per template version (compile.ts): one function per term
// that evaluates its value and converts it to the term's kind, held in objects of fixed shape, so
// reading an invoice (read.ts) is a fixed sequence of calls, with no term keys built or looked
// up per render and per line. A constant's converted value is computed here, once. Missing
// values stay absent (rules.ts decides which are required); a value of the wrong kind fails the
// render naming its term.
import type { CompiledExpr, EvalScope } from '../expr/expressions.js'
import { Dec } from './decimal.js'
import { TERMS } from './terms.js'
import { violation } from './violation.js'

export type Getter = (scope: EvalScope) => unknown
export type TextOf = (scope: EvalScope) => string | undefined
export type DecOf = (scope: EvalScope) => Dec | null

/** Accessors of text terms (`K`) and of decimal terms (`D`), by field name. */
type Texts<K extends string> = Record<K, TextOf>
type Decs<D extends string> = Record<D, DecOf>

export type AddressReader = Texts<'line1' | 'line2' | 'city' | 'postcode' | 'subdivision' | 'country'>
export interface PartyReader
  extends Texts<'name' | 'tradingName' | 'legalId' | 'vatId' | 'taxNumber' | 'electronicAddress'> {
  address: AddressReader
  contact: Texts<'name' | 'phone' | 'email'>
}
/** A list's rows expression (undefined: not mapped) and its terms, read per row. */
export interface ListReader<T> { rows: CompiledExpr | undefined, terms: T }
export type LineReader =
  Texts<'id' | 'note' | 'name' | 'description' | 'sellerId' | 'unit' | 'category' | 'allowanceReason' | 'chargeReason'> &
  Decs<'quantity' | 'price' | 'rate' | 'allowance' | 'charge' | 'amount'>
export type AllowanceChargeReader = Texts<'reason' | 'reasonCode' | 'category'> & Decs<'amount' | 'rate'>

export interface InvoiceReader extends Texts<'number' | 'issueDate' | 'typeCode' | 'currency' | 'dueDate' |
  'buyerReference' | 'contractReference' | 'orderReference' | 'paymentTerms' | 'precedingInvoice'> {
  /** BT-22 as given: one note or a list of them. */
  notes: Getter
  seller: PartyReader
  buyer: PartyReader
  delivery: Texts<'name' | 'date'> & { address: AddressReader }
  payment: Texts<'means' | 'reference' | 'iban' | 'accountName' | 'bic' | 'cardPan' | 'cardHolder' | 'mandate' |
    'creditorId' | 'debitedIban'>
  /** The supplied totals (`totals.grand` …, not `totals.prepaid`) that are mapped, in term order. */
  supplied: Array<[string, DecOf]>
  prepaid: DecOf
  /** Mapped exemption reasons by category code, in E, AE, K, G, O order. */
  exemptions: Array<[string, TextOf]>
  lines: ListReader<LineReader>
  allowances: ListReader<AllowanceChargeReader>
  charges: ListReader<AllowanceChargeReader>
  vat: ListReader<Texts<'category'> & Decs<'rate' | 'amount'>>
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0')

export function toText (v: unknown): string | undefined {
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

const NONE = (): undefined => undefined
const NULL = (): null => null

/** `values`: term key → its getter; `constants`: the terms mapped to a constant, with it. */
export function compileReader (values: ReadonlyMap<string, Getter>, constants: ReadonlyMap<string, unknown>,
  rows: ReadonlyMap<string, CompiledExpr>): InvoiceReader {
  /** `convert` over the term's value; a constant converted once (one that fails, fails each render). */
  const accessor = <T>(key: string, get: Getter, convert: (v: unknown) => T): ((s: EvalScope) => T) => {
    if (constants.has(key)) {
      try {
        const v = convert(constants.get(key))
        return () => v
      } catch { /* below */ }
    }
    return (s) => convert(get(s))
  }
  const text = (key: string): TextOf => {
    const get = values.get(key)
    if (get === undefined) return NONE
    return accessor(key, get, TERMS.get(key)?.kind === 'date' ? (v) => toDate(v, key) : toText)
  }
  const dec = (key: string): DecOf => {
    const get = values.get(key)
    return get === undefined ? NULL : accessor(key, get, (v) => toDec(v, key))
  }
  const address = (a: string): AddressReader => ({
    line1: text(`${a}.line1`),
    line2: text(`${a}.line2`),
    city: text(`${a}.city`),
    postcode: text(`${a}.postcode`),
    subdivision: text(`${a}.subdivision`),
    country: text(`${a}.country`)
  })
  const party = (p: string): PartyReader => ({
    name: text(`${p}.name`),
    tradingName: text(`${p}.tradingName`),
    legalId: text(`${p}.legalId`),
    vatId: text(`${p}.vatId`),
    taxNumber: text(`${p}.taxNumber`),
    electronicAddress: text(`${p}.electronicAddress`),
    address: address(`${p}.address`),
    contact: { name: text(`${p}.contact.name`), phone: text(`${p}.contact.phone`), email: text(`${p}.contact.email`) }
  })
  const allowanceCharge = (l: string): ListReader<AllowanceChargeReader> => ({
    rows: rows.get(l),
    terms: {
      amount: dec(`${l}.amount`),
      reason: text(`${l}.reason`),
      reasonCode: text(`${l}.reasonCode`),
      category: text(`${l}.category`),
      rate: dec(`${l}.rate`)
    }
  })
  const line = (k: string): string => `lines.${k}`
  const lineTerms: LineReader = {
    id: text(line('id')),
    note: text(line('note')),
    name: text(line('name')),
    description: text(line('description')),
    sellerId: text(line('sellerId')),
    quantity: dec(line('quantity')),
    unit: text(line('unit')),
    price: dec(line('price')),
    category: text(line('category')),
    rate: dec(line('rate')),
    allowance: dec(line('allowance')),
    allowanceReason: text(line('allowanceReason')),
    charge: dec(line('charge')),
    chargeReason: text(line('chargeReason')),
    amount: dec(line('amount'))
  }
  const totals = [...TERMS.keys()].filter((k) => k.startsWith('totals.') && k !== 'totals.prepaid' && values.has(k))
  const pay = (k: string): TextOf => text(`payment.${k}`)
  return {
    number: text('number'),
    issueDate: text('issueDate'),
    typeCode: text('typeCode'),
    currency: text('currency'),
    dueDate: text('dueDate'),
    buyerReference: text('buyerReference'),
    contractReference: text('contractReference'),
    orderReference: text('orderReference'),
    paymentTerms: text('paymentTerms'),
    precedingInvoice: text('precedingInvoice'),
    notes: values.get('notes') ?? NONE,
    seller: party('seller'),
    buyer: party('buyer'),
    delivery: { name: text('delivery.name'), date: text('delivery.date'), address: address('delivery.address') },
    payment: {
      means: pay('means'),
      reference: pay('reference'),
      iban: pay('iban'),
      accountName: pay('accountName'),
      bic: pay('bic'),
      cardPan: pay('cardPan'),
      cardHolder: pay('cardHolder'),
      mandate: pay('mandate'),
      creditorId: pay('creditorId'),
      debitedIban: pay('debitedIban')
    },
    supplied: totals.map((k) => [k, dec(k)]),
    prepaid: dec('totals.prepaid'),
    exemptions: ['E', 'AE', 'K', 'G', 'O'].filter((c) => values.has(`exemptionReasons.${c}`))
      .map((c) => [c, text(`exemptionReasons.${c}`)]),
    lines: { rows: rows.get('lines'), terms: lineTerms },
    allowances: allowanceCharge('allowances'),
    charges: allowanceCharge('charges'),
    vat: {
      rows: rows.get('vat'),
      terms: { category: text('vat.category'), rate: dec('vat.rate'), amount: dec('vat.amount') }
    }
  }
}
