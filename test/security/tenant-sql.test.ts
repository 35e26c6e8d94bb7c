// Tenant SQL cannot reach server-wide state (issue 30, finding 2, and the data-source LOW items of
// finding 9): workspace B's data source lives on the same MariaDB as the service database (as the
// demo's do), and B tries to take the service's migration lock, sleep, read files and slip
// statements past the publish check; its data sources try other names of a denied server; its
// slow query times out. One real HTTPS server, real MariaDB.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import mysql from 'mysql2/promise'
import type { RowDataPacket } from 'mysql2'
import { renderFixture } from '../helpers/render-data.js'
import { bearer } from '../helpers/fixtures.js'
import { serverUrl } from '../helpers/db.js'
import { createDataDatabase } from '../server/datasources/helpers.js'
import type { DataDatabase } from '../server/datasources/helpers.js'
import { parseMysqlUrl } from '../../server/store/db.js'
import { loadConfig } from '../../server/config.js'
import { createDataSourceGuard } from '../../server/datasources/destinations.js'
import { isProblem } from '../../server/errors.js'

type Fixture = Awaited<ReturnType<typeof renderFixture>>
let fx: Fixture
let bData: DataDatabase
let b: { workspaceId: string, key: string }
/** The lock `svc db migrate` and `svc serve` take (server/store/migrate.ts) on the service database. */
let migrationLock: string
/** A port nobody is meant to reach: the operator denies it by name. */
const DENIED_PORT = 3477

/** A label template whose datasets are `queries` (the first one drives the labels). */
function labelDef (code: string, queries: Record<string, string>): never {
  const datasets = Object.entries(queries).map(([c, query]) => ({ code: c, cardinality: 'multiple', query, fields: [{ name: 'id', type: 'integer' }] }))
  return { code, format: 'label', datasets, label: { widthIn: 4, heightIn: 6, dpi: 203, rows: datasets[0]?.code, zpl: '^XA^XZ' } } as never
}

async function admin<T> (use: (conn: mysql.Connection) => Promise<T>): Promise<T> {
  const conn = await mysql.createConnection(parseMysqlUrl(`${serverUrl()}/mysql`))
  try { return await use(conn) } finally { await conn.end() }
}

const isFreeLock = (name: string): Promise<number> => admin(async (conn) => {
  const [rows] = await conn.query<RowDataPacket[]>('SELECT IS_FREE_LOCK(?) AS free', [name])
  return Number(rows[0]?.free)
})

before(async () => {
  // One connection per pool, so consecutive reads of B's data source use the same session, and a
  // short query limit for the timeout test.
  fx = await renderFixture('sec_sql', {
    SVC_DATASOURCE_POOL_SIZE: '1',
    SVC_DATASOURCE_QUERY_TIMEOUT: '1s',
    SVC_DATASOURCE_DENY: `localhost:${DENIED_PORT}`,
    SVC_RATE_LIMIT: '1000000'
  })
  migrationLock = `svc_migrate:${fx.database.name}`
  const ctx = fx.server.context
  // B's own database: a stored function that takes a user lock, and a view that sleeps — names
  // the publish check cannot see.
  bData = await createDataDatabase([
    'CREATE TABLE notes (id INT PRIMARY KEY)',
    'INSERT INTO notes VALUES (1)',
    'CREATE FUNCTION take_lock (name VARCHAR(100)) RETURNS INT NOT DETERMINISTIC NO SQL RETURN GET_LOCK(name, 0)',
    'CREATE VIEW slow AS SELECT SLEEP(30) AS id'
  ], undefined, 'SELECT, EXECUTE')
  const ws = await ctx.services.workspaces.create('Tenant B')
  await ctx.services.environments.create({ workspaceId: ws.id, key: 'production', dataSourceUrl: bData.url })
  const key = await ctx.services.apiKeys.create({ workspaceId: ws.id, name: 'b', mode: 'live', scopes: ['render', 'datasets.execute'], expiresAt: null })
  b = { workspaceId: ws.id, key: key.key }
})

after(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await bData?.drop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await fx?.close()
})

const execute = (template: string, dataset: string) =>
  fx.server.fetch('POST', `/api/v1/datasets/${template}/${dataset}/execute`, { headers: bearer(b.key), body: {} })

test('publish refuses lock, sleep, benchmark and file functions, INTO and executable comments in every form, naming the JSON path', async () => {
  const ctx = fx.server.context
  const forms = [
    `SELECT GET_LOCK('${migrationLock}', 0) AS id`,
    "SELECT get_lock ('x', 0) AS id",
    "SELECT `GET_LOCK` /* c */ ('x', 0) AS id",
    "SELECT \"GET_LOCK\"('x', 0) AS id",
    'SELECT RELEASE_ALL_LOCKS() AS id',
    "SELECT IS_USED_LOCK('x') AS id",
    'SELECT SLEEP(5) AS id',
    "SELECT BENCHMARK(100000000, MD5('x')) AS id",
    "SELECT `LOAD_FILE`('/etc/passwd') AS id",
    "SELECT MASTER_GTID_WAIT('0-1-1') AS id",
    'SELECT 1--1 INTO @v',
    "SELECT id FROM notes INTO OUTFILE '/tmp/x'",
    "SELECT 1 /*!50000 , GET_LOCK('x', 0) */ AS id",
    'SELECT 1 /*M! , SLEEP(5) */ AS id',
    "SELECT 'a\\' , GET_LOCK('x', 0) AS id -- '"
  ]
  for (const query of forms) {
    await assert.rejects(ctx.services.templates.publish(b.workspaceId, labelDef('bad', { n: query })), (err: unknown) => {
      assert.ok(isProblem(err), String(err))
      assert.equal(err.code, 'TEMPLATE_INVALID', query)
      assert.ok(err.errors?.['/datasets/0/query'] !== undefined, `${query}: ${JSON.stringify(err.errors)}`)
      return true
    })
  }
  // What looks like those names in text, comments or as a column is fine, and so is 1--1.
  await ctx.services.templates.publish(b.workspaceId, labelDef('fine', { n: "SELECT 1--1 AS id, 'GET_LOCK(1)' AS t, `sleep` FROM (SELECT 1 AS `sleep`) s -- SLEEP(1)" }))
})

test('SQL stored without the publish check (written into the version directly) is refused before it runs: 422, no lock taken', async () => {
  const ctx = fx.server.context
  const published = await ctx.services.templates.publish(b.workspaceId, labelDef('smuggle', { n: 'SELECT id FROM notes' })) as { version: number }
  const name = `smuggled:${fx.database.name}`
  await ctx.db.execute('UPDATE template_versions v JOIN templates t ON t.id = v.template_id SET v.definition = ? WHERE t.workspace_id = ? AND t.code = ? AND v.version = ?',
    [JSON.stringify(labelDef('smuggle', { n: `SELECT GET_LOCK('${name}', 0) AS id` })), b.workspaceId, 'smuggle', published.version])
  const res = await execute('smuggle', 'n')
  assert.equal(res.status, 422, res.text())
  assert.equal(res.json().errorCode, 'DATASET_FAILED')
  assert.match(res.json().detail, /GET_LOCK/)
  assert.equal(await isFreeLock(name), 1)
})

test('a lock taken by the tenant\'s own stored function is released after the render: the migration lock stays free', async () => {
  const ctx = fx.server.context
  await ctx.services.templates.publish(b.workspaceId, labelDef('locker', {
    lock: `SELECT take_lock('${migrationLock}') AS id`,
    session: 'SELECT CONNECTION_ID() AS id'
  }))
  const before = await execute('locker', 'session')
  assert.equal(before.status, 200, before.text())
  const session = before.json().rows[0].id as number
  // The function did take the lock (1), through execute and through a render.
  const taken = await execute('locker', 'lock')
  assert.equal(taken.status, 200, taken.text())
  assert.deepEqual(taken.json().rows, [{ id: 1 }])
  const render = await fx.server.fetch('POST', '/api/v1/render', { headers: bearer(b.key), body: { template: 'locker' } })
  assert.equal(render.status, 200, render.text())
  // One connection per pool: this read waits for the render's connection to be given back, and
  // runs on the very session that took the lock (it was not closed, so only a release freed it).
  const afterRender = await execute('locker', 'session')
  assert.equal(afterRender.status, 200, afterRender.text())
  assert.equal(afterRender.json().rows[0].id, session, 'the same pooled session')
  assert.equal(await isFreeLock(migrationLock), 1, 'no lock held by the idle pooled session')
  // What `svc db migrate` does first: take the lock without waiting.
  await admin(async (conn) => {
    const [rows] = await conn.query<RowDataPacket[]>('SELECT GET_LOCK(?, 0) AS got', [migrationLock])
    assert.equal(Number(rows[0]?.got), 1)
    await conn.query('SELECT RELEASE_LOCK(?)', [migrationLock])
  })
})

test('a statement past the query time limit is 422 DATASET_FAILED without Retry-After, for execute and render', async () => {
  const ctx = fx.server.context
  await ctx.services.templates.publish(b.workspaceId, labelDef('slow', { n: 'SELECT id FROM slow' }))
  const res = await execute('slow', 'n')
  assert.equal(res.status, 422, res.text())
  assert.equal(res.json().errorCode, 'DATASET_FAILED')
  assert.equal(res.headers['retry-after'], undefined)
  assert.match(res.json().detail, /did not finish within the query time limit/)
  const render = await fx.server.fetch('POST', '/api/v1/render', { headers: bearer(b.key), body: { template: 'slow' } })
  assert.equal(render.status, 422, render.text())
  assert.equal(render.json().errorCode, 'DATASET_FAILED')
  assert.equal(render.headers['retry-after'], undefined)
  // The pool goes on: the same environment answers at once afterwards.
  await ctx.services.templates.publish(b.workspaceId, labelDef('quick', { n: 'SELECT id FROM notes' }))
  assert.equal((await execute('quick', 'n')).status, 200)
})

test('DENY=localhost:port refuses every other name of that server, at creation and when a stored data source connects', async () => {
  const ctx = fx.server.context
  const { user } = parseMysqlUrl(bData.url)
  for (const host of ['localhost', '127.1', '2130706433', '0x7f.1', '0177.0.0.1', '[::ffff:127.0.0.1]', '127.0.0.1']) {
    await assert.rejects(ctx.services.environments.create({ workspaceId: b.workspaceId, key: 'deny', dataSourceUrl: `mysql://${user}:p@${host}:${DENIED_PORT}/x` }), (err: unknown) => {
      assert.ok(isProblem(err), String(err))
      assert.equal(err.code, 'VALIDATION_FAILED', host)
      assert.match(err.message, /SVC_DATASOURCE_DENY rule "localhost:3477"/, host)
      return true
    })
  }
  // Another port of the same server is not denied (the suite allows 127.0.0.1).
  await ctx.services.environments.create({ workspaceId: b.workspaceId, key: 'other-port', dataSourceUrl: `mysql://${user}:p@127.1:${DENIED_PORT + 1}/x` })
  // Stored before the rule (written directly): refused when its pool would open, not connected to.
  const env = await ctx.services.environments.create({ workspaceId: b.workspaceId, key: 'legacy', dataSourceUrl: bData.url })
  await ctx.db.execute('UPDATE environments SET ds_host = ?, ds_port = ? WHERE id = ?', ['0x7f.1', DENIED_PORT, env.id])
  await ctx.services.templates.publish(b.workspaceId, labelDef('peek', { n: 'SELECT id FROM notes' }))
  const res = await fx.server.fetch('POST', '/api/v1/datasets/peek/n/execute', { headers: bearer(b.key), body: { environment: 'legacy' } })
  assert.equal(res.status, 503, res.text())
  assert.match(res.json().detail, /destination policy/)
})

test('an ALLOW host rule exempts the addresses its own host resolves to, in any spelling, and nothing else', async () => {
  const guard = createDataSourceGuard(loadConfig({}, { SVC_DATASOURCE_ALLOW: `localhost:${DENIED_PORT}` }), undefined)
  for (const host of ['localhost', '127.1', '2130706433', '[::ffff:127.0.0.1]']) {
    assert.equal((await guard.check({ host, port: DENIED_PORT, user: 'reader' })).address.replace(/^::ffff:/, ''), '127.0.0.1', host)
  }
  await assert.rejects(guard.check({ host: '127.0.0.2', port: DENIED_PORT, user: 'reader' }), /127\.0\.0\.2 port 3477 is a loopback address/)
  await assert.rejects(guard.check({ host: 'localhost', port: DENIED_PORT + 1, user: 'reader' }), /loopback/)
})
