// A demo database made before the demo invoice became an e-invoice (no type_code, units or VAT
// columns) gets the e-invoice's tables when the demo runs again, as every environment must.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { createDb } from '../../../server/store/db.js'
import { seedDemoDatabase } from '../../../server/demo/data.js'
import { INVOICE_PLAN } from '../../../server/demo/invoices.js'
import { serverUrl } from '../../helpers/db.js'
import { createDataDatabase } from '../datasources/helpers.js'
import type { DataDatabase } from '../datasources/helpers.js'

const tail = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4'
// The tables as the demo made them before (server/demo/data.ts at the start of issue 33's demo work).
const OLD = [
  `CREATE TABLE customers (id INT NOT NULL PRIMARY KEY, name VARCHAR(200) NOT NULL, address VARCHAR(500) NOT NULL) ${tail}`,
  `CREATE TABLE invoices (id INT NOT NULL PRIMARY KEY, number VARCHAR(32) NOT NULL UNIQUE, customer_id INT NOT NULL,
    issued_on DATE NOT NULL, due_on DATE NOT NULL, currency CHAR(3) NOT NULL, subtotal DECIMAL(12,2) NOT NULL,
    tax DECIMAL(12,2) NOT NULL, total DECIMAL(12,2) NOT NULL) ${tail}`,
  `CREATE TABLE invoice_lines (invoice_id INT NOT NULL, line_no INT NOT NULL, sku VARCHAR(32) NOT NULL,
    description VARCHAR(300) NOT NULL, qty DECIMAL(10,3) NOT NULL, unit_price DECIMAL(12,2) NOT NULL,
    amount DECIMAL(12,2) NOT NULL, PRIMARY KEY (invoice_id, line_no)) ${tail}`,
  "INSERT INTO customers VALUES (1, 'Old customer', 'Somewhere')",
  "INSERT INTO invoices VALUES (1, 'INV-OLD-1', 1, '2025-01-06', '2025-02-05', 'EUR', 10, 1.9, 11.9)",
  "INSERT INTO invoice_lines VALUES (1, 1, 'X', 'Old line', 1, 10, 10)"
]

let db: DataDatabase | undefined
after(async () => { await db?.drop() })

test('an older demo database gets the e-invoice columns and rows on the next seed; a further seed changes nothing',
  async () => {
    db = await createDataDatabase(OLD)
    const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
    const conn = await admin.getConnection()
    try {
      const first = await seedDemoDatabase(conn, db.name, 1001, 'dev')
      assert.equal(first.seeded, true)
      assert.equal(first.counts.invoices, INVOICE_PLAN.length)
      const [rows] = await conn.query(`SELECT i.number, i.type_code, c.country, l.unit, l.vat_category
        FROM \`${db.name}\`.invoices i JOIN \`${db.name}\`.customers c ON c.id = i.customer_id
        JOIN \`${db.name}\`.invoice_lines l ON l.invoice_id = i.id WHERE i.id = 1 AND l.line_no = 2`) as unknown as
        [Array<{ number: string, type_code: string, country: string, unit: string, vat_category: string }>]
      assert.deepEqual(rows.map((r) => [r.number.startsWith('INV-dev-'), r.type_code, r.country, r.vat_category]),
        [[true, '380', 'DE', 'S']])
      const again = await seedDemoDatabase(conn, db.name, 1001, 'dev')
      assert.equal(again.seeded, false)
      assert.deepEqual(again.counts, first.counts)
    } finally { conn.release(); await admin.end() }
  })
