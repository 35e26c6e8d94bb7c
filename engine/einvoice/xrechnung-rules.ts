// XRechnung 3.0's own requirements on top of EN 16931 (BR-DE rules and the PEPPOL rules it adopts),
// checked on the values at render (the mapping is checked for them at publish, compile.ts).
import type { Invoice } from './model.js'
import { anyGiven, type Violation } from './violation.js'

export function xrechnungRules (inv: Invoice, v: Violation[]): void {
  const need = (rule: string, key: string, value: unknown): void => {
    if (value === undefined) v.push({ rule, key, detail: 'is required by XRechnung' })
  }
  need('BR-DE-15', 'buyerReference', inv.buyerReference)
  need('PEPPOL-EN16931-R020', 'seller.electronicAddress', inv.seller.electronicAddress)
  need('PEPPOL-EN16931-R010', 'buyer.electronicAddress', inv.buyer.electronicAddress)
  need('BR-DE-3', 'seller.address.city', inv.seller.address.city)
  need('BR-DE-4', 'seller.address.postcode', inv.seller.address.postcode)
  need('BR-DE-5', 'seller.contact.name', inv.seller.contact.name)
  need('BR-DE-6', 'seller.contact.phone', inv.seller.contact.phone)
  need('BR-DE-7', 'seller.contact.email', inv.seller.contact.email)
  need('BR-DE-8', 'buyer.address.city', inv.buyer.address.city)
  need('BR-DE-9', 'buyer.address.postcode', inv.buyer.address.postcode)
  need('BR-DE-1', 'payment.means', inv.payment.means)
  const ship = inv.delivery.address
  if (anyGiven(ship)) {
    need('BR-DE-10', 'delivery.address.city', ship.city)
    need('BR-DE-11', 'delivery.address.postcode', ship.postcode)
  }
  if (inv.payment.means === '59' && inv.payment.debitedIban === undefined) {
    need('BR-DE-25-b', 'payment.debitedIban',
      undefined)
  }
  if (inv.vat.some((r) => r.category !== 'O') && inv.seller.vatId === undefined && inv.seller.taxNumber === undefined) {
    v.push({
      rule: 'BR-DE-16',
      key: 'seller.vatId',
      detail: 'the seller VAT identifier or tax number is required by XRechnung'
    })
  }
}
