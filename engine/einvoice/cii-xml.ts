// The UN/CEFACT CII D16B XML of an invoice (Factur-X 1.09 EN 16931 / XRechnung 3.0 CII), elements
// in the XSD's sequence order, as its UTF-8 bytes. Built as one string whose code units are those
// bytes: every value with characters above ASCII is put in already UTF-8 encoded (esc), so the
// string is copied into bytes as Latin-1, a copy, where encoding the whole XML as UTF-8 cost ~10
// instructions a byte (V8 takes the slow path for a one-byte string with such characters in it).
// An invoice of 300 lines is ~300 KB.
import { codePointForUtf8, putUtf8 } from '../bytes.js'
import { joined } from '../lists.js'
import type { Dec } from './decimal.js'
import type { Address, AllowanceCharge, Invoice, Line, Party, VatRow } from './model.js'

/** BT-23, which XRechnung 3.0 requires (PEPPOL-EN16931-R001): the PEPPOL billing process. */
const PEPPOL_PROCESS = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0'

const GUIDELINE = {
  EN16931: 'urn:cen.eu:en16931:2017',
  XRECHNUNG: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0'
}

// Text outside XML 1.0's character range would make the file unreadable: dropped.
// (Control characters but tab, line feed and carriage return; and the two non-characters.)
const INVALID = /(?![\t\n\r\u007f-\u009f])\p{Cc}|[\ufffe\uffff]/gu
const MARKUP = 1
const WIDE = 2
// What a value needs: MARKUP (characters to escape or drop), WIDE (characters above ASCII). Most
// values (numbers, codes, dates, plain names) need nothing: one pass over the codes, no copies (a
// Unicode-property regex test cost more than building the element around it).
function needs (text: string): number {
  const s = String(text) // see pdf/metrics.ts, widthStd
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20 ? c !== 9 && c !== 10 && c !== 13 : c === 38 || c === 60 || c === 62 || c === 34 || c >= 0xfffe) {
      n |= MARKUP
    }
    if (c >= 0x80) n |= WIDE
  }
  return n
}

/** A value as it goes into the XML: escaped, and UTF-8 encoded (one code unit a byte). */
function esc (s: string): string {
  const n = needs(s)
  if (n === 0) return s
  const t = (n & MARKUP) === 0
    ? s
    : s.replace(INVALID, '').replace(/[&<>"]/g, (c) =>
      c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;')
  return (n & WIDE) === 0 ? t : utf8Units(t)
}

/** The UTF-8 bytes of `s` as code units (a lone surrogate as U+FFFD, as Buffer's encoder does). */
export function utf8Units (s: string): string {
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = codePointForUtf8(s, i)
    if (c > 0xffff) i++
    const n = putUtf8(UTF8, 0, c)
    for (let k = 0; k < n; k++) out += String.fromCharCode(UTF8[k]!) // k < n <= 4
  }
  return out
}

/** One character's UTF-8 bytes (bytes.ts putUtf8). */
const UTF8 = new Uint8Array(4)

const w = (tag: string, inner: string): string => `<ram:${tag}>${inner}</ram:${tag}>`
const indicator = (charge: boolean): string =>
  `<ram:ChargeIndicator><udt:Indicator>${charge}</udt:Indicator></ram:ChargeIndicator>`
const el = (name: string, v: string | undefined): string => v === undefined
  ? ''
  : `<ram:${name}>${esc(v)}</ram:${name}>`
const amt = (d: Dec): string => d.toString(2)
const date = (d: string): string => `<udt:DateTimeString format="102">${esc(d.replaceAll('-', ''))}</udt:DateTimeString>`

const note = (n: string): string => w('IncludedNote', el('Content', n))

function address (a: Address): string {
  return '<ram:PostalTradeAddress>' + el('PostcodeCode', a.postcode) + el('LineOne', a.line1) + el('LineTwo', a.line2) +
    el('CityName', a.city) + el('CountryID', a.country) + el('CountrySubDivisionName', a.subdivision) +
      '</ram:PostalTradeAddress>'
}

function party (tag: string, p: Party): string {
  let x = `<ram:${tag}>` + el('Name', p.name)
  if (p.legalId !== undefined || p.tradingName !== undefined) {
    x += '<ram:SpecifiedLegalOrganization>' + el('ID', p.legalId) + el('TradingBusinessName', p.tradingName) +
      '</ram:SpecifiedLegalOrganization>'
  }
  const c = p.contact
  if (c.name !== undefined || c.phone !== undefined || c.email !== undefined) {
    x += '<ram:DefinedTradeContact>' + el('PersonName', c.name)
    if (c.phone !== undefined) x += w('TelephoneUniversalCommunication', el('CompleteNumber', c.phone))
    if (c.email !== undefined) x += w('EmailURIUniversalCommunication', el('URIID', c.email))
    x += '</ram:DefinedTradeContact>'
  }
  x += address(p.address)
  if (p.electronicAddress !== undefined) {
    x += w('URIUniversalCommunication', `<ram:URIID schemeID="EM">${esc(p.electronicAddress)}</ram:URIID>`)
  }
  if (p.vatId !== undefined) x += w('SpecifiedTaxRegistration', `<ram:ID schemeID="VA">${esc(p.vatId)}</ram:ID>`)
  if (p.taxNumber !== undefined) {
    x += w('SpecifiedTaxRegistration',
    `<ram:ID schemeID="FC">${esc(p.taxNumber)}</ram:ID>`)
  }
  return x + `</ram:${tag}>`
}

function categoryTax (category: string | undefined, rate: Dec | null): string {
  return '<ram:TypeCode>VAT</ram:TypeCode>' + el('CategoryCode', category) +
    (rate === null ? '' : el('RateApplicablePercent', rate.toString()))
}

function lineAllowanceCharge (charge: boolean, amount: Dec, reason: string | undefined): string {
  return '<ram:SpecifiedTradeAllowanceCharge>' + indicator(charge) +
    el('ActualAmount', amt(amount)) + el('Reason', reason) + '</ram:SpecifiedTradeAllowanceCharge>'
}

// A line is most of an invoice's XML: one template per line, its tags literal, so each value
// costs one or two string pieces (the generic el()/w() pieces cost several each).
function line (l: Line): string {
  const note = l.note === undefined
    ? ''
    : `<ram:IncludedNote><ram:Content>${esc(l.note)}</ram:Content></ram:IncludedNote>`
  const sellerId = l.sellerId === undefined ? '' : `<ram:SellerAssignedID>${esc(l.sellerId)}</ram:SellerAssignedID>`
  const name = l.name === undefined ? '' : `<ram:Name>${esc(l.name)}</ram:Name>`
  const description = l.description === undefined ? '' : `<ram:Description>${esc(l.description)}</ram:Description>`
  const price = l.price === null ? '' : `<ram:ChargeAmount>${l.price.toString()}</ram:ChargeAmount>`
  const category = l.category === undefined ? '' : `<ram:CategoryCode>${esc(l.category)}</ram:CategoryCode>`
  const rate = l.rate === null ? '' : `<ram:RateApplicablePercent>${l.rate.toString()}</ram:RateApplicablePercent>`
  return `<ram:IncludedSupplyChainTradeLineItem><ram:AssociatedDocumentLineDocument><ram:LineID>${esc(l.id)}\
</ram:LineID>${note}</ram:AssociatedDocumentLineDocument><ram:SpecifiedTradeProduct>${sellerId}${name}${description}\
</ram:SpecifiedTradeProduct><ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice>${price}\
</ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement><ram:SpecifiedLineTradeDelivery>\
<ram:BilledQuantity unitCode="${esc(l.unit ?? '')}">${l.quantity?.toString() ?? '0'}</ram:BilledQuantity>\
</ram:SpecifiedLineTradeDelivery><ram:SpecifiedLineTradeSettlement><ram:ApplicableTradeTax>\
<ram:TypeCode>VAT</ram:TypeCode>${category}${rate}</ram:ApplicableTradeTax>\
${l.allowance === null ? '' : lineAllowanceCharge(false, l.allowance, l.allowanceReason)}\
${l.charge === null ? '' : lineAllowanceCharge(true, l.charge, l.chargeReason)}\
<ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>${l.net.toString(2)}</ram:LineTotalAmount>\
</ram:SpecifiedTradeSettlementLineMonetarySummation></ram:SpecifiedLineTradeSettlement>\
</ram:IncludedSupplyChainTradeLineItem>`
}

function vatRow (r: VatRow): string {
  return '<ram:ApplicableTradeTax>' + el('CalculatedAmount', amt(r.amount)) + '<ram:TypeCode>VAT</ram:TypeCode>' +
    el('ExemptionReason', r.exemption) + el('BasisAmount', amt(r.basis)) + el('CategoryCode', r.category) +
    (r.rate === null ? '' : el('RateApplicablePercent', r.rate.toString())) + '</ram:ApplicableTradeTax>'
}

function docAllowanceCharge (a: AllowanceCharge): string {
  return '<ram:SpecifiedTradeAllowanceCharge>' + indicator(a.charge) +
    el('ActualAmount', amt(a.amount.round(2))) + el('ReasonCode', a.reasonCode) + el('Reason', a.reason) +
    w('CategoryTradeTax', categoryTax(a.category, a.rate)) + '</ram:SpecifiedTradeAllowanceCharge>'
}

function paymentMeans (inv: Invoice): string {
  const p = inv.payment
  if (p.means === undefined) return ''
  let x = '<ram:SpecifiedTradeSettlementPaymentMeans>' + el('TypeCode', p.means)
  if (p.cardPan !== undefined) {
    x += w('ApplicableTradeSettlementFinancialCard', el('ID', p.cardPan) + el('CardholderName', p.cardHolder))
  }
  if (p.debitedIban !== undefined) x += w('PayerPartyDebtorFinancialAccount', el('IBANID', p.debitedIban))
  if (p.iban !== undefined) {
    x += w('PayeePartyCreditorFinancialAccount', el('IBANID', p.iban) + el('AccountName', p.accountName))
  }
  if (p.bic !== undefined) x += w('PayeeSpecifiedCreditorFinancialInstitution', el('BICID', p.bic))
  return x + '</ram:SpecifiedTradeSettlementPaymentMeans>'
}

/** The XML's UTF-8 bytes. */
export function ciiXml (inv: Invoice): Buffer {
  const t = inv.totals
  const cur = esc(inv.currency ?? '')
  const parts: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    '<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"',
    ' xmlns:qdt="urn:un:unece:uncefact:data:standard:QualifiedDataType:100"',
    ' xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"',
    ' xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">\n',
    '<rsm:ExchangedDocumentContext>',
    inv.profile === 'XRECHNUNG'
      ? w('BusinessProcessSpecifiedDocumentContextParameter', w('ID', PEPPOL_PROCESS))
      : '',
    `<ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>${GUIDELINE[inv.profile]}</ram:ID>`,
    '</ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext>\n',
    '<rsm:ExchangedDocument>' + el('ID', inv.number) + el('TypeCode', inv.typeCode) +
      w('IssueDateTime', date(inv.issueDate ?? '')) +
      joined(inv.notes, note) +
        '</rsm:ExchangedDocument>\n',
    '<rsm:SupplyChainTradeTransaction>\n'
  ]
  for (const l of inv.lines) parts.push(line(l), '\n')
  parts.push(
    '<ram:ApplicableHeaderTradeAgreement>' + el('BuyerReference', inv.buyerReference) + party('SellerTradeParty',
      inv.seller) +
      party('BuyerTradeParty', inv.buyer) +
      (inv.orderReference === undefined
        ? ''
        : w('BuyerOrderReferencedDocument', el('IssuerAssignedID', inv.orderReference))) +
      (inv.contractReference === undefined
        ? ''
        : w('ContractReferencedDocument', el('IssuerAssignedID', inv.contractReference))) +
      '</ram:ApplicableHeaderTradeAgreement>\n',
    '<ram:ApplicableHeaderTradeDelivery>' + delivery(inv) + '</ram:ApplicableHeaderTradeDelivery>\n',
    '<ram:ApplicableHeaderTradeSettlement>' + el('CreditorReferenceID', inv.payment.creditorId) + el('PaymentReference',
      inv.payment.reference) +
      el('InvoiceCurrencyCode', inv.currency) + paymentMeans(inv) + joined(inv.vat, vatRow) +
      joined(inv.allowances, docAllowanceCharge) + joined(inv.charges, docAllowanceCharge) +
        paymentTerms(inv) +
      '<ram:SpecifiedTradeSettlementHeaderMonetarySummation>' + el('LineTotalAmount', amt(t.lineTotal)) +
      (inv.charges.length > 0 ? el('ChargeTotalAmount', amt(t.charges)) : '') +
      (inv.allowances.length > 0 ? el('AllowanceTotalAmount', amt(t.allowances)) : '') +
      el('TaxBasisTotalAmount', amt(t.taxBasis)) +
        `<ram:TaxTotalAmount currencyID="${cur}">${amt(t.tax)}</ram:TaxTotalAmount>` +
      el('GrandTotalAmount', amt(t.grand)) + (t.prepaid.isZero() ? '' : el('TotalPrepaidAmount', amt(t.prepaid))) +
      el('DuePayableAmount', amt(t.due)) + '</ram:SpecifiedTradeSettlementHeaderMonetarySummation>' +
      (inv.precedingInvoice === undefined
        ? ''
        : w('InvoiceReferencedDocument', el('IssuerAssignedID', inv.precedingInvoice))) +
      '</ram:ApplicableHeaderTradeSettlement>\n',
    '</rsm:SupplyChainTradeTransaction>\n</rsm:CrossIndustryInvoice>\n'
  )
  return Buffer.from(parts.join(''), 'latin1')
}

function delivery (inv: Invoice): string {
  const d = inv.delivery
  let x = ''
  if (d.name !== undefined || d.address.country !== undefined) {
    x += '<ram:ShipToTradeParty>' + el('Name', d.name) +
    address(d.address) + '</ram:ShipToTradeParty>'
  }
  if (d.date !== undefined) x += w('ActualDeliverySupplyChainEvent', w('OccurrenceDateTime', date(d.date)))
  return x
}

function paymentTerms (inv: Invoice): string {
  const p = inv.payment
  if (inv.paymentTerms === undefined && inv.dueDate === undefined && p.mandate === undefined) return ''
  return '<ram:SpecifiedTradePaymentTerms>' + el('Description', inv.paymentTerms) +
    (inv.dueDate === undefined ? '' : w('DueDateDateTime', date(inv.dueDate))) +
    el('DirectDebitMandateID', p.mandate) + '</ram:SpecifiedTradePaymentTerms>'
}
