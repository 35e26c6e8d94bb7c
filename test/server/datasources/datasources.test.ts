// Data sources against real MariaDB databases: pools per environment, bound parameters, limits,
// error mapping. Environments are created through the real service (sealed passwords).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { loadConfig } from '../../../server/config.js'
import { createDataSourceGuard } from '../../../server/datasources/destinations.js'
import { createContext } from '../../../server/context.js'
import type { Context } from '../../../server/context.js'
import { createDataSources } from '../../../server/datasources/index.js'
import type { DatasetFailure, DataSources } from '../../../server/datasources/index.js'
import { Problem } from '../../../server/errors.js'
import type { Environment } from '../../../server/store/repos/environments.js'
import type { DatasetDef, ParameterDef, TemplateDefinition } from '../../../engine/template/definition.js'
import { createTestDatabase, testDataSourceAllow } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { createDataDatabase, refusedPort } from './helpers.js'
import type { DataDatabase } from './helpers.js'

const INJECTION = 'O\'Brien "; DROP TABLE items; --'
const ITEMS = [
  'CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(100) NOT NULL, price DECIMAL(10,2) NOT NULL, made_at DATETIME NOT NULL, made_on DATE NOT NULL, active TINYINT(1) NOT NULL, company VARCHAR(20) NOT NULL)',
  `INSERT INTO items VALUES
    (1, 'Alpha', 10.50, '2025-01-02 10:30:00', '2025-01-02', 1, 'acme'),
    (2, 'Beta', 20.00, '2025-02-03 11:00:00', '2025-02-03', 0, 'acme'),
    (3, '${INJECTION.replace(/'/g, "''")}', 30.25, '2025-03-04 12:00:00', '2025-03-04', 1, 'acme'),
    (4, 'Gamma', 40.00, '2025-04-05 13:00:00', '2025-04-05', 1, 'globex'),
    (5, 'Delta', 50.00, '2025-05-06 14:00:00', '2025-05-06', 0, 'globex'),
    (6, 'Epsilon', 60.00, '2025-06-07 15:00:00', '2025-06-07', 1, 'globex')`,
  // A slow query that passes the dataset SQL check (SLEEP by name would not): the tenant's own view.
  'CREATE VIEW slow AS SELECT SLEEP(3600) AS s'
]

let tdb: TestDatabase
let ctx: Context
let dataA: DataDatabase
let dataB: DataDatabase
let workspaceId: string
const failures: DatasetFailure[] = []
let ds: DataSources

const config = (env: Record<string, string> = {}) => loadConfig({}, { SVC_MASTER_KEY: randomBytes(32).toString('hex'), SVC_DATASOURCE_QUERY_TIMEOUT: '5s', SVC_DATASOURCE_ALLOW: testDataSourceAllow(), ...env })

function template (
  datasets: Array<Partial<DatasetDef> & { code: string, query: string }>,
  parameters: ParameterDef[] = []
): TemplateDefinition {
  return {
    code: 'tpl',
    format: 'document',
    parameters,
    datasets: datasets.map((d) => ({ cardinality: 'multiple' as const, fields: [], ...d }))
  }
}

async function environment (key: string, url?: string): Promise<Environment> {
  await ctx.services.environments.create({ workspaceId, key, dataSourceUrl: url })
  return (await ctx.repos.environments.get(workspaceId, key)) as Environment
}

async function rejectsWith (p: Promise<unknown>, code: string): Promise<Problem> {
  try { await p } catch (err) {
    assert.ok(err instanceof Problem, `expected a Problem, got ${String(err)}`)
    assert.equal(err.code, code, err.message)
    return err
  }
  assert.fail(`expected ${code}`)
}

before(async () => {
  tdb = await createTestDatabase('ds')
  ctx = await createContext(config({ SVC_HOME: '/nonexistent' }), { db: tdb.db })
  workspaceId = (await ctx.services.workspaces.create('Data sources')).id
  dataA = await createDataDatabase(ITEMS)
  dataB = await createDataDatabase([
    'CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(100) NOT NULL, price DECIMAL(10,2) NOT NULL, made_at DATETIME NOT NULL, made_on DATE NOT NULL, active TINYINT(1) NOT NULL, company VARCHAR(20) NOT NULL)',
    "INSERT INTO items VALUES (1, 'Only in B', 1.00, '2026-01-01 00:00:00', '2026-01-01', 1, 'acme')"
  ])
  ds = createDataSources(ctx.config, ctx.services.environments, {
    guard: createDataSourceGuard(ctx.config, undefined),
    onError: (f) => failures.push(f)
  })
})

after(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await ds?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await ctx?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await dataA?.drop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await dataB?.drop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await tdb?.drop()
})

test('the injection fixture row holds the literal text', async () => {
  const env = await environment('fixture', dataA.url)
  const { datasets } = await ds.readAll(env, template([{ code: 'x', cardinality: 'single', query: 'SELECT name FROM items WHERE id = 3' }]), {}, {}, 10)
  assert.deepEqual(datasets.x, { name: INJECTION })
})

test('each environment reads its own database through its own pool', async () => {
  const a = await environment('env-a', dataA.url)
  const b = await environment('env-b', dataB.url)
  const def = template([{ code: 'items', query: 'SELECT name FROM items ORDER BY id' }])
  const before = ds.poolCount()
  const [ra, rb] = await Promise.all([ds.readAll(a, def, {}, {}, 100), ds.readAll(b, def, {}, {}, 100)])
  assert.equal((ra.datasets.items as unknown[]).length, 6)
  assert.deepEqual(rb.datasets.items, [{ name: 'Only in B' }])
  assert.equal(ra.rowCount, 6)
  assert.equal(ds.poolCount(), before + 2)
  await ds.readAll(a, def, {}, {}, 100)
  assert.equal(ds.poolCount(), before + 2, 'the pool is reused')
})

test('named parameters bind as values: integer, list in IN (…), and a hostile string', async () => {
  const env = await environment('binding', dataA.url)
  const def = template([
    { code: 'byId', cardinality: 'single', query: 'SELECT id, name FROM items WHERE id = :id' },
    { code: 'inList', query: 'SELECT id FROM items WHERE id IN (:ids) AND id <> :id ORDER BY id' },
    { code: 'byName', query: "SELECT id, name FROM items WHERE name = :name AND name <> ':id' -- :notAParameter\n ORDER BY id" }
  ], [{ name: 'id', type: 'integer' }, { name: 'ids', type: 'integer[]' }, { name: 'name', type: 'string' }])
  const r = await ds.readAll(env, def, { id: 2, ids: [1, 2, 4, 6], name: INJECTION }, {}, 100)
  assert.deepEqual(r.datasets.byId, { id: 2, name: 'Beta' })
  assert.deepEqual(r.datasets.inList, [{ id: 1 }, { id: 4 }, { id: 6 }])
  assert.deepEqual(r.datasets.byName, [{ id: 3, name: INJECTION }])
  // The same compiled statement with another list length expands to another number of markers.
  const r2 = await ds.readAll(env, def, { id: 0, ids: [5], name: "' OR '1'='1" }, {}, 100)
  assert.deepEqual(r2.datasets.inList, [{ id: 5 }])
  assert.deepEqual(r2.datasets.byName, [], 'an injection attempt matches nothing')
  const still = await ds.readAll(env, template([{ code: 'n', cardinality: 'single', query: 'SELECT COUNT(*) AS n FROM items' }]), {}, {}, 10)
  assert.deepEqual(still.datasets.n, { n: 6 }, 'the table is intact')
})

test(':context.xxx binds the render context; missing context binds NULL', async () => {
  const env = await environment('context', dataA.url)
  const def = template([
    { code: 'mine', query: 'SELECT id FROM items WHERE company = :context.company ORDER BY id' },
    { code: 'none', query: 'SELECT id FROM items WHERE company = :context.missing' }
  ])
  const r = await ds.readAll(env, def, {}, { company: 'globex' }, 100)
  assert.deepEqual(r.datasets.mine, [{ id: 4 }, { id: 5 }, { id: 6 }])
  assert.deepEqual(r.datasets.none, [])
  const other = await ds.readAll(env, def, {}, { company: 'acme' }, 100)
  assert.deepEqual(other.datasets.mine, [{ id: 1 }, { id: 2 }, { id: 3 }])
  await rejectsWith(ds.readAll(env, def, {}, { company: { nested: true } }, 100), 'PARAMETER_INVALID')
})

test('single gives the first row or null; multiple gives rows as mysql2 reads them', async () => {
  const env = await environment('cardinality', dataA.url)
  const def = template([
    { code: 'first', cardinality: 'single', query: 'SELECT id, price, made_at, made_on FROM items WHERE company = :c ORDER BY id' },
    { code: 'nothing', cardinality: 'single', query: 'SELECT id FROM items WHERE id = -1' },
    { code: 'all', query: 'SELECT id FROM items WHERE company = :c ORDER BY id' }
  ], [{ name: 'c', type: 'string' }])
  const r = await ds.readAll(env, def, { c: 'acme' }, {}, 100)
  const first = r.datasets.first as Record<string, unknown>
  assert.equal(first.id, 1)
  assert.equal(first.price, '10.50', 'DECIMAL arrives as a string')
  assert.ok(first.made_at instanceof Date)
  assert.equal((first.made_at).toISOString(), '2025-01-02T10:30:00.000Z', 'DATETIME is read as UTC')
  assert.equal((first.made_on as Date).toISOString(), '2025-01-02T00:00:00.000Z', 'DATE is UTC midnight')
  assert.equal(r.datasets.nothing, null)
  assert.deepEqual(r.datasets.all, [{ id: 1 }, { id: 2 }, { id: 3 }])
})

test('datetime parameters bind as instants', async () => {
  const env = await environment('datetime', dataA.url)
  const def = template([{ code: 'after', query: 'SELECT id FROM items WHERE made_at >= :since ORDER BY id' }], [{ name: 'since', type: 'datetime' }])
  const r = await ds.readAll(env, def, { since: '2025-05-06T14:00:00Z' }, {}, 100)
  assert.deepEqual(r.datasets.after, [{ id: 5 }, { id: 6 }])
})

test('row limit over all datasets: RENDER_LIMIT_EXCEEDED names the limit', async () => {
  const env = await environment('limits', dataA.url)
  const def = template([
    { code: 'a', query: 'SELECT id FROM items WHERE id <= 3' },
    { code: 'b', query: 'SELECT id FROM items WHERE id > 3' }
  ])
  assert.equal((await ds.readAll(env, def, {}, {}, 6)).rowCount, 6)
  const p = await rejectsWith(ds.readAll(env, def, {}, {}, 5), 'RENDER_LIMIT_EXCEEDED')
  assert.equal(p.status, 422)
  assert.match(p.message, /\b5\b/)
  // The pool survives a cut-off result (its connection is replaced).
  assert.equal((await ds.readAll(env, def, {}, {}, 100)).rowCount, 6)
})

test('execute: columns typed from declared fields or the driver, JSON rows, truncated', async () => {
  const env = await environment('execute', dataA.url)
  const def = template([{ code: 'items', query: 'SELECT id, name, price, made_at, made_on, active FROM items ORDER BY id', fields: [{ name: 'name', type: 'text' }] }])
  const full = await ds.execute(env, def, 'items', {}, {}, 6)
  assert.equal(full.truncated, false)
  assert.equal(full.rowCount, 6)
  assert.deepEqual(full.columns, [
    { name: 'id', type: 'integer' }, { name: 'name', type: 'text' }, { name: 'price', type: 'decimal' },
    { name: 'made_at', type: 'datetime' }, { name: 'made_on', type: 'date' }, { name: 'active', type: 'boolean' }
  ])
  assert.deepEqual(full.rows[0], { id: 1, name: 'Alpha', price: '10.50', made_at: '2025-01-02T10:30:00.000Z', made_on: '2025-01-02', active: 1 })
  assert.ok(Number.isInteger(full.elapsedMs))
  const cut = await ds.execute(env, def, 'items', {}, {}, 4)
  assert.equal(cut.truncated, true)
  assert.equal(cut.rowCount, 4)
  assert.deepEqual(cut.rows.map((r) => r.id), [1, 2, 3, 4])
  await rejectsWith(ds.execute(env, def, 'nope', {}, {}, 10), 'DATASET_NOT_FOUND')
})

test('query errors are DATASET_FAILED naming the dataset only, never the SQL', async () => {
  const env = await environment('failing', dataA.url)
  failures.length = 0
  const cases: Array<[string, string]> = [
    ['SELECT * FROM no_such_table_xyz', 'ER_NO_SUCH_TABLE'],
    ['SELECT id FROM items WHERE', 'ER_PARSE_ERROR'],
    ['SELECT no_such_column_xyz FROM items', 'ER_BAD_FIELD_ERROR'],
    ['SELECT * FROM mysql.user', 'ER_TABLEACCESS_DENIED_ERROR'],
    // Refused by the dataset SQL check before it is sent (a version stored without that check).
    ["INSERT INTO items VALUES (9, 'x', 1, NOW(), CURDATE(), 1, 'acme')", 'DATASET_FAILED']
  ]
  for (const [query, reason] of cases) {
    const p = await rejectsWith(ds.readAll(env, template([{ code: 'broken', query }]), {}, {}, 10), 'DATASET_FAILED')
    assert.equal(p.status, 422)
    assert.match(p.message, /"broken"/)
    assert.doesNotMatch(p.message, /no_such|WHERE|items|mysql|127\.0\.0\.1|ro_|ds_/i)
    assert.equal(failures.at(-1)?.reason, reason)
  }
  await rejectsWith(ds.readAll(env, template([{ code: 'bare', query: 'SELECT id FROM items WHERE id = ?' }]), {}, {}, 10), 'DATASET_FAILED')
})

test('refused port, bad credentials and a missing data source are 503 with Retry-After', async () => {
  const port = await refusedPort()
  const refused = await environment('refused', `mysql://u:p@127.0.0.1:${port}/db`)
  const def = template([{ code: 'x', query: 'SELECT 1 AS one' }])
  const p = await rejectsWith(ds.readAll(refused, def, {}, {}, 10), 'DATA_SOURCE_UNAVAILABLE')
  assert.equal(p.status, 503)
  assert.equal(p.headers?.['Retry-After'], '5')
  assert.doesNotMatch(p.message, new RegExp(`${port}|127\\.0\\.0\\.1|ECONN`))
  assert.equal(failures.at(-1)?.reason, 'ECONNREFUSED')
  const wrong = await environment('wrong-password', dataA.url.replace(/:[0-9a-f]+@/, ':wrong@'))
  await rejectsWith(ds.readAll(wrong, def, {}, {}, 10), 'DATA_SOURCE_UNAVAILABLE')
  assert.equal(failures.at(-1)?.reason, 'ER_ACCESS_DENIED_ERROR')
  const none = await environment('no-source')
  await rejectsWith(ds.readAll(none, def, {}, {}, 10), 'DATA_SOURCE_UNAVAILABLE')
  await rejectsWith(ds.execute(none, def, 'x', {}, {}, 10), 'DATA_SOURCE_UNAVAILABLE')
  // A template without datasets needs no data source at all.
  assert.deepEqual(await ds.readAll(none, template([]), {}, {}, 10), { datasets: {}, rowCount: 0 })
})

// The query sleeps for an hour: an answer at all means it was cut at the 300 ms limit, not run to
// its end. The test's own timeout only keeps a broken limit from hanging the suite. A timeout is
// the query's failure, 422 without Retry-After: a retry would run the same query as long again.
test('a query past the query timeout is 422 DATASET_FAILED (the server\'s own limit) and the pool keeps working', { timeout: 120_000 }, async () => {
  const seen: DatasetFailure[] = []
  const quick = createDataSources(config({ SVC_DATASOURCE_QUERY_TIMEOUT: '300ms' }), ctx.services.environments, { guard: createDataSourceGuard(config(), undefined), onError: (f) => seen.push(f) })
  try {
    const env = await environment('slow', dataA.url)
    const p = await rejectsWith(quick.readAll(env, template([{ code: 'slow', query: 'SELECT s FROM slow' }]), {}, {}, 10), 'DATASET_FAILED')
    assert.equal(p.status, 422)
    assert.equal(p.headers?.['Retry-After'], undefined)
    assert.match(p.message, /"slow" did not finish within the query time limit/)
    assert.deepEqual(seen.map((f) => f.reason), ['ER_STATEMENT_TIMEOUT'], 'the server\'s limit answered, before mysql2\'s own timer')
    const ok = await quick.readAll(env, template([{ code: 'one', cardinality: 'single', query: 'SELECT 1 AS one' }]), {}, {}, 10)
    assert.deepEqual(ok.datasets.one, { one: 1 })
  } finally { await quick.close() }
})

test('a changed data source (dsVersion) opens a new pool and closes the old one; maxPools evicts', async () => {
  const small = createDataSources(config({ SVC_DATASOURCE_MAX_POOLS: '1' }), ctx.services.environments, { guard: createDataSourceGuard(config(), undefined) })
  try {
    const def = template([{ code: 'n', cardinality: 'single', query: 'SELECT name FROM items WHERE id = 1' }])
    let env = await environment('switch', dataA.url)
    assert.deepEqual((await small.readAll(env, def, {}, {}, 10)).datasets.n, { name: 'Alpha' })
    await ctx.services.environments.setDataSource(workspaceId, 'switch', dataB.url)
    env = (await ctx.repos.environments.get(workspaceId, 'switch')) as Environment
    assert.deepEqual((await small.readAll(env, def, {}, {}, 10)).datasets.n, { name: 'Only in B' })
    assert.equal(small.poolCount(), 1)
    const other = await environment('switch-other', dataA.url)
    assert.deepEqual((await small.readAll(other, def, {}, {}, 10)).datasets.n, { name: 'Alpha' })
    assert.deepEqual((await small.readAll(env, def, {}, {}, 10)).datasets.n, { name: 'Only in B' })
    assert.equal(small.poolCount(), 1, 'maxPools = 1 keeps one pool open')
  } finally { await small.close() }
})
