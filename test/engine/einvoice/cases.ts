// The named e-invoice situations every test renders: one per VAT situation and document kind
// the issue lists (domestic with several rates, credit note, intra-community supply, domestic
// reverse charge, document-level allowance and charge, non-euro currency, export, exempt,
// zero-rated, outside the scope of VAT).
import { invoiceData, MAPPING, type InvoiceData } from './fixtures.js'

type Obj = Record<string, unknown>
export interface Case { name: string, data: InvoiceData, mapping: Obj }

const lines = (category: string, rate: string | null): Obj[] => [
  {
    line_no: 1,
    sku: 'A-1',
    description: 'Widget',
    qty: '4',
    unit: 'H87',
    unit_price: '12.35',
    vat_category: category,
    vat_rate: rate
  },
  {
    line_no: 2,
    sku: 'B-2',
    description: 'Consulting',
    qty: '1.5',
    unit: 'HUR',
    unit_price: '120',
    vat_category: category,
    vat_rate: rate
  }
]

export const CASES: Case[] = [
  { name: 'domestic, two rates, line discount', data: invoiceData(), mapping: MAPPING },
  {
    name: 'credit note',
    data: invoiceData({ header: { number: 'CN-2026-0007', type_code: '381' } }),
    mapping: { ...MAPPING, precedingInvoice: 'RE-2026-0001' }
  },
  {
    name: 'intra-community supply (K)',
    data: invoiceData({
      header: {
        customer_name: 'Dupont SARL',
        customer_vat_id: 'FR12345678901',
        customer_country: 'FR',
        customer_city: 'Lyon',
        customer_postcode: '69001'
      },
      lines: lines('K', '0')
    }),
    mapping: MAPPING
  },
  { name: 'domestic reverse charge (AE)', data: invoiceData({ lines: lines('AE', '0') }), mapping: MAPPING },
  {
    name: 'document-level allowance and charge',
    data: invoiceData({
      allowances: [{ amount: '10.00', reason: 'Loyalty discount', category: 'S', rate: '19' }],
      charges: [{ amount: '4.95', reason: 'Freight', category: 'S', rate: '7' }]
    }),
    mapping: MAPPING
  },
  { name: 'non-euro currency (USD)', data: invoiceData({ header: { currency: 'USD' } }), mapping: MAPPING },
  {
    name: 'export (G)',
    data: invoiceData({
      header: {
        customer_vat_id: null,
        customer_country: 'CH',
        customer_city: 'Zürich',
        customer_postcode: '8001'
      },
      lines: lines('G', '0')
    }),
    mapping: MAPPING
  },
  {
    name: 'exempt (E)',
    data: invoiceData({ lines: lines('E', '0') }),
    mapping: {
      ...MAPPING,
      exemptionReasons: { E: 'Steuerfrei nach § 4 Nr. 14 UStG' }
    }
  },
  { name: 'zero rated (Z)', data: invoiceData({ lines: lines('Z', '0') }), mapping: MAPPING },
  {
    name: 'outside the scope of VAT (O)',
    data: invoiceData({
      header: { seller_vat_id: null, customer_vat_id: null },
      lines: lines('O', null)
    }),
    mapping: MAPPING
  }
]

/** The XRechnung variant: the same invoice under the XRECHNUNG profile. */
export const XRECHNUNG_CASE: Case = {
  name: 'XRechnung',
  data: invoiceData(),
  mapping: { ...MAPPING, profile: 'XRECHNUNG', delivery: { date: '{{ header.delivered_on }}' } }
}
