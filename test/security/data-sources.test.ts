// Tenant isolation, data sources (docs/security.md): workspace B tries to reach the service
// database and internal addresses through its data sources, and to write through dataset SQL,
// on one real HTTPS server shared with workspace A; A's renders, run history, keys and data are
// unaffected. Real MariaDB, real HTTPS.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import { renderFixture, readExample } from '../helpers/render-data.js'
import { bearer } from '../helpers/fixtures.js'
import { serverUrl } from '../helpers/db.js'
import { createDataDatabase } from '../server/datasources/helpers.js'
import type { DataDatabase } from '../server/datasources/helpers.js'
import { parseMysqlUrl } from '../../server/store/db.js'
import { loadConfig } from '../../server/config.js'
import { createDataSourceGuard } from '../../server/datasources/destinations.js'
import { isProblem } from '../../server/errors.js'
import type { Problem } from '../../server/errors.js'

type Fixture = Awaited<ReturnType<typeof renderFixture>>
let fx: Fixture
let bData: DataDatabase
let b: { workspaceId: string, key: string }
let aKeysBefore: unknown[]

const suite = (): { host: string, port: number } => parseMysqlUrl(`${serverUrl()}/x`)

/** A label template whose datasets are `queries` (the first one drives the labels). */
function labelDef (code: string, queries: Record<string, string>): never {
  const datasets = Object.entries(queries).map(([c, query]) => ({ code: c, cardinality: 'multiple', query, fields: [{ name: 'id', type: 'integer' }] }))
  return { code, format: 'label', datasets, label: { widthIn: 4, heightIn: 6, dpi: 203, rows: datasets[0]?.code, zpl: '^XA^XZ' } } as never
}

before(async () => {
  fx = await renderFixture('sec_ds')
  const ctx = fx.server.context
  // B's own data: a user that MAY write (SELECT, INSERT, UPDATE, EXECUTE), so only the read-only
  // session can be what stops a write.
  bData = await createDataDatabase([
    'CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(100))',
    "INSERT INTO notes VALUES (1, 'original')",
    "CREATE FUNCTION scribble () RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO notes VALUES (99, 'side effect'); RETURN 1; END"
  ], undefined, 'SELECT, INSERT, UPDATE, EXECUTE')
  const ws = await ctx.services.workspaces.create('Tenant B')
  await ctx.services.environments.create({ workspaceId: ws.id, key: 'production', dataSourceUrl: bData.url })
  const key = await ctx.services.apiKeys.create({ workspaceId: ws.id, name: 'b', mode: 'live', scopes: ['render', 'datasets.execute'], expiresAt: null })
  b = { workspaceId: ws.id, key: key.key }
  aKeysBefore = (await ctx.db.query('SELECT * FROM api_keys WHERE workspace_id = ? ORDER BY id', [fx.ws.workspace.id]))[0] as unknown[]
})

after(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await bData?.drop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await fx?.close()
})

async function refusal (p: Promise<unknown>): Promise<string> {
  try { await p } catch (err) {
    assert.ok(isProblem(err), String(err))
    assert.equal((err).code, 'VALIDATION_FAILED')
    return (err).message
  }
  assert.fail('expected a refusal')
}

test('root over TCP is refused by the suite\'s private instance (root logs in over the unix socket only)', async () => {
  const { host, port } = suite()
  await assert.rejects(mysql.createConnection({ host, port, user: 'root', password: '' }), (err: { code?: string }) => err.code === 'ER_ACCESS_DENIED_ERROR')
  await assert.rejects(mysql.createConnection({ host: '127.0.0.1', port, user: 'root', password: 'root' }), (err: { code?: string }) => err.code === 'ER_ACCESS_DENIED_ERROR')
})

test('the private instance\'s service user holds its own database only, without GRANT OPTION', async () => {
  const home = process.env.SVC_TEST_HOME
  assert.ok(home !== undefined, 'run through scripts/test.sh')
  const info = JSON.parse(await readFile(join(home, 'db', 'instance.json'), 'utf8')) as { url: string, database: string }
  const conn = await mysql.createConnection(parseMysqlUrl(info.url))
  try {
    const [rows] = await conn.query('SHOW GRANTS') as unknown as [Array<Record<string, string>>]
    const grants = rows.map((r) => Object.values(r)[0])
    assert.ok(grants.some((g) => g?.includes(`ON \`${info.database}\`.*`)), grants.join('\n'))
    for (const g of grants) {
      assert.doesNotMatch(g!, /WITH GRANT OPTION/)
      if (/^GRANT (?!USAGE)/.test(g!)) assert.match(g!, new RegExp(`ON \`${info.database}\`\\.\\*`), g)
    }
    await assert.rejects(conn.query('SELECT COUNT(*) FROM mysql.user'))
  } finally { await conn.end() }
})

test('B\'s data sources at the service database, 127.0.0.2 and 169.254.169.254 are refused, naming the rule and address', async () => {
  const ctx = fx.server.context
  const { host, port } = suite()
  const service = parseMysqlUrl(fx.database.url)
  const create = (key: string, url: string): Promise<unknown> =>
    ctx.services.environments.create({ workspaceId: b.workspaceId, key, dataSourceUrl: url })
  const own = await refusal(create('steal', `mysql://${service.user}:${encodeURIComponent(service.password)}@${host}:${port}/${service.database}`))
  assert.match(own, /service-database/)
  assert.match(own, new RegExp(`127\\.0\\.0\\.1 port ${port}`))
  assert.match(await refusal(create('root', `mysql://root@127.0.0.1:${port}/svc`)), /service-database/)
  const other = await refusal(create('loop2', `mysql://u:p@127.0.0.2:${port}/x`))
  assert.match(other, /127\.0\.0\.2 port \d+ is a loopback address/)
  assert.match(await refusal(create('meta', 'mysql://u:p@169.254.169.254:3306/x')), /169\.254\.169\.254 port 3306 is a cloud metadata address/)
  assert.match(await refusal(create('meta6', 'mysql://u:p@[fd00:ec2::254]:3306/x')), /cloud metadata/)
  // Changing an existing environment's data source is checked the same way.
  const changed = await refusal(ctx.services.environments.setDataSource(b.workspaceId, 'production', 'mysql://u:p@0.0.0.0:3306/x'))
  assert.match(changed, /unspecified/)
  assert.deepEqual((await ctx.services.environments.list(b.workspaceId)).map((e) => e.key), ['production'], 'nothing was created')
})

test('a host name that resolves to loopback is refused under the default policy (the address is what counts)', async () => {
  const guard = createDataSourceGuard(loadConfig({}, {}), undefined)
  await assert.rejects(guard.check({ host: 'localhost', port: 3306, user: 'x' }), /localhost: .* is a loopback address/)
  // And a name whose answer is an internal address, as a rebinding attacker would serve it.
  const rebinding = createDataSourceGuard(loadConfig({}, {}), undefined, async () => [{ address: '169.254.169.254', family: 4 }])
  await assert.rejects(rebinding.check({ host: 'db.attacker.example', port: 3306, user: 'x' }), /db\.attacker\.example: 169\.254\.169\.254 .*cloud metadata/)
})

test('a data source stored before the policy is refused when its pool would open (connect-time check)', async () => {
  const ctx = fx.server.context
  const env = await ctx.services.environments.create({ workspaceId: b.workspaceId, key: 'legacy', dataSourceUrl: bData.url })
  await ctx.db.execute('UPDATE environments SET ds_host = ? WHERE id = ?', ['127.0.0.2', env.id])
  await ctx.services.templates.publish(b.workspaceId, labelDef('peek', { n: 'SELECT id FROM notes' }))
  const res = await fx.server.fetch('POST', '/api/v1/datasets/peek/n/execute', { headers: bearer(b.key), body: { environment: 'legacy' } })
  assert.equal(res.status, 503, res.text())
  assert.equal(res.json().errorCode, 'DATA_SOURCE_UNAVAILABLE')
  assert.match(res.json().detail, /destination policy/)
})

test('publish refuses dataset SQL that writes, calls or chains statements, with the JSON path', async () => {
  const ctx = fx.server.context
  const bad = ['UPDATE notes SET body = \'x\'', 'INSERT INTO notes VALUES (5, \'x\')', 'CALL anything()', 'SELECT 1; DELETE FROM notes',
    'SELECT body FROM notes INTO OUTFILE \'/tmp/x\'', 'SELECT 1 /*!50000 ; UPDATE notes SET body = 1 */', 'WITH x AS (SELECT 1) DELETE FROM notes']
  for (const query of bad) {
    const def = await readExample('shipping-label') as { datasets: Array<{ query: string }> }
    def.datasets[0]!.query = query
    await assert.rejects(ctx.services.templates.publish(b.workspaceId, def), (err: Problem) => {
      assert.equal(err.code, 'TEMPLATE_INVALID', query)
      assert.ok(Object.keys(err.errors ?? {}).some((k) => k.includes('/datasets/0/query')) || /\/datasets\/0\/query/.test(JSON.stringify(err)), JSON.stringify(err))
      return true
    })
  }
})

test('dataset SQL smuggled past publish (written into the version directly) fails with 422 DATASET_FAILED and writes nothing', async () => {
  const ctx = fx.server.context
  const plain = 'SELECT id FROM notes'
  const published = await ctx.services.templates.publish(b.workspaceId, labelDef('smuggle', { upd: plain, fn: plain, file: plain })) as { version: number }
  const smuggled = JSON.stringify(labelDef('smuggle', {
    upd: "UPDATE notes SET body = 'pwned'",
    fn: 'SELECT scribble() AS id',
    file: `SELECT body FROM notes INTO OUTFILE '/tmp/svc-smuggled-${randomUUID()}'`
  }))
  await ctx.db.execute('UPDATE template_versions v JOIN templates t ON t.id = v.template_id SET v.definition = ? WHERE t.workspace_id = ? AND t.code = ? AND v.version = ?',
    [smuggled, b.workspaceId, 'smuggle', published.version])
  for (const dataset of ['upd', 'fn', 'file']) {
    const res = await fx.server.fetch('POST', `/api/v1/datasets/smuggle/${dataset}/execute`, { headers: bearer(b.key), body: {} })
    assert.equal(res.status, 422, `${dataset}: ${res.text()}`)
    assert.equal(res.json().errorCode, 'DATASET_FAILED')
  }
  const admin = await mysql.createConnection({ ...parseMysqlUrl(`${serverUrl()}/${bData.name}`) })
  try {
    const [rows] = await admin.query('SELECT id, body FROM notes ORDER BY id') as unknown as [Array<{ id: number, body: string }>]
    assert.deepEqual(rows.map((r) => [r.id, r.body]), [[1, 'original']], 'nothing was written')
  } finally { await admin.end() }
})

test('after B\'s attacks, A renders, its run history shows it, and A\'s keys and data are unchanged', async () => {
  const ctx = fx.server.context
  const res = await fx.server.fetch('POST', '/api/v1/render', { headers: bearer(fx.ws.key.key), body: { template: 'invoice', parameters: { invoiceId: 1 } } })
  assert.equal(res.status, 200, res.text())
  assert.equal(res.body.subarray(0, 5).toString(), '%PDF-')
  const runId = String(res.headers['x-run-id'])
  const runs = await (async () => {
    for (let i = 0; i < 100; i++) {
      const [rows] = await ctx.db.query('SELECT workspace_id, status FROM runs WHERE id = ?', [runId]) as unknown as [Array<{ workspace_id: string, status: string }>]
      if (rows.length > 0) return rows
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    return []
  })()
  assert.deepEqual(runs.map((r) => r.workspace_id), [fx.ws.workspace.id])
  assert.deepEqual((await ctx.db.query('SELECT * FROM api_keys WHERE workspace_id = ? ORDER BY id', [fx.ws.workspace.id]))[0], aKeysBefore)
  const admin = await mysql.createConnection({ ...parseMysqlUrl(`${serverUrl()}/${fx.dataName}`) })
  try {
    const [rows] = await admin.query('SELECT COUNT(*) AS n FROM invoices') as unknown as [Array<{ n: number }>]
    assert.equal(Number(rows[0]?.n), 2)
  } finally { await admin.end() }
})
