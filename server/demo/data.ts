// Sample data for the demo databases, shaped exactly as the SQL of examples/templates/*.json
// reads it: customers + invoices + invoice_lines + invoice_allowances (the invoice, a Factur-X
// e-invoice: docs/einvoice.md), sales (sales-report), parcels (shipping-label). Generated from a
// seeded PRNG, so a database is the same on every run. The invoices' own figures (line amounts,
// subtotal, tax, total) follow the rounding of docs/einvoice.md, since the engine checks them.
import { onlyRow, type Conn } from '../store/db.js'
import { cents, CUSTOMERS, demoInvoice, INVOICE_PLAN, PRODUCTS, type DemoInvoice } from './invoices.js'

export const DEMO_TABLES = ['customers', 'invoices', 'invoice_lines', 'invoice_allowances', 'sales', 'parcels'] as const

export function demoDdl (db: string): string[] {
  const q = (t: string): string => `\`${db}\`.\`${t}\``
  const tail = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci'
  return [
    // address: as printed; street … country (ISO 3166-1) and vat_id: the e-invoice's buyer terms.
    `CREATE TABLE IF NOT EXISTS ${q('customers')} (id INT NOT NULL PRIMARY KEY, name VARCHAR(200) NOT NULL,
      address VARCHAR(500) NOT NULL, street VARCHAR(200) NOT NULL, postcode VARCHAR(20) NOT NULL, city VARCHAR(100) NOT NULL,
      country CHAR(2) NOT NULL, vat_id VARCHAR(20) NULL) ${tail}`,
    // type_code: UNTDID 1001 (380 invoice, 381 credit note); preceding_number: the invoice a credit note corrects.
    `CREATE TABLE IF NOT EXISTS ${q('invoices')} (id INT NOT NULL PRIMARY KEY, number VARCHAR(32) NOT NULL UNIQUE, customer_id INT NOT NULL,
      type_code CHAR(3) NOT NULL, issued_on DATE NOT NULL, due_on DATE NOT NULL, delivered_on DATE NOT NULL,
      preceding_number VARCHAR(32) NULL, currency CHAR(3) NOT NULL, subtotal DECIMAL(12,2) NOT NULL, tax DECIMAL(12,2) NOT NULL,
      total DECIMAL(12,2) NOT NULL, KEY ix_customer (customer_id)) ${tail}`,
    // unit: UN/ECE Rec. 20; vat_category: UNCL 5305 (S, K, AE, G …); vat_rate in percent.
    `CREATE TABLE IF NOT EXISTS ${q('invoice_lines')} (invoice_id INT NOT NULL, line_no INT NOT NULL, sku VARCHAR(32) NOT NULL,
      description VARCHAR(300) NOT NULL, qty DECIMAL(10,3) NOT NULL, unit CHAR(3) NOT NULL, unit_price DECIMAL(12,2) NOT NULL,
      vat_category VARCHAR(2) NOT NULL, vat_rate DECIMAL(5,2) NOT NULL, amount DECIMAL(12,2) NOT NULL,
      PRIMARY KEY (invoice_id, line_no)) ${tail}`,
    // Document-level allowances (EN 16931 BG-20), each in one VAT category and rate.
    `CREATE TABLE IF NOT EXISTS ${q('invoice_allowances')} (invoice_id INT NOT NULL, seq INT NOT NULL, reason VARCHAR(200) NOT NULL,
      amount DECIMAL(12,2) NOT NULL, vat_category VARCHAR(2) NOT NULL, vat_rate DECIMAL(5,2) NOT NULL,
      PRIMARY KEY (invoice_id, seq)) ${tail}`,
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

const day = (d: Date): string => d.toISOString().slice(0, 10)
const addDays = (d: Date, n: number): Date => new Date(d.getTime() + n * 86_400_000)

export interface DemoRows {
  customers: unknown[][]
  invoices: unknown[][]
  invoice_lines: unknown[][]
  invoice_allowances: unknown[][]
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
  const rows: DemoRows = {
    customers: [], invoices: [], invoice_lines: [], invoice_allowances: [], sales: [], parcels: []
  }
  CUSTOMERS.forEach((k, i) => rows.customers.push([i + 1, k.name, k.address, k.street, k.postcode, k.city, k.country,
    k.vatId]))

  const numbers: string[] = []
  let first: DemoInvoice | undefined
  INVOICE_PLAN.forEach(({ customer, kind, currency }, i) => {
    const id = i + 1
    const lines = id === 1 ? 5 : id === 2 ? 40 : int(5, 40)
    const inv = demoInvoice(id, kind, lines, { int }, first)
    first ??= inv
    rows.invoice_lines.push(...inv.lines)
    rows.invoice_allowances.push(...inv.allowances)
    const issued = addDays(new Date('2025-01-06T00:00:00Z'), (id - 1) * 37 + int(0, 20))
    const credit = kind === 'credit'
    const number = `${credit ? 'CN' : 'INV'}-${label}-${issued.getUTCFullYear()}-${String(id).padStart(4, '0')}`
    numbers.push(number)
    rows.invoices.push([id, number, customer, credit ? '381' : '380', day(issued), day(addDays(issued, 30)),
      day(addDays(issued, -int(0, 5))), credit ? numbers[0] : null, currency, inv.subtotal, inv.tax, inv.total])
  })

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
        pick(CUSTOMERS).name,
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
  customers: 'id, name, address, street, postcode, city, country, vat_id',
  invoices: 'id, number, customer_id, type_code, issued_on, due_on, delivered_on, preceding_number, currency, subtotal, ' +
    'tax, total',
  invoice_lines: 'invoice_id, line_no, sku, description, qty, unit, unit_price, vat_category, vat_rate, amount',
  invoice_allowances: 'invoice_id, seq, reason, amount, vat_category, vat_rate',
  sales: 'id, region, sold_on, customer, product, qty, amount',
  parcels: 'id, batch_id, tracking_no, recipient_name, street, city, postcode, country, weight_kg, qty'
}

/**
 * Creates the tables and fills them once: when `invoices` already has rows the database is left
 * as it is (re-running the demo never duplicates). The inserts run in one transaction. A demo
 * database from before the e-invoice (its invoices lack `type_code`) has its invoice tables
 * dropped and made again, so every environment of an existing demo gets the new columns.
 */
export async function seedDemoDatabase (
  conn: Conn,
  db: string,
  seed: number,
  label: string
): Promise<{ seeded: boolean, counts: Record<string, number> }> {
  const [old] = (await conn.query('SELECT COUNT(*) AS n FROM information_schema.TABLES t WHERE t.TABLE_SCHEMA = ? AND ' +
    "t.TABLE_NAME = 'invoices' AND NOT EXISTS (SELECT 1 FROM information_schema.COLUMNS c WHERE c.TABLE_SCHEMA = ? AND " +
    "c.TABLE_NAME = 'invoices' AND c.COLUMN_NAME = 'type_code')", [db, db])) as unknown as [Array<{ n: number }>]
  if (Number(onlyRow(old).n) > 0) {
    for (const t of ['customers', 'invoices', 'invoice_lines']) await conn.query(`DROP TABLE IF EXISTS \`${db}\`.\`${t}\``)
  }
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
