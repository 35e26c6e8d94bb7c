// An e-invoice template (the mapping of docs/einvoice.md over three datasets) and its data,
// shared by the e-invoice tests. `einvoiceTemplate(over)` changes the mapping, `invoiceData`
// the rows.
import { createHash } from 'node:crypto'
import type { DatasetValues, RenderInput } from '../../../engine/types.js'

type Obj = Record<string, unknown>

export const MAPPING: Obj = {
  number: '{{ header.number }}',
  issueDate: '{{ header.issued_on }}',
  typeCode: '{{ header.type_code }}',
  currency: '{{ header.currency }}',
  dueDate: '{{ header.due_on }}',
  buyerReference: '{{ header.buyer_reference }}',
  paymentTerms: 'Net 30 days',
  seller: {
    name: 'ACME Supplies GmbH',
    vatId: '{{ header.seller_vat_id }}',
    legalId: 'HRB 12345',
    electronicAddress: 'billing@acme.example',
    address: { line1: 'Dockstraße 1', city: 'Hamburg', postcode: '20457', country: 'DE' },
    contact: { name: 'Accounts', phone: '+49 40 123456', email: 'accounts@acme.example' }
  },
  buyer: {
    name: '{{ header.customer_name }}',
    vatId: '{{ header.customer_vat_id }}',
    electronicAddress: '{{ header.customer_email }}',
    address: {
      line1: '{{ header.customer_street }}',
      city: '{{ header.customer_city }}',
      postcode: '{{ header.customer_postcode }}',
      country: '{{ header.customer_country }}'
    }
  },
  delivery: { date: '{{ header.delivered_on }}', address: { country: '{{ header.customer_country }}' } },
  payment: { means: '58', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', reference: '{{ header.number }}' },
  allowances: {
    rows: 'allowances',
    amount: '{{ row.amount }}',
    reason: '{{ row.reason }}',
    category: '{{ row.category }}',
    rate: '{{ row.rate }}'
  },
  charges: {
    rows: 'charges',
    amount: '{{ row.amount }}',
    reason: '{{ row.reason }}',
    category: '{{ row.category }}',
    rate: '{{ row.rate }}'
  },
  lines: {
    rows: 'lines',
    id: '{{ row.line_no }}',
    name: '{{ row.description }}',
    sellerId: '{{ row.sku }}',
    quantity: '{{ row.qty }}',
    unit: '{{ row.unit }}',
    price: '{{ row.unit_price }}',
    category: '{{ row.vat_category }}',
    rate: '{{ row.vat_rate }}',
    allowance: '{{ row.discount }}',
    allowanceReason: '{{ row.discount ? "Discount" : null }}',
    amount: '{{ row.amount }}'
  },
  totals: { grand: '{{ header.total }}' }
}

const field = (name: string, type = 'string'): Obj => ({ name, type })

export function einvoiceTemplate (mapping: Obj = MAPPING, pdf: Obj = { standard: 'PDF/A-3b' }): Obj {
  return {
    code: 'einvoice',
    format: 'document',
    datasets: [
      {
        code: 'header',
        cardinality: 'single',
        query: 'SELECT * FROM invoices',
        fields: ['number', 'seller_vat_id', 'issued_on', 'due_on', 'delivered_on', 'type_code', 'currency',
          'buyer_reference',
          'customer_name',
          'customer_vat_id', 'customer_email', 'customer_street', 'customer_city', 'customer_postcode',
          'customer_country', 'total']
          .map((n) => field(n))
      },
      {
        code: 'lines',
        cardinality: 'multiple',
        query: 'SELECT * FROM lines',
        fields: ['line_no', 'sku', 'description',
          'qty', 'unit', 'unit_price', 'vat_category', 'vat_rate', 'discount', 'amount'].map((n) => field(n))
      },
      {
        code: 'allowances',
        cardinality: 'multiple',
        query: 'SELECT * FROM a',
        fields: ['amount', 'reason', 'category',
          'rate'].map((n) => field(n))
      },
      {
        code: 'charges',
        cardinality: 'multiple',
        query: 'SELECT * FROM c',
        fields: ['amount', 'reason', 'category',
          'rate'].map((n) => field(n))
      }
    ],
    document: {
      pdf,
      info: { title: 'Invoice' },
      einvoice: mapping,
      body: [
        { text: '{{ invoice.creditNote ? "Credit note" : "Invoice" }} {{ header.number }}' },
        { text: 'Bill to {{ header.customer_name }}' },
        {
          table: {
            rows: 'lines',
            columns: [
              { header: 'Item', value: '{{ row.description }}', width: '*' },
              { header: 'Qty', value: '{{ row.qty }} {{ row.unit }}', width: 60 },
              { header: 'Price', value: '{{ row.unit_price }}', width: 60, align: 'right' },
              { header: 'VAT', value: '{{ row.vat_category }} {{ row.vat_rate }}', width: 50 }
            ]
          }
        },
        {
          table: {
            rows: 'invoice.vat',
            columns: [
              { header: 'VAT', value: 'VAT {{ row.category }} {{ row.rate }}%', width: 120 },
              { header: 'Taxable', value: 'basis={{ row.basis }}', width: 120, align: 'right' },
              { header: 'Amount', value: 'vat={{ row.amount }}', width: 120, align: 'right' }
            ]
          }
        },
        { text: 'LineTotal={{ invoice.totals.lineTotal }}' },
        { text: 'TaxBasis={{ invoice.totals.taxBasis }}' },
        { text: 'TaxTotal={{ invoice.totals.tax }}' },
        { text: 'GrandTotal={{ invoice.totals.grand }}' },
        { text: 'DuePayable={{ invoice.totals.due }}' }
      ]
    }
  }
}

export interface InvoiceData { header: Obj, lines: Obj[], allowances: Obj[], charges: Obj[] }

export function invoiceData (over: Partial<InvoiceData> = {}): InvoiceData {
  return {
    header: {
      number: 'RE-2026-0001',
      seller_vat_id: 'DE123456789',
      issued_on: '2026-11-02',
      due_on: '2026-12-02',
      delivered_on: '2026-10-30',
      type_code: '380',
      currency: 'EUR',
      buyer_reference: 'PO-4711',
      customer_name: 'Müller & Söhne GmbH',
      customer_vat_id: 'DE987654321',
      customer_email: 'invoices@mueller.example',
      customer_street: 'Musterstraße 12',
      customer_city: 'Berlin',
      customer_postcode: '10115',
      customer_country: 'DE',
      total: null,
      ...over.header
    },
    lines: over.lines ?? [
      {
        line_no: 1,
        sku: 'SPR-001',
        description: 'Spring set (10 pcs)',
        qty: '2',
        unit: 'H87',
        unit_price: '3.20',
        vat_category: 'S',
        vat_rate: '19',
        amount: '6.40'
      },
      {
        line_no: 2,
        sku: 'BOOK-1',
        description: 'Manual',
        qty: '3',
        unit: 'H87',
        unit_price: '9.99',
        vat_category: 'S',
        vat_rate: '7',
        amount: '29.97'
      },
      {
        line_no: 3,
        sku: 'SRV-HR',
        description: 'Service hour',
        qty: '2.5',
        unit: 'HUR',
        unit_price: '85.00',
        vat_category: 'S',
        vat_rate: '19',
        discount: '12.50'
      }
    ],
    allowances: over.allowances ?? [],
    charges: over.charges ?? []
  }
}

export function renderInput (definition: Obj, data: InvoiceData): RenderInput {
  const text = JSON.stringify(definition)
  return {
    // One compile per distinct template (the worker's cache is keyed by version).
    versionKey: `einvoice:${createHash('sha1').update(text).digest('hex')}`,
    definition: text,
    parameters: {},
    context: { language: 'en' },
    datasets: data as unknown as DatasetValues,
    limits: { maxPages: 500, maxBytes: 50_000_000, maxRows: 100_000, maxLabels: 0 }
  }
}
