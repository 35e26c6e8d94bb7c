// `svc demo` end to end: the real CLI in a child process against a fresh service database, then
// the demo databases, their read-only users, the published templates and the keys are checked,
// and a second run must find everything again without duplicating it.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import { createTestDatabase, serverUrl, testDataSourceAllow } from '../helpers/db.js'
import type { TestDatabase } from '../helpers/db.js'
import { createDb } from '../../server/store/db.js'
import { loadConfig } from '../../server/config.js'
import { createContext } from '../../server/context.js'
import type { Context } from '../../server/context.js'
import type { Environment } from '../../server/store/repos/environments.js'
import { projectRoot } from '../../server/util/paths.js'
import { parseToken, verifyKey } from '../../server/auth/keys.js'
import { startServer } from '../helpers/server.js'
import { pdfFacts } from '../helpers/poppler.js'

const run = promisify(execFile)
const prefix = `t${randomBytes(4).toString('hex')}_demo`
const masterKey = randomBytes(32).toString('hex')
let tdb: TestDatabase
let home: string
let ctx: Context

async function svc (...args: string[]): Promise<{ code: number, stdout: string, stderr: string }> {
  try {
    const r = await run(process.execPath, [join(projectRoot, 'bin', 'svc'), ...args], {
      env: { ...process.env, SVC_HOME: home, SVC_DATABASE_URL: tdb.url, SVC_MASTER_KEY: masterKey, SVC_PORT: '18443', SVC_DATASOURCE_ALLOW: testDataSourceAllow() },
      maxBuffer: 16 << 20
    })
    return { code: 0, stdout: r.stdout, stderr: r.stderr }
  } catch (err) {
    const e = err as { code: number, stdout: string, stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

before(async () => {
  tdb = await createTestDatabase('demo')
  home = await mkdtemp(join(tmpdir(), 'svc-demo-'))
})

after(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await ctx?.close()
  const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  for (const [env, short] of [['development', 'dev'], ['staging', 'stg'], ['production', 'prod']]) {
    await admin.query(`DROP DATABASE IF EXISTS \`${prefix}_${env}\``)
    await admin.query(`DROP USER IF EXISTS '${prefix}_${short}_ro'@'%'`)
  }
  await admin.end()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await tdb?.drop()
  await rm(home, { recursive: true, force: true })
})

test('svc demo creates the workspace, databases, read-only users, templates and keys; a re-run duplicates nothing', async () => {
  const first = await svc('--json', 'demo', '--db-prefix', prefix)
  assert.equal(first.code, 0, first.stderr + first.stdout)
  const doc = JSON.parse(first.stdout)
  // The demo's loopback data sources pass only by the explicit opt-in, and the demo says so.
  assert.match(first.stderr, /SVC_DATASOURCE_ALLOW=127\.0\.0\.1/)
  assert.equal(doc.workspace.name, 'Demo')
  assert.equal(doc.workspace.created, true)
  assert.equal(doc.rerun, false)
  assert.deepEqual(doc.environments.map((e: { key: string }) => e.key), ['development', 'staging', 'production'])
  assert.deepEqual(
    doc.templates.map((t: { code: string, version: number, published: boolean }) => [t.code, t.version, t.published]),
    [
      ['invoice', 1, true],
      ['sales-report', 1, true],
      ['shipping-label', 1, true]
    ]
  )
  assert.match(doc.keys.live.key, /^svc_live_/)
  assert.match(doc.keys.test.key, /^svc_test_/)
  assert.equal(doc.baseUrl, 'https://127.0.0.1:18443')
  assert.equal(doc.caCert, join(home, 'tls', 'cert.pem'))
  for (const c of Object.values<string>(doc.commands)) assert.match(c, /curl .*--cacert '[^']+cert\.pem'/)
  assert.match(doc.commands.renderInvoicePdf, /-o invoice\.pdf "\$SVC_URL\/api\/v1\/render"/)
  assert.match(doc.commands.executeDataset, /\/api\/v1\/datasets\/invoice\/lines\/execute/)
  assert.match(doc.commands.pollJob, /\/api\/v1\/jobs\/\$JOB/)

  // The printed async commands, run as printed by bash against a real server on this database:
  // submit, poll until final, download the documentUrl (no key) into sales-report.pdf.
  const server = await startServer(tdb.url, { SVC_MASTER_KEY: masterKey }, home)
  try {
    const script = [doc.commands.renderAsync, doc.commands.pollJob, doc.commands.downloadDocument].join('\n')
    const shell = await run('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: home, env: { ...process.env, SVC_URL: server.url, SVC_API_KEY: doc.keys.live.key }, timeout: 60_000
    })
    assert.match(shell.stdout, /"status":"succeeded"/)
    assert.ok((await pdfFacts(await readFile(join(home, 'sales-report.pdf')))).pages >= 1)
  } finally { await server.close() }
  assert.deepEqual(JSON.parse(await readFile(join(home, 'demo.json'), 'utf8')).workspaceId, doc.workspace.id)

  // The data: every table the example SQL reads has rows, in each environment's own database.
  const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  try {
    for (const e of doc.environments) {
      assert.equal(e.database, `${prefix}_${e.key}`)
      const [[c]] = await admin.query(`SELECT (SELECT COUNT(*) FROM \`${e.database}\`.customers) AS customers, (SELECT COUNT(*) FROM \`${e.database}\`.invoices) AS invoices,
        (SELECT COUNT(*) FROM \`${e.database}\`.invoice_lines) AS line_count, (SELECT MIN(n) FROM (SELECT COUNT(*) AS n FROM \`${e.database}\`.invoice_lines GROUP BY invoice_id) x) AS minLines,
        (SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM \`${e.database}\`.invoice_lines GROUP BY invoice_id) x) AS maxLines,
        (SELECT COUNT(*) FROM \`${e.database}\`.sales) AS sales, (SELECT COUNT(DISTINCT region) FROM \`${e.database}\`.sales) AS regions,
        (SELECT MIN(YEAR(sold_on)) FROM \`${e.database}\`.sales) AS y0, (SELECT MAX(YEAR(sold_on)) FROM \`${e.database}\`.sales) AS y1,
        (SELECT COUNT(*) FROM \`${e.database}\`.parcels) AS parcels,
        (SELECT COUNT(*) FROM \`${e.database}\`.invoice_allowances) AS allowances`) as unknown as [[{
        customers: number
        invoices: number
        line_count: number
        minLines: number
        maxLines: number
        sales: number
        regions: number
        y0: number
        y1: number
        parcels: number
        allowances: number
      }]]
      assert.ok(c.customers >= 3 && c.invoices >= 3, JSON.stringify(c))
      assert.ok(c.minLines >= 5 && c.maxLines <= 40, JSON.stringify(c))
      assert.ok(c.sales >= 2000 && c.regions >= 3 && c.y0 === 2025 && c.y1 === 2026, JSON.stringify(c))
      assert.ok(c.parcels >= 20, JSON.stringify(c))
      assert.deepEqual(e.rows, {
        customers: Number(c.customers),
        invoices: Number(c.invoices),
        invoice_lines: Number(c.line_count),
        invoice_allowances: Number(c.allowances),
        sales: Number(c.sales),
        parcels: Number(c.parcels)
      })
    }
  } finally { await admin.end() }

  // The environments use the read-only users: they read, they cannot write.
  ctx = await createContext(
    loadConfig(
      {},
      {
        SVC_HOME: home,
        SVC_DATABASE_URL: tdb.url,
        SVC_MASTER_KEY: masterKey,
        SVC_DATASOURCE_ALLOW: testDataSourceAllow()
      }
    )
  )
  for (const e of doc.environments) {
    const env = (await ctx.repos.environments.get(doc.workspace.id, e.key)) as Environment
    assert.equal(env.isProduction, e.key === 'production')
    const source = ctx.services.environments.openDataSource(env)
    assert.ok(source !== null)
    assert.equal(source.user, `${e.user}`)
    const conn = await mysql.createConnection({
      host: source.host,
      port: source.port,
      user: source.user,
      password: source.password,
      database: source.database
    })
    try {
      const [rows] = await conn.query('SELECT COUNT(*) AS n FROM invoices') as unknown as [Array<{ n: number }>]
      assert.ok((rows[0]?.n ?? 0) > 0)
      await assert.rejects(conn.query("INSERT INTO customers (id, name, address) VALUES (999, 'x', 'y')"), (err: { code?: string }) => err.code === 'ER_TABLEACCESS_DENIED_ERROR')
      await assert.rejects(conn.query('CREATE TABLE evil (id INT)'), (err: { code?: string }) => err.code === 'ER_TABLEACCESS_DENIED_ERROR')
    } finally { await conn.end() }
  }

  // The published examples read the demo data through the data-source layer.
  const invoice = await ctx.resolver.resolve(doc.workspace.id, 'invoice')
  const prod = (await ctx.repos.environments.get(doc.workspace.id, 'production')) as Environment
  const read = await ctx.dataSources.readAll(prod, invoice.definition, { invoiceId: 1 }, {}, 1000)
  assert.match(String((read.datasets.header as Record<string, unknown>).number), /^INV-/)
  assert.ok((read.datasets.lines as unknown[]).length >= 5)
  const label = await ctx.resolver.resolve(doc.workspace.id, 'shipping-label')
  assert.ok(
    ((await ctx.dataSources.readAll(prod, label.definition, { batchId: 1 }, {}, 1000)).datasets.parcels as unknown[])
      .length > 0
  )

  // Both keys have every scope.
  for (const k of [doc.keys.live.key, doc.keys.test.key]) {
    const presented = parseToken(k)
    const auth = verifyKey(presented, await ctx.repos.apiKeys.get(presented.keyId))
    assert.equal(auth.workspaceId, doc.workspace.id)
    assert.deepEqual([...auth.scopes].sort(), ['datasets.execute', 'render', 'templates.read', 'templates.write'])
  }

  // Second run: same workspace, databases and versions; only new keys, and it says so.
  const second = await svc('demo', '--db-prefix', prefix)
  assert.equal(second.code, 0, second.stderr)
  assert.match(second.stdout, new RegExp(`Demo workspace "Demo" \\(${doc.workspace.id}\\) found`))
  assert.match(second.stdout, /new live and test key were created/)
  assert.match(second.stdout, /template invoice v1 \(unchanged\)/)
  assert.match(second.stdout, /^export SVC_API_KEY=svc_live_\S+/m)
  assert.doesNotMatch(second.stdout, new RegExp(doc.keys.live.key))
  const third = JSON.parse((await svc('--json', 'demo', '--db-prefix', prefix)).stdout)
  assert.equal(third.rerun, true)
  assert.equal(third.workspace.id, doc.workspace.id)
  assert.deepEqual(
    third.environments.map((e: { rows: unknown }) => e.rows),
    doc.environments.map((e: { rows: unknown }) => e.rows)
  )
  assert.deepEqual(
    third.templates.map((t: { version: number, published: boolean }) => [t.version, t.published]),
    [
      [1, false],
      [1, false],
      [1, false]
    ]
  )
  assert.equal((await ctx.services.workspaces.list()).filter((w) => w.name === 'Demo').length, 1)
  assert.equal((await ctx.services.environments.list(doc.workspace.id)).length, 3)
  const keys = await ctx.services.apiKeys.list(doc.workspace.id)
  assert.equal(keys.length, 6)
  // The environments kept their data source (no new dsVersion, so no pool churn on re-runs).
  assert.equal(((await ctx.repos.environments.get(doc.workspace.id, 'production')) as Environment).dsVersion, prod.dsVersion)
})

test('svc demo refuses a bad --db-prefix with a usage error', async () => {
  const r = await svc('demo', '--db-prefix', 'Bad-Prefix;')
  assert.equal(r.code, 2)
  assert.match(r.stderr, /^error: --db-prefix/)
})
