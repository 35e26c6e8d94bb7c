// The demo's invoices as e-invoices (docs/einvoice.md): who is billed, in which VAT situation,
// and the figures as the engine computes them — the template maps the rows' amounts as inputs
// that are checked, so they must agree: line net = quantity × price rounded to cents, VAT per
// category and rate on that category's taxable total (BR-CO-17), never summed per line.

export interface DemoCustomer {
  name: string
  /** As printed on the page. */
  address: string
  street: string
  postcode: string
  city: string
  /** ISO 3166-1 alpha-2. */
  country: string
  /** Needed for intra-community supply (K) and reverse charge (AE); Greece's prefix is EL. */
  vatId: string | null
}

const c = (name: string, address: string, street: string, postcode: string, city: string, country: string,
  vatId: string | null): DemoCustomer => ({ name, address, street, postcode, city, country, vatId })

export const CUSTOMERS: DemoCustomer[] = [
  c('Müller & Söhne GmbH', 'Musterstraße 12\n10115 Berlin\nGermany', 'Musterstraße 12', '10115', 'Berlin', 'DE',
    'DE811907980'),
  c('Fjord Imports AS', 'Bryggen 7\n5003 Bergen\nNorway', 'Bryggen 7', '5003', 'Bergen', 'NO', null),
  c('Cobalt & Co Ltd', '14 Canal Street\nManchester M1 3HE\nUnited Kingdom', '14 Canal Street', 'M1 3HE',
    'Manchester', 'GB', null),
  c('Delta Foods S.A.', '22 rue de la Paix\n75002 Paris\nFrance', '22 rue de la Paix', '75002', 'Paris', 'FR',
    'FR40303265045'),
  c('Granite Works Inc.', '500 Quarry Road\nBarre, VT 05641\nUSA', '500 Quarry Road', '05641', 'Barre', 'US', null),
  c('Brightside Retail BV', 'Keizersgracht 123\n1015 CJ Amsterdam\nNetherlands', 'Keizersgracht 123', '1015 CJ',
    'Amsterdam', 'NL', 'NL859048385B01'),
  c('Evergreen Stores Oy', 'Mannerheimintie 5\n00100 Helsinki\nFinland', 'Mannerheimintie 5', '00100', 'Helsinki',
    'FI', 'FI20774740'),
  c('Łódź Hurt Sp. z o.o.', 'ul. Piotrkowska 90\n90-103 Łódź\nPoland', 'ul. Piotrkowska 90', '90-103', 'Łódź', 'PL',
    'PL7251801126'),
  // Scripts beyond WinAnsi: documents draw them with the default font stack (docs/layout.md).
  c('Αθηναϊκή Εμπορική Α.Ε.', 'Ερμού 25\n105 63 Αθήνα\nΕλλάδα', 'Ερμού 25', '105 63', 'Αθήνα', 'GR', 'EL094014201'),
  c('شركة النور للتجارة', 'شارع التحرير 15\nالقاهرة 11511\nمصر', 'شارع التحرير 15', '11511', 'القاهرة', 'EG', null),
  c('אור סחר בע״מ', 'רחוב הרצל 10\nתל אביב 6578901\nישראל', 'רחוב הרצל 10', '6578901', 'תל אביב', 'IL', null),
  c('Nordlicht Handel KG', 'Speicherstadt 4\n20457 Hamburg\nGermany', 'Speicherstadt 4', '20457', 'Hamburg', 'DE',
    'DE813495425')
]

/**
 * domestic: German VAT (S) at 19 % and 7 %; credit: a credit note (381) crediting invoice 1 in
 * full; allowance: domestic with a document-level allowance; reverse: domestic reverse charge (AE,
 * § 13b UStG); intra: intra-community supply (K); export: outside the EU (G).
 */
export type DemoKind = 'domestic' | 'credit' | 'allowance' | 'reverse' | 'intra' | 'export'
export interface PlannedInvoice { customer: number, kind: DemoKind, currency: string }

const plan = (customer: number, kind: DemoKind, currency = 'EUR'): PlannedInvoice => ({ customer, kind, currency })
/** Invoice id n is INVOICE_PLAN[n - 1]; customers are 1-based ids into CUSTOMERS. */
export const INVOICE_PLAN: PlannedInvoice[] = [
  plan(1, 'domestic'), plan(2, 'export'), plan(8, 'intra'), plan(4, 'intra'), plan(5, 'export', 'USD'),
  plan(1, 'credit'), plan(6, 'intra'), plan(1, 'reverse'), plan(12, 'allowance'), plan(9, 'intra'),
  plan(10, 'export'), plan(11, 'export')
]

/** sku, description, net price in cents, Rec. 20 unit, German VAT rate. */
export const PRODUCTS: Array<[string, string, number, string, number]> = [
  ['WID-100', 'Widget, standard', 1290, 'H87', 19], ['WID-200', 'Widget, deluxe', 2490, 'H87', 19],
  ['GAD-010', 'Gadget', 735, 'H87', 19], ['SPR-001', 'Spring set (10 pcs)', 320, 'SET', 19],
  ['CAB-M', 'Cable, by the metre', 199, 'MTR', 19], ['BOL-M8', 'Bolt M8 × 40, zinc', 45, 'H87', 19],
  ['NUT-M8', 'Nut M8', 12, 'H87', 19], ['SRV-HR', 'Service hour', 8500, 'HUR', 19],
  ['PMP-300', 'Pump, 300 l/h, with a rather long description that wraps onto a second line', 18900, 'H87', 19],
  ['VLV-025', 'Valve DN25', 4750, 'H87', 19], ['FLT-010', 'Filter cartridge', 1575, 'H87', 19],
  ['GSK-SET', 'Gasket set', 860, 'SET', 19],
  // Books are taxed at the reduced rate in Germany: a second VAT rate on domestic invoices.
  ['DOC-MAN', 'Installation manual, printed', 2450, 'H87', 7]
]

export const cents = (n: number): string =>
  (n < 0 ? '-' : '') + `${Math.floor(Math.abs(n) / 100)}.${String(Math.abs(n) % 100).padStart(2, '0')}`
/** n / d rounded half away from zero, in integers (the engine's rounding). */
const divRound = (n: number, d: number): number => Math.sign(n) * Math.floor((Math.abs(n) + d / 2) / d)

export interface Rand { int: (lo: number, hi: number) => number }
export interface DemoInvoice {
  /** VAT category and rate of the lines, and the figures of the header row. */
  lines: unknown[][]
  allowances: unknown[][]
  subtotal: string
  tax: string
  total: string
}

function category (kind: DemoKind, germanRate: number): [string, number] {
  if (kind === 'intra') return ['K', 0]
  if (kind === 'export') return ['G', 0]
  if (kind === 'reverse') return ['AE', 0]
  return ['S', germanRate]
}

/**
 * The lines (and allowance) of invoice `id` and the figures its header carries. A credit note
 * credits `corrected` (invoice 1) in full: its lines, and so its figures, are that invoice's.
 */
export function demoInvoice (id: number, kind: DemoKind, lineCount: number, rnd: Rand,
  corrected?: DemoInvoice): DemoInvoice {
  if (kind === 'credit' && corrected !== undefined) {
    return { ...corrected, lines: corrected.lines.map(([, ...rest]) => [id, ...rest]), allowances: [] }
  }
  const lines: unknown[][] = []
  const base = new Map<string, { cat: string, rate: number, cents: number }>()
  const add = (cat: string, rate: number, amount: number): void => {
    const key = `${cat}/${rate}`
    const b = base.get(key) ?? { cat, rate, cents: 0 }
    b.cents += amount
    base.set(key, b)
  }
  let lineTotal = 0
  for (let n = 1; n <= lineCount; n++) {
    // Every domestic invoice has a book (7 %) as its second line: two VAT rates.
    const product = n === 2 && kind !== 'intra' && kind !== 'export' && kind !== 'reverse'
      ? PRODUCTS[PRODUCTS.length - 1]
      : PRODUCTS[rnd.int(0, PRODUCTS.length - 1)]
    if (product === undefined) throw new Error('demo data: no product')
    const [sku, description, price, unit, rate] = product
    const qtyMilli = unit === 'HUR' ? rnd.int(1, 16) * 500 : rnd.int(1, 25) * 1000
    const amount = divRound(price * qtyMilli, 1000)
    const [cat, vatRate] = category(kind, rate)
    add(cat, vatRate, amount)
    lineTotal += amount
    lines.push([id, n, sku, description, (qtyMilli / 1000).toFixed(3), unit, cents(price), cat, vatRate.toFixed(2),
      cents(amount)])
  }
  const allowances: unknown[][] = []
  let allowanceTotal = 0
  if (kind === 'allowance') {
    // 3 % off the goods at 19 %, granted on the whole invoice (BG-20), not on a line.
    const at19 = base.get('S/19')?.cents ?? 0
    const amount = divRound(at19 * 3, 100)
    allowances.push([id, 1, 'Loyalty discount 3 %', cents(amount), 'S', '19.00'])
    add('S', 19, -amount)
    allowanceTotal = amount
  }
  let tax = 0
  for (const b of base.values()) tax += divRound(b.cents * b.rate, 100)
  const subtotal = lineTotal - allowanceTotal
  return { lines, allowances, subtotal: cents(subtotal), tax: cents(tax), total: cents(subtotal + tax) }
}
