// The business terms a template maps (docs/einvoice.md has the table): template key → EN 16931
// term (BT/BG number), its kind, and which profile requires it. Dotted keys; `lines.`,
// `allowances.`, `charges.` and `vat.` keys are evaluated once per row of their `rows`.

export type Kind = 'text' | 'date' | 'amount' | 'quantity' | 'rate' | 'code'
export type Need = 'always' | 'xrechnung'
export interface Term { bt: string, kind: Kind, need?: Need, name: string }

const t = (bt: string, kind: Kind, name: string, need?: Need): Term => need === undefined
  ? { bt, kind, name }
  : {
      bt,
      kind,
      name,
      need
    }

function party (p: 'seller' | 'buyer', n: number[]): Record<string, Term> {
  type S = string
  const [name, trading, legal, vat, endpoint, l1, l2, city, pc, sub, country, cn, cp, ce] =
    n.map((x) => `BT-${x}`) as [S, S, S, S, S, S, S, S, S, S, S, S, S, S]
  const Who = p === 'seller' ? 'Seller' : 'Buyer'
  const xr: Need = 'xrechnung'
  const r: Record<string, Term> = {
    [`${p}.name`]: t(name, 'text', `${Who} name`, 'always'),
    [`${p}.tradingName`]: t(trading, 'text', `${Who} trading name`),
    [`${p}.legalId`]: t(legal, 'text', `${Who} legal registration identifier`),
    [`${p}.vatId`]: t(vat, 'text', `${Who} VAT identifier`),
    [`${p}.electronicAddress`]: t(endpoint, 'text', `${Who} electronic address (e-mail)`, xr),
    [`${p}.address.line1`]: t(l1, 'text', `${Who} address line 1`),
    [`${p}.address.line2`]: t(l2, 'text', `${Who} address line 2`),
    [`${p}.address.city`]: t(city, 'text', `${Who} city`, xr),
    [`${p}.address.postcode`]: t(pc, 'text', `${Who} post code`, xr),
    [`${p}.address.subdivision`]: t(sub, 'text', `${Who} country subdivision`),
    [`${p}.address.country`]: t(country, 'code', `${Who} country code`, 'always'),
    [`${p}.contact.name`]: t(cn, 'text', `${Who} contact point`, p === 'seller' ? xr : undefined),
    [`${p}.contact.phone`]: t(cp, 'text', `${Who} contact telephone number`, p === 'seller' ? xr : undefined),
    [`${p}.contact.email`]: t(ce, 'text', `${Who} contact e-mail address`, p === 'seller' ? xr : undefined)
  }
  if (p === 'seller') r['seller.taxNumber'] = t('BT-32', 'text', 'Seller tax registration identifier')
  return r
}

const TERM_TABLE: Readonly<Record<string, Term>> = {
  number: t('BT-1', 'text', 'Invoice number', 'always'),
  issueDate: t('BT-2', 'date', 'Invoice issue date', 'always'),
  typeCode: t('BT-3', 'code', 'Invoice type code'),
  currency: t('BT-5', 'code', 'Invoice currency code', 'always'),
  dueDate: t('BT-9', 'date', 'Payment due date'),
  buyerReference: t('BT-10', 'text', 'Buyer reference', 'xrechnung'),
  contractReference: t('BT-12', 'text', 'Contract reference'),
  orderReference: t('BT-13', 'text', 'Purchase order reference'),
  paymentTerms: t('BT-20', 'text', 'Payment terms'),
  notes: t('BT-22', 'text', 'Invoice note (BG-1)'),
  precedingInvoice: t('BT-25', 'text', 'Preceding invoice reference'),
  ...party('seller', [27, 28, 30, 31, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43]),
  ...party('buyer', [44, 45, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58]),
  'delivery.name': t('BT-70', 'text', 'Deliver to party name'),
  'delivery.date': t('BT-72', 'date', 'Actual delivery date'),
  'delivery.address.line1': t('BT-75', 'text', 'Deliver to address line 1'),
  'delivery.address.city': t('BT-77', 'text', 'Deliver to city'),
  'delivery.address.postcode': t('BT-78', 'text', 'Deliver to post code'),
  'delivery.address.country': t('BT-80', 'code', 'Deliver to country code'),
  'payment.means': t('BT-81', 'code', 'Payment means type code', 'xrechnung'),
  'payment.reference': t('BT-83', 'text', 'Remittance information'),
  'payment.iban': t('BT-84', 'text', 'Payment account identifier (IBAN)'),
  'payment.accountName': t('BT-85', 'text', 'Payment account name'),
  'payment.bic': t('BT-86', 'text', 'Payment service provider identifier (BIC)'),
  'payment.cardPan': t('BT-87', 'text', 'Payment card primary account number (last digits)'),
  'payment.cardHolder': t('BT-88', 'text', 'Payment card holder name'),
  'payment.mandate': t('BT-89', 'text', 'Mandate reference identifier'),
  'payment.creditorId': t('BT-90', 'text', 'Bank assigned creditor identifier'),
  'payment.debitedIban': t('BT-91', 'text', 'Debited account identifier'),
  'allowances.amount': t('BT-92', 'amount', 'Document level allowance amount', 'always'),
  'allowances.category': t('BT-95', 'code', 'Document level allowance VAT category code', 'always'),
  'allowances.rate': t('BT-96', 'rate', 'Document level allowance VAT rate'),
  'allowances.reason': t('BT-97', 'text', 'Document level allowance reason'),
  'allowances.reasonCode': t('BT-98', 'code', 'Document level allowance reason code'),
  'charges.amount': t('BT-99', 'amount', 'Document level charge amount', 'always'),
  'charges.category': t('BT-102', 'code', 'Document level charge VAT category code', 'always'),
  'charges.rate': t('BT-103', 'rate', 'Document level charge VAT rate'),
  'charges.reason': t('BT-104', 'text', 'Document level charge reason'),
  'charges.reasonCode': t('BT-105', 'code', 'Document level charge reason code'),
  'totals.lineTotal': t('BT-106', 'amount', 'Sum of invoice line net amount'),
  'totals.allowances': t('BT-107', 'amount', 'Sum of allowances on document level'),
  'totals.charges': t('BT-108', 'amount', 'Sum of charges on document level'),
  'totals.taxBasis': t('BT-109', 'amount', 'Invoice total amount without VAT'),
  'totals.tax': t('BT-110', 'amount', 'Invoice total VAT amount'),
  'totals.grand': t('BT-112', 'amount', 'Invoice total amount with VAT'),
  'totals.prepaid': t('BT-113', 'amount', 'Paid amount'),
  'totals.due': t('BT-115', 'amount', 'Amount due for payment'),
  'vat.category': t('BT-118', 'code', 'VAT category code', 'always'),
  'vat.rate': t('BT-119', 'rate', 'VAT category rate'),
  'vat.amount': t('BT-117', 'amount', 'VAT category tax amount', 'always'),
  'exemptionReasons.E': t('BT-120', 'text', 'VAT exemption reason text (E)'),
  'exemptionReasons.AE': t('BT-120', 'text', 'VAT exemption reason text (AE)'),
  'exemptionReasons.K': t('BT-120', 'text', 'VAT exemption reason text (K)'),
  'exemptionReasons.G': t('BT-120', 'text', 'VAT exemption reason text (G)'),
  'exemptionReasons.O': t('BT-120', 'text', 'VAT exemption reason text (O)'),
  'lines.id': t('BT-126', 'text', 'Invoice line identifier'),
  'lines.note': t('BT-127', 'text', 'Invoice line note'),
  'lines.quantity': t('BT-129', 'quantity', 'Invoiced quantity', 'always'),
  'lines.unit': t('BT-130', 'code', 'Invoiced quantity unit of measure code', 'always'),
  'lines.amount': t('BT-131', 'amount', 'Invoice line net amount'),
  'lines.allowance': t('BT-136', 'amount', 'Invoice line allowance amount'),
  'lines.allowanceReason': t('BT-139', 'text', 'Invoice line allowance reason'),
  'lines.charge': t('BT-141', 'amount', 'Invoice line charge amount'),
  'lines.chargeReason': t('BT-144', 'text', 'Invoice line charge reason'),
  'lines.price': t('BT-146', 'amount', 'Item net price', 'always'),
  'lines.category': t('BT-151', 'code', 'Invoiced item VAT category code', 'always'),
  'lines.rate': t('BT-152', 'rate', 'Invoiced item VAT rate'),
  'lines.name': t('BT-153', 'text', 'Item name', 'always'),
  'lines.description': t('BT-154', 'text', 'Item description'),
  'lines.sellerId': t('BT-155', 'text', "Item Seller's identifier")
}

/** Every term by its template key (a Map: a key read may miss). */
export const TERMS: ReadonlyMap<string, Term> = new Map(Object.entries(TERM_TABLE))

/** Groups of rows: their `rows` expression and the group's BG number. */
export const LISTS: Readonly<Record<string, { bg: string, name: string }>> = {
  lines: { bg: 'BG-25', name: 'Invoice line' },
  allowances: { bg: 'BG-20', name: 'Document level allowances' },
  charges: { bg: 'BG-21', name: 'Document level charges' },
  vat: { bg: 'BG-23', name: 'VAT breakdown (supplied, checked)' }
}

/** A term's name for messages: `BT-27 Seller name`. */
export const termLabel = (key: string): string => {
  const term = TERMS.get(key)
  return term === undefined ? key : `${term.bt} ${term.name}`
}
