// What the demo e-invoice tests compare: the figures of the embedded CII XML and the same figures
// read back from the page text (pdftotext -layout) of examples/templates/invoice.json's layout.

export interface VatRow { category: string, rate: number, basis: string, amount: string }
export interface Figures {
  lineTotal: string
  taxBasis: string
  tax: string
  grand: string
  due: string
  /** Only when the invoice has document-level allowances. */
  allowances?: string
  vat: VatRow[]
}

const tag = (xml: string, name: string): string | undefined =>
  new RegExp(`<ram:${name}(?: [^>]*)?>([^<]*)</ram:${name}>`).exec(xml)?.[1]

function need (xml: string, name: string): string {
  const v = tag(xml, name)
  if (v === undefined) throw new Error(`no ram:${name} in the XML`)
  return v
}

export function xmlFigures (xml: string): Figures {
  const sum = /<ram:SpecifiedTradeSettlementHeaderMonetarySummation>[\s\S]*?<\/ram:SpecifiedTradeSettlementHeaderMonetarySummation>/
    .exec(xml)?.[0] ?? ''
  // The breakdown (BG-23) is the header's ApplicableTradeTax: the only ones with a CalculatedAmount.
  const vat = [...xml.matchAll(/<ram:ApplicableTradeTax><ram:CalculatedAmount>[\s\S]*?<\/ram:ApplicableTradeTax>/g)]
    .map(([t]) => ({
      category: need(t, 'CategoryCode'),
      rate: Number(tag(t, 'RateApplicablePercent') ?? '0'),
      basis: need(t, 'BasisAmount'),
      amount: need(t, 'CalculatedAmount')
    }))
  const allowances = tag(sum, 'AllowanceTotalAmount')
  return {
    lineTotal: need(sum, 'LineTotalAmount'),
    taxBasis: need(sum, 'TaxBasisTotalAmount'),
    tax: need(sum, 'TaxTotalAmount'),
    grand: need(sum, 'GrandTotalAmount'),
    due: need(sum, 'DuePayableAmount'),
    ...(allowances === undefined ? {} : { allowances }),
    vat
  }
}

/** "€4,256.53", "-$25.00", "US$1.00" → "4256.53" / "-25.00". */
function amount (s: string): string {
  const m = /(-?)\D*?([\d,]+\.\d{2})$/.exec(s.trim())
  if (m === null) throw new Error(`not an amount: ${JSON.stringify(s)}`)
  return `${m[1] ?? ''}${(m[2] ?? '').replace(/,/g, '')}`
}

/** The last amount on the page line that has `label` followed only by an amount. */
function labelled (text: string, label: string): string | undefined {
  const m = new RegExp(`(?:^|\\s)${label}\\s+(-?\\S*\\d\\.\\d{2})\\s*$`, 'm').exec(text)
  return m?.[1] === undefined ? undefined : amount(m[1])
}

function needLabel (text: string, label: string): string {
  const v = labelled(text, label)
  if (v === undefined) throw new Error(`no "${label}" amount on the page`)
  return v
}

export function pageFigures (text: string): Figures {
  // VAT breakdown rows: "S 19%  [note …]  €3,532.86  €671.24" (the note may wrap below).
  const vat = [...text.matchAll(/^\s*(S|Z|E|AE|K|G|O) (\d+(?:\.\d+)?)%.*?\s(-?\S*\d\.\d{2})\s+(-?\S*\d\.\d{2})\s*$/gm)]
    .map((m) => ({ category: m[1] ?? '', rate: Number(m[2]), basis: amount(m[3] ?? ''), amount: amount(m[4] ?? '') }))
  const allowances = labelled(text, 'Allowances')
  // "Amount due" / "Amount credited" sits above its figure; the last such label's line below.
  const due = /Amount (?:due|credited)\s*\n(?:.*\s)?(-?\S*\d\.\d{2})\s*$/m.exec(text)?.[1]
  if (due === undefined) throw new Error('no amount due on the page')
  return {
    lineTotal: needLabel(text, 'Lines total'),
    taxBasis: needLabel(text, 'Net amount'),
    tax: needLabel(text, 'VAT total'),
    grand: needLabel(text, 'Total'),
    due: amount(due),
    ...(allowances === undefined ? {} : { allowances: allowances.replace(/^-/, '') }),
    vat
  }
}
