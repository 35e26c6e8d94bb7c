// A data-source database for render tests: the tables the example templates query, with a
// few rows, on the suite's MariaDB; plus a workspace whose environments point at it and the
// example templates published through the real templates service.
import type { Logger } from 'pino'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createHash, randomBytes } from 'node:crypto'
import { createDb, parseMysqlUrl } from '../../server/store/db.js'
import type { Context } from '../../server/context.js'
import { serverUrl } from './db.js'
import { examplesDir } from '../../server/util/paths.js'
import type { KeyMode, Scope } from '../../server/util/api-key-format.js'

const SCHEMA = [
  // The invoice is a Factur-X e-invoice (docs/einvoice.md): buyer address and VAT id, units and
  // VAT per line, and figures that agree with the engine's (it checks them).
  `CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(200), address VARCHAR(500), street VARCHAR(200),
    postcode VARCHAR(20), city VARCHAR(100), country CHAR(2), vat_id VARCHAR(20))`,
  `CREATE TABLE invoices (id INT PRIMARY KEY, number VARCHAR(32), type_code CHAR(3), issued_on DATE, due_on DATE,
    delivered_on DATE, preceding_number VARCHAR(32), customer_id INT, currency CHAR(3), subtotal DECIMAL(12,2),
    tax DECIMAL(12,2), total DECIMAL(12,2))`,
  `CREATE TABLE invoice_lines (invoice_id INT, line_no INT, sku VARCHAR(32), description VARCHAR(200), qty DECIMAL(10,2),
    unit CHAR(3), unit_price DECIMAL(12,2), vat_category VARCHAR(2), vat_rate DECIMAL(5,2), amount DECIMAL(12,2),
    PRIMARY KEY (invoice_id, line_no))`,
  `CREATE TABLE invoice_allowances (invoice_id INT, seq INT, reason VARCHAR(200), amount DECIMAL(12,2),
    vat_category VARCHAR(2), vat_rate DECIMAL(5,2), PRIMARY KEY (invoice_id, seq))`,
  `CREATE TABLE sales (id INT AUTO_INCREMENT PRIMARY KEY, region VARCHAR(64), sold_on DATE, customer VARCHAR(200), product VARCHAR(200),
    qty INT, amount DECIMAL(12,2))`,
  `CREATE TABLE parcels (id INT AUTO_INCREMENT PRIMARY KEY, batch_id INT, tracking_no VARCHAR(64), recipient_name VARCHAR(200),
    street VARCHAR(200), city VARCHAR(100), postcode VARCHAR(20), country VARCHAR(2), weight_kg DECIMAL(6,2), qty INT)`,
  // Slow datasets for tests that need a render to last (dataset SQL may not call SLEEP itself:
  // docs/security.md, 3): `SELECT pause_for(2.5) AS pause, …` sleeps, then answers 0.
  'CREATE FUNCTION pause_for (seconds DOUBLE) RETURNS INT NOT DETERMINISTIC NO SQL RETURN SLEEP(seconds)'
]

/** The read-only user of a data database (data sources never use the service database's user). */
const readerOf = (name: string): string => `ro_${createHash('sha256').update(name).digest('hex').slice(0, 12)}`

/** Creates and fills the data database; answers the data-source URL of its SELECT-only user. */
export async function createDataDatabase (name: string, options: { salesRows?: number } = {}): Promise<string> {
  const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  const password = randomBytes(12).toString('hex')
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`)
  await admin.query(`CREATE USER '${readerOf(name)}'@'%' IDENTIFIED BY '${password}'`)
  await admin.query(`GRANT SELECT, EXECUTE ON \`${name}\`.* TO '${readerOf(name)}'@'%'`)
  await admin.end()
  const { host, port } = parseMysqlUrl(`${serverUrl()}/x`)
  const url = `mysql://${readerOf(name)}:${password}@${host}:${port}/${name}`
  const db = createDb(`${serverUrl()}/${name}`, { connectionLimit: 1 })
  for (const sql of SCHEMA) await db.query(sql)
  await db.query(`INSERT INTO customers VALUES
    (1, 'Acme Corp', '1 Main Street, Springfield', '1 Main Street', '10115', 'Berlin', 'DE', 'DE811907980'),
    (2, 'Globex', '2 Side Road, Shelbyville', '2 Side Road', '62565', 'Shelbyville', 'US', NULL)`)
  // 1: twelve lines at 19 % (99.96 + 18.99); 2: an export (G, no VAT) in USD.
  await db.query(`INSERT INTO invoices VALUES
    (1, 'INV-2026-0001', '380', '2026-11-01', '2026-12-01', '2026-10-30', NULL, 1, 'EUR', 99.96, 18.99, 118.95),
    (2, 'INV-2026-0002', '380', '2026-11-02', '2026-12-02', '2026-10-30', NULL, 2, 'USD', 50.00, 0.00, 50.00)`)
  const lines: unknown[][] = []
  for (let i = 1; i <= 12; i++) lines.push([1, i, `SKU-${i}`, `Widget number ${i}`, 1, 'H87', 8.33, 'S', 19, 8.33])
  lines.push([2, 1, 'SKU-X', 'Single item', 2, 'H87', 25.00, 'G', 0, 50.00])
  await db.query('INSERT INTO invoice_lines VALUES ?', [lines])
  const sales: unknown[][] = []
  const regions = ['North', 'South', 'East', 'West']
  for (let i = 0; i < (options.salesRows ?? 400); i++) {
    sales.push([regions[i % 4], `2026-0${1 + (i % 9)}-1${i % 10}`, `Customer ${i % 37}`, `Product ${i % 11}`, 1 + (i % 5), ((i * 37) % 1000) + 0.5])
  }
  await db.query('INSERT INTO sales (region, sold_on, customer, product, qty, amount) VALUES ?', [sales])
  await db.query(`INSERT INTO parcels (batch_id, tracking_no, recipient_name, street, city, postcode, country, weight_kg, qty) VALUES
    (7, 'TRK0001', 'Ann Smith', '1 Elm St', 'Boston', '02101', 'US', 1.25, 1),
    (7, 'TRK0002', 'Bob Müller', 'Hauptstr. 2', 'Zürich', '8001', 'CH', 2.50, 2)`)
  await db.end()
  return url
}

export async function dropDataDatabase (name: string): Promise<void> {
  const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  await admin.query(`DROP DATABASE IF EXISTS \`${name}\``)
  await admin.query(`DROP USER IF EXISTS '${readerOf(name)}'@'%'`)
  await admin.end()
}

export async function readExample (name: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(examplesDir, 'templates', `${name}.json`), 'utf8'))
}

/** A workspace with development/staging/production on `dataUrl`, the examples published and a key. */
export async function renderWorkspace (ctx: Context, dataUrl: string, key: { mode?: KeyMode, scopes?: Scope[] } = {}) {
  const workspace = await ctx.services.workspaces.create('Render test')
  for (const env of ['development', 'staging', 'production']) {
    await ctx.services.environments.create({ workspaceId: workspace.id, key: env, dataSourceUrl: dataUrl })
  }
  for (const name of ['invoice', 'sales-report', 'shipping-label']) {
    await ctx.services.templates.publish(workspace.id, await readExample(name), { note: 'test', publishedBy: 'tests' })
  }
  const created = await ctx.services.apiKeys.create({ workspaceId: workspace.id, name: 'render key', mode: key.mode ?? 'live', scopes: key.scopes ?? ['render', 'templates.read', 'datasets.execute'], expiresAt: null })
  return { workspace, key: created }
}

/** The usual render-test set-up: a service database, a data database, a server and a workspace. */
export async function renderFixture (prefix: string, env: Record<string, string> = {},
  options: { home?: string, salesRows?: number, logger?: Logger } = {}) {
  const { createTestDatabase } = await import('./db.js')
  const { startServer } = await import('./server.js')
  const database = await createTestDatabase(prefix)
  const dataName = `${database.name}_data`
  const dataUrl = await createDataDatabase(dataName, { salesRows: options.salesRows })
  const server = await startServer(database.url, env, options.home, undefined, { logger: options.logger })
  const ws = await renderWorkspace(server.context, dataUrl)
  return {
    database,
    dataName,
    dataUrl,
    server,
    ws,
    async close (): Promise<void> {
      await server.close().catch(() => {})
      await database.drop()
      await dropDataDatabase(dataName)
    }
  }
}
