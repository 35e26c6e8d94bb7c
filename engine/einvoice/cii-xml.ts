// The UN/CEFACT CII D16B XML of an invoice (Factur-X 1.09 EN 16931 / XRechnung 3.0 CII), elements
// in the XSD's sequence order, written straight into the zlib stream the PDF embeds
// (piece-deflate.ts): the XML's text never exists whole in a render. Pieces are bytes: every value
// with characters above ASCII is put in already UTF-8 encoded (esc), one code unit a byte, where
// encoding as UTF-8 in one go cost ~10 instructions a byte (V8's slow path for a one-byte string
// with such characters in it). An invoice of 300 lines is ~300 KB of XML.
import { codePointForUtf8, putUtf8 } from '../bytes.js'
import { blockCode } from '../deflate-codes.js'
import { PieceDeflater } from '../piece-deflate.js'
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

const amt = (d: Dec): string => d.toString(2)
const date = (d: string): string => `<udt:DateTimeString format="102">${esc(d.replaceAll('-', ''))}</udt:DateTimeString>`
const opt = (v: string | undefined): string => v === undefined ? '' : esc(v)

// Everything is written as tagged templates, each optional element its own: what repeats (a
// line, an address, a VAT row, an allowance) becomes back-references to where the last one left
// its tags, and what is written once per invoice (the header, the parties, the totals) is static
// text whose literals piece-deflate.ts codes once per process, not byte by byte in every render.

function address (x: PieceDeflater, a: Address): void {
  x.t`<ram:PostalTradeAddress>`
  if (a.postcode !== undefined) x.t`<ram:PostcodeCode>${esc(a.postcode)}</ram:PostcodeCode>`
  if (a.line1 !== undefined) x.t`<ram:LineOne>${esc(a.line1)}</ram:LineOne>`
  if (a.line2 !== undefined) x.t`<ram:LineTwo>${esc(a.line2)}</ram:LineTwo>`
  if (a.city !== undefined) x.t`<ram:CityName>${esc(a.city)}</ram:CityName>`
  if (a.country !== undefined) x.t`<ram:CountryID>${esc(a.country)}</ram:CountryID>`
  if (a.subdivision !== undefined) x.t`<ram:CountrySubDivisionName>${esc(a.subdivision)}</ram:CountrySubDivisionName>`
  x.t`</ram:PostalTradeAddress>`
}

function party (x: PieceDeflater, tag: string, p: Party): void {
  x.t`<ram:${tag}>`
  if (p.name !== undefined) x.t`<ram:Name>${esc(p.name)}</ram:Name>`
  if (p.legalId !== undefined || p.tradingName !== undefined) {
    x.t`<ram:SpecifiedLegalOrganization>`
    if (p.legalId !== undefined) x.t`<ram:ID>${esc(p.legalId)}</ram:ID>`
    if (p.tradingName !== undefined) x.t`<ram:TradingBusinessName>${esc(p.tradingName)}</ram:TradingBusinessName>`
    x.t`</ram:SpecifiedLegalOrganization>`
  }
  const c = p.contact
  if (c.name !== undefined || c.phone !== undefined || c.email !== undefined) {
    x.t`<ram:DefinedTradeContact>`
    if (c.name !== undefined) x.t`<ram:PersonName>${esc(c.name)}</ram:PersonName>`
    if (c.phone !== undefined) {
      x.t`<ram:TelephoneUniversalCommunication><ram:CompleteNumber>${esc(c.phone)}</ram:CompleteNumber>\
</ram:TelephoneUniversalCommunication>`
    }
    if (c.email !== undefined) {
      x.t`<ram:EmailURIUniversalCommunication><ram:URIID>${esc(c.email)}</ram:URIID></ram:EmailURIUniversalCommunication>`
    }
    x.t`</ram:DefinedTradeContact>`
  }
  address(x, p.address)
  if (p.electronicAddress !== undefined) {
    x.t`<ram:URIUniversalCommunication><ram:URIID schemeID="EM">${esc(p.electronicAddress)}\
</ram:URIID></ram:URIUniversalCommunication>`
  }
  if (p.vatId !== undefined) {
    x.t`<ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">${esc(p.vatId)}</ram:ID></ram:SpecifiedTaxRegistration>`
  }
  if (p.taxNumber !== undefined) {
    x.t`<ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">${esc(p.taxNumber)}</ram:ID></ram:SpecifiedTaxRegistration>`
  }
  x.t`</ram:${tag}>`
}

function categoryTax (x: PieceDeflater, category: string | undefined, rate: Dec | null): void {
  x.t`<ram:TypeCode>VAT</ram:TypeCode>`
  if (category !== undefined) x.t`<ram:CategoryCode>${esc(category)}</ram:CategoryCode>`
  if (rate !== null) x.t`<ram:RateApplicablePercent>${rate.toString()}</ram:RateApplicablePercent>`
}

function lineAllowanceCharge (x: PieceDeflater, charge: boolean, amount: Dec, reason: string | undefined): void {
  x.t`<ram:SpecifiedTradeAllowanceCharge><ram:ChargeIndicator><udt:Indicator>${String(charge)}</udt:Indicator>\
</ram:ChargeIndicator><ram:ActualAmount>${amt(amount)}</ram:ActualAmount>`
  if (reason !== undefined) x.t`<ram:Reason>${esc(reason)}</ram:Reason>`
  x.t`</ram:SpecifiedTradeAllowanceCharge>`
}

// A line is most of an invoice's XML, written as the last one was: runs of tags between the
// values that differ.
function line (x: PieceDeflater, l: Line): void {
  x.t`<ram:IncludedSupplyChainTradeLineItem><ram:AssociatedDocumentLineDocument><ram:LineID>${esc(l.id)}\
</ram:LineID>`
  if (l.note !== undefined) x.t`<ram:IncludedNote><ram:Content>${esc(l.note)}</ram:Content></ram:IncludedNote>`
  x.t`</ram:AssociatedDocumentLineDocument><ram:SpecifiedTradeProduct>`
  if (l.sellerId !== undefined) x.t`<ram:SellerAssignedID>${esc(l.sellerId)}</ram:SellerAssignedID>`
  if (l.name !== undefined) x.t`<ram:Name>${esc(l.name)}</ram:Name>`
  if (l.description !== undefined) x.t`<ram:Description>${esc(l.description)}</ram:Description>`
  x.t`</ram:SpecifiedTradeProduct><ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice>`
  if (l.price !== null) x.t`<ram:ChargeAmount>${l.price.toString()}</ram:ChargeAmount>`
  x.t`</ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement><ram:SpecifiedLineTradeDelivery>\
<ram:BilledQuantity unitCode="${opt(l.unit)}">${l.quantity?.toString() ?? '0'}</ram:BilledQuantity>\
</ram:SpecifiedLineTradeDelivery><ram:SpecifiedLineTradeSettlement><ram:ApplicableTradeTax>`
  categoryTax(x, l.category, l.rate)
  x.t`</ram:ApplicableTradeTax>`
  if (l.allowance !== null) lineAllowanceCharge(x, false, l.allowance, l.allowanceReason)
  if (l.charge !== null) lineAllowanceCharge(x, true, l.charge, l.chargeReason)
  x.t`<ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>${l.net.toString(2)}\
</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation></ram:SpecifiedLineTradeSettlement>\
</ram:IncludedSupplyChainTradeLineItem>\n`
}

function vatRow (x: PieceDeflater, r: VatRow): void {
  x.t`<ram:ApplicableTradeTax><ram:CalculatedAmount>${amt(r.amount)}</ram:CalculatedAmount>\
<ram:TypeCode>VAT</ram:TypeCode>`
  if (r.exemption !== undefined) x.t`<ram:ExemptionReason>${esc(r.exemption)}</ram:ExemptionReason>`
  x.t`<ram:BasisAmount>${amt(r.basis)}</ram:BasisAmount>`
  x.t`<ram:CategoryCode>${esc(r.category)}</ram:CategoryCode>`
  if (r.rate !== null) x.t`<ram:RateApplicablePercent>${r.rate.toString()}</ram:RateApplicablePercent>`
  x.t`</ram:ApplicableTradeTax>`
}

function docAllowanceCharge (x: PieceDeflater, a: AllowanceCharge): void {
  x.t`<ram:SpecifiedTradeAllowanceCharge><ram:ChargeIndicator><udt:Indicator>${String(a.charge)}</udt:Indicator>\
</ram:ChargeIndicator><ram:ActualAmount>${amt(a.amount.round(2))}</ram:ActualAmount>`
  if (a.reasonCode !== undefined) x.t`<ram:ReasonCode>${esc(a.reasonCode)}</ram:ReasonCode>`
  if (a.reason !== undefined) x.t`<ram:Reason>${esc(a.reason)}</ram:Reason>`
  x.t`<ram:CategoryTradeTax>`
  categoryTax(x, a.category, a.rate)
  x.t`</ram:CategoryTradeTax></ram:SpecifiedTradeAllowanceCharge>`
}

function paymentMeans (x: PieceDeflater, inv: Invoice): void {
  const p = inv.payment
  if (p.means === undefined) return
  x.t`<ram:SpecifiedTradeSettlementPaymentMeans><ram:TypeCode>${esc(p.means)}</ram:TypeCode>`
  if (p.cardPan !== undefined) {
    x.t`<ram:ApplicableTradeSettlementFinancialCard><ram:ID>${esc(p.cardPan)}</ram:ID>`
    if (p.cardHolder !== undefined) x.t`<ram:CardholderName>${esc(p.cardHolder)}</ram:CardholderName>`
    x.t`</ram:ApplicableTradeSettlementFinancialCard>`
  }
  if (p.debitedIban !== undefined) {
    x.t`<ram:PayerPartyDebtorFinancialAccount><ram:IBANID>${esc(p.debitedIban)}</ram:IBANID>\
</ram:PayerPartyDebtorFinancialAccount>`
  }
  if (p.iban !== undefined) {
    x.t`<ram:PayeePartyCreditorFinancialAccount><ram:IBANID>${esc(p.iban)}</ram:IBANID>`
    if (p.accountName !== undefined) x.t`<ram:AccountName>${esc(p.accountName)}</ram:AccountName>`
    x.t`</ram:PayeePartyCreditorFinancialAccount>`
  }
  if (p.bic !== undefined) {
    x.t`<ram:PayeeSpecifiedCreditorFinancialInstitution><ram:BICID>${esc(p.bic)}</ram:BICID>\
</ram:PayeeSpecifiedCreditorFinancialInstitution>`
  }
  x.t`</ram:SpecifiedTradeSettlementPaymentMeans>`
}

// The text the stream's Huffman code is made for (deflate-codes.ts, blockCode): what a stream
// writes as literals is tags written for the first time, numbers, dates, codes and names. Only
// the code's lengths depend on it; any text can be written with it. On the example invoice it
// gave 4.4 KB where the fixed codes of RFC 1951 gave 6.0 KB (zlib level 3: 2.3 KB).
const SAMPLE = '<?xml version="1.0" encoding="UTF-8"?>\n<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:' +
  'uncefact:data:standard:CrossIndustryInvoice:100"><rsm:ExchangedDocument><ram:ID>INV-2024-0042</ram:ID>' +
  '<ram:TypeCode>380</ram:TypeCode><ram:IssueDateTime><udt:DateTimeString format="102">20240305' +
  '</udt:DateTimeString></ram:IssueDateTime></rsm:ExchangedDocument><rsm:SupplyChainTradeTransaction>\n' +
  '<ram:IncludedSupplyChainTradeLineItem><ram:AssociatedDocumentLineDocument><ram:LineID>1</ram:LineID>' +
  '</ram:AssociatedDocumentLineDocument><ram:SpecifiedTradeProduct><ram:SellerAssignedID>SPR-001' +
  '</ram:SellerAssignedID><ram:Name>Spring set (10 pcs)</ram:Name></ram:SpecifiedTradeProduct>' +
  '<ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount>3.20</ram:ChargeAmount>' +
  '</ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement><ram:SpecifiedLineTradeDelivery>' +
  '<ram:BilledQuantity unitCode="C62">12</ram:BilledQuantity></ram:SpecifiedLineTradeDelivery>' +
  '<ram:SpecifiedLineTradeSettlement><ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode>' +
  '<ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>19</ram:RateApplicablePercent>' +
  '</ram:ApplicableTradeTax><ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>38.40' +
  '</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation></ram:SpecifiedLineTradeSettlement>' +
  '</ram:IncludedSupplyChainTradeLineItem>\n<ram:ApplicableHeaderTradeAgreement><ram:SellerTradeParty>' +
  '<ram:Name>ACME Supplies GmbH</ram:Name><ram:PostalTradeAddress><ram:PostcodeCode>20457</ram:PostcodeCode>' +
  '<ram:LineOne>Dockstraße 1</ram:LineOne><ram:CityName>Hamburg</ram:CityName><ram:CountryID>DE' +
  '</ram:CountryID></ram:PostalTradeAddress><ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">DE123456789' +
  '</ram:ID></ram:SpecifiedTaxRegistration></ram:SellerTradeParty></ram:ApplicableHeaderTradeAgreement>\n' +
  '<ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>' +
  '<ram:SpecifiedTradeSettlementPaymentMeans><ram:TypeCode>58</ram:TypeCode><ram:PayeePartyCreditorFinancialAccount>' +
  '<ram:IBANID>DE89370400440532013000</ram:IBANID></ram:PayeePartyCreditorFinancialAccount>' +
  '</ram:SpecifiedTradeSettlementPaymentMeans><ram:SpecifiedTradeSettlementHeaderMonetarySummation>' +
  '<ram:GrandTotalAmount>4256.53</ram:GrandTotalAmount><ram:DuePayableAmount>4256.53</ram:DuePayableAmount>' +
  '</ram:SpecifiedTradeSettlementHeaderMonetarySummation></ram:ApplicableHeaderTradeSettlement>\n' +
  '0123456789.-, abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const CODE = blockCode(SAMPLE)

/** The XML as a zlib stream (piece-deflate.ts), and its size in bytes. */
export function ciiXml (inv: Invoice): { deflated: Buffer, size: number } {
  const t = inv.totals
  const cur = esc(inv.currency ?? '')
  const x = new PieceDeflater(CODE)
  x.t`<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"\
 xmlns:qdt="urn:un:unece:uncefact:data:standard:QualifiedDataType:100"\
 xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"\
 xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
<rsm:ExchangedDocumentContext>`
  if (inv.profile === 'XRECHNUNG') {
    x.t`<ram:BusinessProcessSpecifiedDocumentContextParameter><ram:ID>${PEPPOL_PROCESS}</ram:ID>\
</ram:BusinessProcessSpecifiedDocumentContextParameter>`
  }
  x.t`<ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>${GUIDELINE[inv.profile]}</ram:ID>\
</ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext>
<rsm:ExchangedDocument>`
  if (inv.number !== undefined) x.t`<ram:ID>${esc(inv.number)}</ram:ID>`
  x.t`<ram:TypeCode>${esc(inv.typeCode)}</ram:TypeCode><ram:IssueDateTime>${date(inv.issueDate ?? '')}</ram:IssueDateTime>`
  for (const n of inv.notes) x.t`<ram:IncludedNote><ram:Content>${esc(n)}</ram:Content></ram:IncludedNote>`
  x.t`</rsm:ExchangedDocument>
<rsm:SupplyChainTradeTransaction>
`
  for (const l of inv.lines) line(x, l)
  x.t`<ram:ApplicableHeaderTradeAgreement>`
  if (inv.buyerReference !== undefined) x.t`<ram:BuyerReference>${esc(inv.buyerReference)}</ram:BuyerReference>`
  party(x, 'SellerTradeParty', inv.seller)
  party(x, 'BuyerTradeParty', inv.buyer)
  if (inv.orderReference !== undefined) {
    x.t`<ram:BuyerOrderReferencedDocument><ram:IssuerAssignedID>${esc(inv.orderReference)}</ram:IssuerAssignedID>\
</ram:BuyerOrderReferencedDocument>`
  }
  if (inv.contractReference !== undefined) {
    x.t`<ram:ContractReferencedDocument><ram:IssuerAssignedID>${esc(inv.contractReference)}</ram:IssuerAssignedID>\
</ram:ContractReferencedDocument>`
  }
  x.t`</ram:ApplicableHeaderTradeAgreement>
<ram:ApplicableHeaderTradeDelivery>`
  delivery(x, inv)
  x.t`</ram:ApplicableHeaderTradeDelivery>
<ram:ApplicableHeaderTradeSettlement>`
  const p = inv.payment
  if (p.creditorId !== undefined) x.t`<ram:CreditorReferenceID>${esc(p.creditorId)}</ram:CreditorReferenceID>`
  if (p.reference !== undefined) x.t`<ram:PaymentReference>${esc(p.reference)}</ram:PaymentReference>`
  if (inv.currency !== undefined) x.t`<ram:InvoiceCurrencyCode>${cur}</ram:InvoiceCurrencyCode>`
  paymentMeans(x, inv)
  for (const r of inv.vat) vatRow(x, r)
  for (const a of inv.allowances) docAllowanceCharge(x, a)
  for (const c of inv.charges) docAllowanceCharge(x, c)
  paymentTerms(x, inv)
  x.t`<ram:SpecifiedTradeSettlementHeaderMonetarySummation><ram:LineTotalAmount>${amt(t.lineTotal)}</ram:LineTotalAmount>`
  if (inv.charges.length > 0) x.t`<ram:ChargeTotalAmount>${amt(t.charges)}</ram:ChargeTotalAmount>`
  if (inv.allowances.length > 0) x.t`<ram:AllowanceTotalAmount>${amt(t.allowances)}</ram:AllowanceTotalAmount>`
  x.t`<ram:TaxBasisTotalAmount>${amt(t.taxBasis)}</ram:TaxBasisTotalAmount>\
<ram:TaxTotalAmount currencyID="${cur}">${amt(t.tax)}</ram:TaxTotalAmount>\
<ram:GrandTotalAmount>${amt(t.grand)}</ram:GrandTotalAmount>`
  if (!t.prepaid.isZero()) x.t`<ram:TotalPrepaidAmount>${amt(t.prepaid)}</ram:TotalPrepaidAmount>`
  x.t`<ram:DuePayableAmount>${amt(t.due)}</ram:DuePayableAmount></ram:SpecifiedTradeSettlementHeaderMonetarySummation>`
  if (inv.precedingInvoice !== undefined) {
    x.t`<ram:InvoiceReferencedDocument><ram:IssuerAssignedID>${esc(inv.precedingInvoice)}</ram:IssuerAssignedID>\
</ram:InvoiceReferencedDocument>`
  }
  x.t`</ram:ApplicableHeaderTradeSettlement>
</rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>
`
  return { deflated: x.finish(), size: x.size }
}

function delivery (x: PieceDeflater, inv: Invoice): void {
  const d = inv.delivery
  if (d.name !== undefined || d.address.country !== undefined) {
    x.t`<ram:ShipToTradeParty>`
    if (d.name !== undefined) x.t`<ram:Name>${esc(d.name)}</ram:Name>`
    address(x, d.address)
    x.t`</ram:ShipToTradeParty>`
  }
  if (d.date !== undefined) {
    x.t`<ram:ActualDeliverySupplyChainEvent><ram:OccurrenceDateTime>${date(d.date)}</ram:OccurrenceDateTime>\
</ram:ActualDeliverySupplyChainEvent>`
  }
}

function paymentTerms (x: PieceDeflater, inv: Invoice): void {
  const p = inv.payment
  if (inv.paymentTerms === undefined && inv.dueDate === undefined && p.mandate === undefined) return
  x.t`<ram:SpecifiedTradePaymentTerms>`
  if (inv.paymentTerms !== undefined) x.t`<ram:Description>${esc(inv.paymentTerms)}</ram:Description>`
  if (inv.dueDate !== undefined) x.t`<ram:DueDateDateTime>${date(inv.dueDate)}</ram:DueDateDateTime>`
  if (p.mandate !== undefined) x.t`<ram:DirectDebitMandateID>${esc(p.mandate)}</ram:DirectDebitMandateID>`
  x.t`</ram:SpecifiedTradePaymentTerms>`
}
