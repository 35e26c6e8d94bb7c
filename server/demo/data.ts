// Sample data for the demo databases, shaped exactly as the SQL of examples/templates/*.json
// reads it: customers + invoices + invoice_lines (invoice), sales (sales-report), parcels
// (shipping-label). Generated from a seeded PRNG, so a database is the same on every run.
import { onlyRow, type Conn } from '../store/db.js'

export const DEMO_TABLES = ['customers', 'invoices', 'invoice_lines', 'sales', 'parcels'] as const

export function demoDdl (db: string): string[] {
  const q = (t: string): string => `\`${db}\`.\`${t}\``
  const tail = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci'
  return [
    `CREATE TABLE IF NOT EXISTS ${q('customers')} (id INT NOT NULL PRIMARY KEY, name VARCHAR(200) NOT NULL, ` +
      `address VARCHAR(500) NOT NULL) ${tail}`,
    `CREATE TABLE IF NOT EXISTS ${q('invoices')} (id INT NOT NULL PRIMARY KEY, number VARCHAR(32) NOT NULL UNIQUE, customer_id INT NOT NULL,
      issued_on DATE NOT NULL, due_on DATE NOT NULL, currency CHAR(3) NOT NULL, subtotal DECIMAL(12,2) NOT NULL, tax DECIMAL(12,2) NOT NULL,
      total DECIMAL(12,2) NOT NULL, KEY ix_customer (customer_id)) ${tail}`,
    `CREATE TABLE IF NOT EXISTS ${q('invoice_lines')} (invoice_id INT NOT NULL, line_no INT NOT NULL, sku VARCHAR(32) NOT NULL,
      description VARCHAR(300) NOT NULL, qty DECIMAL(10,3) NOT NULL, unit_price DECIMAL(12,2) NOT NULL, amount DECIMAL(12,2) NOT NULL,
      PRIMARY KEY (invoice_id, line_no)) ${tail}`,
    `CREATE TABLE IF NOT EXISTS ${q('sales')} (id INT NOT NULL PRIMARY KEY, region VARCHAR(32) NOT NULL, sold_on DATE NOT NULL,
      customer VARCHAR(200) NOT NULL, product VARCHAR(100) NOT NULL, qty INT NOT NULL, amount DECIMAL(12,2) NOT NULL, KEY ix_sold_on (sold_on)) ${tail}`,
    `CREATE TABLE IF NOT EXISTS ${q('parcels')} (id INT NOT NULL PRIMARY KEY, batch_id INT NOT NULL, tracking_no VARCHAR(40) NOT NULL,
      recipient_name VARCHAR(200) NOT NULL, street VARCHAR(200) NOT NULL, city VARCHAR(100) NOT NULL, postcode VARCHAR(20) NOT NULL,
      country VARCHAR(100) NOT NULL, weight_kg DECIMAL(8,3) NOT NULL, qty INT NOT NULL, KEY ix_batch (batch_id)) ${tail}`
  ]
}

/** mulberry32: tiny, deterministic, good enough for sample data. */
function prng (seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6D2B79F5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const CUSTOMERS: Array<[string, string]> = [
  ['Müller & Söhne GmbH', 'Musterstraße 12\n10115 Berlin\nGermany'],
  ['Fjord Imports AS', 'Bryggen 7\n5003 Bergen\nNorway'],
  ['Cobalt & Co Ltd', '14 Canal Street\nManchester M1 3HE\nUnited Kingdom'],
  ['Delta Foods S.A.', '22 rue de la Paix\n75002 Paris\nFrance'],
  ['Granite Works Inc.', '500 Quarry Road\nBarre, VT 05641\nUSA'],
  ['Brightside Retail BV', 'Keizersgracht 123\n1015 CJ Amsterdam\nNetherlands'],
  ['Evergreen Stores Oy', 'Mannerheimintie 5\n00100 Helsinki\nFinland'],
  ['Łódź Hurt Sp. z o.o.', 'ul. Piotrkowska 90\n90-103 Łódź\nPoland'],
  // Scripts beyond WinAnsi: documents draw them with the default font stack (docs/layout.md).
  ['Αθηναϊκή Εμπορική Α.Ε.', 'Ερμού 25\n105 63 Αθήνα\nΕλλάδα'],
  ['شركة النور للتجارة', 'شارع التحرير 15\nالقاهرة 11511\nمصر'],
  ['אור סחר בע״מ', 'רחוב הרצל 10\nתל אביב 6578901\nישראל']
]

const PRODUCTS: Array<[string, string, number]> = [
  ['WID-100', 'Widget, standard', 1290], ['WID-200', 'Widget, deluxe', 2490], ['GAD-010', 'Gadget', 735],
  ['SPR-001', 'Spring set (10 pcs)', 320], ['CAB-5M', 'Cable 5 m', 999], ['BOL-M8', 'Bolt M8 × 40, zinc', 45],
  ['NUT-M8', 'Nut M8', 12], ['SRV-HR', 'Service hour', 8500], ['PMP-300', 'Pump, 300 l/h, ' +
    'with a rather long description that wraps onto a second line', 18900],
  ['VLV-025', 'Valve DN25', 4750], ['FLT-010', 'Filter cartridge', 1575], ['GSK-SET', 'Gasket set', 860]
]

const REGIONS = ['North', 'South', 'East', 'West', 'Central']

const RECIPIENTS: Array<[string, string, string, string, string]> = [
  ['Jane Doe', '42 Harbour Street', 'Portsmouth', 'PO1 3AX', 'United Kingdom'],
  ['Jürgen Groß', 'Königsallee 5', 'Düsseldorf', '40212', 'Deutschland'],
  ['Zoë Lefèvre', "8 rue de l'Église", 'Lyon', '69002', 'France'],
  ['ACME_Test ^XZ^XA~JA', '1 Injection Way', 'Testville', '12345', 'United States'],
  ['Søren Kierkegaard', 'Nytorv 2', 'København', '1450', 'Danmark'],
  ['María José García', 'Calle Mayor 10', 'Madrid', '28013', 'España'],
  ['Giulia Rossi', 'Via Roma 77', 'Torino', '10121', 'Italia'],
  ['Olof Åström', 'Drottninggatan 3', 'Stockholm', '111 51', 'Sverige']
]

const cents = (n: number): string => (n < 0 ? '-' : '') + `${Math.floor(Math.abs(n) / 100)}.${String(Math.abs(n) % 100).padStart(2, '0')}`
const day = (d: Date): string => d.toISOString().slice(0, 10)
const addDays = (d: Date, n: number): Date => new Date(d.getTime() + n * 86_400_000)

export interface DemoRows {
  customers: unknown[][]
  invoices: unknown[][]
  invoice_lines: unknown[][]
  sales: unknown[][]
  parcels: unknown[][]
}

/** All rows of one demo database. `seed` differs per environment so the three are told apart. */
export function demoRows (seed: number, label: string): DemoRows {
  const rnd = prng(seed)
  const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1))
  const pick = <T>(list: readonly T[]): T => {
    const v = list[int(0, list.length - 1)]
    if (v === undefined) throw new Error('demo data: pick from an empty list')
    return v
  }
  const rows: DemoRows = { customers: [], invoices: [], invoice_lines: [], sales: [], parcels: [] }
  CUSTOMERS.forEach(([name, address], i) => rows.customers.push([i + 1, name, address]))

  for (let id = 1; id <= 12; id++) {
    const lines = id === 1 ? 5 : id === 2 ? 40 : int(5, 40)
    let subtotal = 0
    for (let n = 1; n <= lines; n++) {
      const [sku, description, price] = pick(PRODUCTS)
      const qtyMilli = sku === 'SRV-HR' ? int(1, 16) * 500 : int(1, 25) * 1000
      const amount = Math.round(price * qtyMilli / 1000)
      subtotal += amount
      rows.invoice_lines.push([id, n, sku, description, (qtyMilli / 1000).toFixed(3), cents(price), cents(amount)])
    }
    const tax = Math.round(subtotal * 0.19)
    const issued = addDays(new Date('2025-01-06T00:00:00Z'), (id - 1) * 37 + int(0, 20))
    rows.invoices.push([id, `INV-${label}-${issued.getUTCFullYear()}-${String(id).padStart(4, '0')}`, ((id - 1) % CUSTOMERS.length) + 1,
      day(issued), day(addDays(issued, 30)), 'EUR', cents(subtotal), cents(tax), cents(subtotal + tax)])
  }

  // About 3,650 sales over 2025-01-01 … 2026-12-31: five a day on average, across the regions.
  let saleId = 0
  const start = new Date('2025-01-01T00:00:00Z')
  for (let d = 0; d < 730; d++) {
    const count = int(3, 7)
    for (let k = 0; k < count; k++) {
      const [, product, price] = pick(PRODUCTS)
      const qty = int(1, 40)
      const discount = int(80, 100)
      rows.sales.push([
        ++saleId,
        pick(REGIONS),
        day(addDays(start, d)),
        pick(CUSTOMERS)[0],
        product,
        qty,
        cents(Math.round((price * qty * discount) / 100))
      ])
    }
  }

  // Three shipping batches, 24 parcels in all (batch 1 has 12).
  for (let id = 1; id <= 24; id++) {
    const batch = id <= 12 ? 1 : id <= 20 ? 2 : 3
    const [name, street, city, postcode, country] = RECIPIENTS[(id - 1) % RECIPIENTS.length]!
    const tracking = `1Z${label.toUpperCase().slice(0, 3).padEnd(3, 'X')}${String(seed % 1000).padStart(3, '0')}${String(10_000_000 + id * 7919).slice(-8)}`
    rows.parcels.push([
      id,
      batch,
      tracking,
      name,
      street,
      city,
      postcode,
      country,
      (int(100, 25_000) / 1000).toFixed(3),
      id % 5 === 0 ? 2 : 1
    ])
  }
  return rows
}

const COLUMNS: Record<keyof DemoRows, string> = {
  customers: 'id, name, address',
  invoices: 'id, number, customer_id, issued_on, due_on, currency, subtotal, tax, total',
  invoice_lines: 'invoice_id, line_no, sku, description, qty, unit_price, amount',
  sales: 'id, region, sold_on, customer, product, qty, amount',
  parcels: 'id, batch_id, tracking_no, recipient_name, street, city, postcode, country, weight_kg, qty'
}

/**
 * Creates the tables and fills them once: when `invoices` already has rows the database is left
 * as it is (re-running the demo never duplicates). The inserts run in one transaction.
 */
export async function seedDemoDatabase (
  conn: Conn,
  db: string,
  seed: number,
  label: string
): Promise<{ seeded: boolean, counts: Record<string, number> }> {
  for (const sql of demoDdl(db)) await conn.query(sql)
  const count = async (t: string): Promise<number> => {
    const [r] = (await conn.query(`SELECT COUNT(*) AS n FROM \`${db}\`.\`${t}\``)) as unknown as [Array<{ n: number }>]
    return Number(onlyRow(r).n)
  }
  let seeded = false
  if ((await count('invoices')) === 0) {
    const rows = demoRows(seed, label)
    await conn.beginTransaction()
    try {
      for (const t of DEMO_TABLES) {
        await conn.query(`DELETE FROM \`${db}\`.\`${t}\``)
        // Sample data we generate ourselves, sent as bound bulk values in chunks.
        for (let i = 0; i < rows[t].length; i += 500) {
          await conn.query(`INSERT INTO \`${db}\`.\`${t}\` (${COLUMNS[t]}) VALUES ?`, [rows[t].slice(i, i + 500)])
        }
      }
      await conn.commit()
      seeded = true
    } catch (err) {
      await conn.rollback().catch(() => {})
      throw err
    }
  }
  const counts: Record<string, number> = {}
  for (const t of DEMO_TABLES) counts[t] = await count(t)
  return { seeded, counts }
}
