// One render's e-invoice: the mapping read (read.ts), the money computed once (money.ts), the
// rules checked (rules.ts), then the CII XML (cii-xml.ts) as the PDF's associated file with its
// Factur-X XMP, and the same figures as the `invoice` name the layout's expressions read.
import { inflateSync } from 'node:zlib'
import type { EvalScope } from '../expr/expressions.js'
import { mapped } from '../lists.js'
import type { AssociatedFile } from '../pdf/associated-file.js'
import { ciiXml } from './cii-xml.js'
import type { CompiledEinvoice } from './compile.js'
import type { Dec } from './decimal.js'
import { FILE_NAME, facturxXmp } from './facturx-xmp.js'
import type { Invoice } from './model.js'
import { computeMoney } from './money.js'
import { readInvoice } from './read.js'
import { checkInvoice } from './rules.js'

export interface BuiltEinvoice {
  invoice: Invoice
  /** The XML as text (file.deflated, inflated: for the CLI and tests, not the render). */
  readonly xml: string
  file: AssociatedFile
  /** What expressions see as `invoice`: amounts as exact 2-decimal text. */
  view: Record<string, unknown>
}

export function buildEinvoice (ce: CompiledEinvoice, scope: EvalScope): BuiltEinvoice {
  const invoice = readInvoice(ce, scope)
  computeMoney(invoice)
  checkInvoice(invoice)
  const { deflated, size } = ciiXml(invoice)
  const file: AssociatedFile = {
    name: FILE_NAME[invoice.profile],
    mime: 'text/xml',
    relationship: 'Alternative',
    description: invoice.profile === 'XRECHNUNG' ? 'XRechnung invoice' : 'Factur-X invoice',
    deflated,
    size,
    xmp: facturxXmp(invoice.profile)
  }
  return { invoice, file, view: invoiceView(invoice), get xml () { return inflateSync(deflated).toString('utf8') } }
}

const money = (d: Dec): string => d.toString(2)
const rate = (d: Dec | null): string | null => d === null ? null : d.toString()

export function invoiceView (inv: Invoice): Record<string, unknown> {
  const t = inv.totals
  return {
    number: inv.number ?? null,
    typeCode: inv.typeCode,
    currency: inv.currency ?? null,
    creditNote: inv.typeCode === '381',
    totals: {
      lineTotal: money(t.lineTotal),
      allowances: money(t.allowances),
      charges: money(t.charges),
      taxBasis: money(t.taxBasis),
      tax: money(t.tax),
      grand: money(t.grand),
      prepaid: money(t.prepaid),
      due: money(t.due)
    },
    vat: mapped(inv.vat, (r) => ({
      category: r.category,
      rate: rate(r.rate),
      basis: money(r.basis),
      amount: money(r.amount),
      exemption: r.exemption ?? null
    })),
    lines: mapped(inv.lines, (l) => ({
      id: l.id,
      name: l.name ?? null,
      quantity: l.quantity?.toString() ?? null,
      unit: l.unit ?? null,
      price: l.price?.toString() ?? null,
      net: money(l.net),
      category: l.category ?? null,
      rate: rate(l.rate)
    })),
    allowances: mapped(inv.allowances, (a) => ({
      amount: money(a.amount.round(2)),
      reason: a.reason ?? null,
      category: a.category ?? null,
      rate: rate(a.rate)
    })),
    charges: mapped(inv.charges, (c) => ({
      amount: money(c.amount.round(2)),
      reason: c.reason ?? null,
      category: c.category ?? null,
      rate: rate(c.rate)
    }))
  }
}
