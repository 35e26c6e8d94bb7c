// The invoice as the engine holds it after reading the mapping: text terms as strings (absent
// when empty), amounts as exact decimals, dates as YYYY-MM-DD. money.ts fills the computed parts.
import type { Dec } from './decimal.js'
import type { Profile } from './compile.js'

export interface Address {
  line1?: string
  line2?: string
  city?: string
  postcode?: string
  subdivision?: string
  country?: string
}
export interface Contact { name?: string, phone?: string, email?: string }

export interface Party {
  name?: string
  tradingName?: string
  legalId?: string
  vatId?: string
  taxNumber?: string
  electronicAddress?: string
  address: Address
  contact: Contact
}

export interface Line {
  id: string
  note?: string
  name?: string
  description?: string
  sellerId?: string
  quantity: Dec | null
  unit?: string
  price: Dec | null
  category?: string
  rate: Dec | null
  allowance: Dec | null
  allowanceReason?: string
  charge: Dec | null
  chargeReason?: string
  /** BT-131 as the data source supplied it (checked against `net`). */
  supplied: Dec | null
  /** BT-131 computed: quantity × price − allowance + charge, rounded to 2 decimals. */
  net: Dec
}

export interface AllowanceCharge {
  charge: boolean
  amount: Dec
  reason?: string
  reasonCode?: string
  category?: string
  rate: Dec | null
}

/** One row of the VAT breakdown (BG-23), computed. */
export interface VatRow { category: string, rate: Dec | null, basis: Dec, amount: Dec, exemption?: string }

export interface Totals {
  lineTotal: Dec
  allowances: Dec
  charges: Dec
  taxBasis: Dec
  tax: Dec
  grand: Dec
  prepaid: Dec
  due: Dec
}

export interface Invoice {
  profile: Profile
  number?: string
  issueDate?: string
  typeCode: string
  currency?: string
  dueDate?: string
  buyerReference?: string
  contractReference?: string
  orderReference?: string
  paymentTerms?: string
  notes: string[]
  precedingInvoice?: string
  seller: Party
  buyer: Party
  delivery: { name?: string, date?: string, address: Address }
  payment: {
    means?: string
    reference?: string
    iban?: string
    accountName?: string
    bic?: string
    cardPan?: string
    cardHolder?: string
    mandate?: string
    creditorId?: string
    debitedIban?: string
  }
  exemptionReasons: Record<string, string>
  lines: Line[]
  allowances: AllowanceCharge[]
  charges: AllowanceCharge[]
  vat: VatRow[]
  totals: Totals
  /** Amounts the data source supplied, by term key (`totals.grand` …) and the supplied VAT rows. */
  supplied: Map<string, Dec>
  suppliedVat: Array<{ category: string, rate: Dec | null, amount: Dec }>
}
