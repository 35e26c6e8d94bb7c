// A generated corpus of invoices (fixed seed): 1–300 lines, mixed VAT categories and rates,
// allowances and charges at line and document level, credit notes, several currencies, long
// and non-Latin names and addresses. Each scenario is one VAT situation EN 16931 allows on a
// single invoice (O stands alone; K and AE carry what their rules need).
import type { InvoiceData } from './fixtures.js'
import { invoiceData } from './fixtures.js'

type Obj = Record<string, unknown>

/** mulberry32: a small deterministic PRNG. */
export function prng (seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const NAMES = [
  'Łódź Hurtownia Spółka z ograniczoną odpowiedzialnością Oddział Północny',
  'Αθήνα Εμπορική Ανώνυμη Εταιρεία Εισαγωγών και Εξαγωγών',
  'Москва Торговый Дом Общество с ограниченной ответственностью',
  'שלום עולם בע״מ', 'شركة النور للتجارة والمقاولات العامة', '上海贸易有限公司', 'Müller & Söhne GmbH <Export> "Nord"',
  'Société Générale des Établissements Dupont-Lefèvre et Associés, Succursale de Lyon-Villeurbanne'
]
const CITIES = ['Paris', 'Kraków', 'Θεσσαλονίκη', 'Санкт-Петербург', 'القاهرة', '北京', 'Wien']
const ITEMS = ['Widget', 'Schraube M8 × 40', 'Ηλεκτρικό καλώδιο', 'Кабель 5 м', 'مفتاح ربط', '螺丝刀套装', 'Service hour',
  'Ürün & Co <b>']
const UNITS = ['H87', 'C62', 'HUR', 'KGM', 'MTR', 'LTR', 'DAY', 'SET']
const CURRENCIES = ['EUR', 'EUR', 'EUR', 'USD', 'CHF', 'GBP', 'PLN', 'SEK']

type Scenario = 'standard' | 'zero' | 'exempt' | 'reverse' | 'intra' | 'export' | 'outside'
const SCENARIOS: Scenario[] = ['standard', 'standard', 'standard', 'zero', 'exempt', 'reverse', 'intra', 'export',
  'outside']

/** The categories (and rates) a scenario's lines draw from. */
function categories (s: Scenario): Array<[string, string | null]> {
  switch (s) {
    case 'standard': return [['S', '19'], ['S', '7'], ['S', '20'], ['S', '5.5'], ['Z', '0'], ['E', '0']]
    case 'zero': return [['Z', '0'], ['S', '21']]
    case 'exempt': return [['E', '0'], ['S', '19']]
    case 'reverse': return [['AE', '0']]
    case 'intra': return [['K', '0']]
    case 'export': return [['G', '0']]
    case 'outside': return [['O', null]]
  }
}

const money = (r: () => number, max: number): string => (Math.floor(r() * max * 100) / 100 + 0.01).toFixed(2)

export function corpusInvoice (i: number, seed = 33): InvoiceData & { scenario: Scenario } {
  const r = prng(seed * 1000 + i)
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!
  const scenario = SCENARIOS[i % SCENARIOS.length]!
  const cats = categories(scenario)
  // Mostly short invoices; one in 40 is long (100–300 lines).
  const n = i % 40 === 3 ? 100 + Math.floor(r() * 201) : 1 + Math.floor(r() * 12)
  const lines: Obj[] = []
  for (let k = 1; k <= n; k++) {
    const [category, rate] = pick(cats)
    const qty = r() < 0.3 ? (Math.floor(r() * 10000) / 1000 + 0.001).toFixed(3) : String(1 + Math.floor(r() * 20))
    const line: Obj = {
      line_no: k,
      sku: `SKU-${i}-${k}`,
      description: `${pick(ITEMS)} ${k}`,
      qty,
      unit: pick(UNITS),
      unit_price: r() < 0.2 ? (r() * 50).toFixed(4) : money(r, 500),
      vat_category: category,
      vat_rate: rate
    }
    if (r() < 0.15) line.discount = money(r, 5)
    lines.push(line)
  }
  const used = [...new Map(lines.map((l) => [`${String(l.vat_category)}/${String(l.vat_rate)}`, l])).values()]
  const allowances: Obj[] = []
  const charges: Obj[] = []
  if (r() < 0.4) {
    const l = pick(used)
    allowances.push({
      amount: money(r, 3),
      reason: 'Rabatt für Stammkunden',
      category: l.vat_category,
      rate: l.vat_rate
    })
  }
  if (r() < 0.3) {
    const l = pick(used)
    charges.push({ amount: money(r, 20), reason: 'Fracht / Verpackung', category: l.vat_category, rate: l.vat_rate })
  }
  const outside = scenario === 'outside'
  const foreign = scenario === 'intra' || scenario === 'export'
  const base = invoiceData({
    header: {
      number: `CORPUS-${String(i).padStart(4, '0')}`,
      type_code: r() < 0.15 ? '381' : '380',
      currency: pick(CURRENCIES),
      customer_name: pick(NAMES),
      customer_street: `${pick(NAMES).slice(0, 30)} ${1 + Math.floor(r() * 200)}`,
      customer_city: pick(CITIES),
      customer_country: scenario === 'export' ? 'CH' : foreign ? 'FR' : 'DE',
      seller_vat_id: outside ? null : 'DE123456789',
      customer_vat_id: outside || scenario === 'export' ? null : foreign ? 'FR12345678901' : 'DE987654321'
    },
    lines,
    allowances,
    charges
  })
  return { ...base, scenario }
}
