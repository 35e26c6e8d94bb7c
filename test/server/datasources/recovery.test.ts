// A data source whose server stops answers 503, and the same pool reads again once the server is
// back, without restarting anything (issue #4): at module level, and end to end over HTTPS
// against a running server. Uses a second private MariaDB on a free port.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Environment } from '../../../server/store/repos/environments.js'
import { adminConnection, startInstance, stopInstance } from '../../../server/store/instance.js'
import { createDb } from '../../../server/store/db.js'
import type { Db } from '../../../server/store/db.js'
import { createDataSources } from '../../../server/datasources/index.js'
import type { DatasetFailure } from '../../../server/datasources/index.js'
import { Problem } from '../../../server/errors.js'
import type { TemplateDefinition } from '../../../engine/template/definition.js'
import { loadConfig } from '../../../server/config.js'
import { createDataSourceGuard } from '../../../server/datasources/destinations.js'
import { createDataDatabase, refusedPort } from './helpers.js'
import type { DataDatabase, DataServer } from './helpers.js'
import { createTestDatabase, testDataSourceAllow } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { startServer } from '../../helpers/server.js'
import type { TestServer, TestResponse } from '../../helpers/server.js'
import { bearer } from '../../helpers/fixtures.js'
import { pdfFacts } from '../../helpers/poppler.js'

let home: string | undefined
let port: number | undefined
after(async () => {
  if (home !== undefined) { await stopInstance(home); await rm(home, { recursive: true, force: true }) }
})

/** The second MariaDB, started (again) in the same folder on the same port. */
async function dataInstance (): Promise<{ base: DataServer }> {
  home ??= await mkdtemp(join(tmpdir(), 'svc-ds-recovery-'))
  port ??= await refusedPort()
  const info = await startInstance(home, port)
  // Its service user may not create databases: the administrator does, over the socket.
  const admin = (): Db => createDb('mysql://localhost/mysql', { ...adminConnection(home as string), connectionLimit: 1 })
  return { base: { host: '127.0.0.1', port: info.port, admin } }
}

test('stopped data source → 503; back up → the same pool recovers', async () => {
  const { base } = await dataInstance()
  const data = await createDataDatabase(['CREATE TABLE t (id INT PRIMARY KEY)', 'INSERT INTO t VALUES (1), (2), (3)'], base)
  const url = new URL(data.url)
  const source = {
    host: url.hostname,
    port: Number(url.port),
    user: url.username,
    password: decodeURIComponent(url.password),
    database: data.name
  }
  const env: Environment = { id: 'env-recovery', workspaceId: 'w', key: 'recovery', isProduction: false, dataSource: { host: source.host, port: source.port, user: source.user, passwordEnc: null, database: source.database }, dsVersion: 1, createdAt: new Date() }
  const failures: DatasetFailure[] = []
  const config = loadConfig({}, { SVC_MASTER_KEY: randomBytes(32).toString('hex'), SVC_DATASOURCE_CONNECT_TIMEOUT: '2s', SVC_DATASOURCE_POOL_SIZE: '2', SVC_DATASOURCE_ALLOW: testDataSourceAllow() })
  const ds = createDataSources(
    config,
    { openDataSource: () => source },
    { guard: createDataSourceGuard(config, undefined), onError: (f) => failures.push(f) }
  )
  const def: TemplateDefinition = { code: 'r', format: 'document', datasets: [{ code: 'rows', cardinality: 'multiple', query: 'SELECT id FROM t ORDER BY id', fields: [] }] }
  try {
    // Warm the pool with two idle connections, which the stop will kill.
    await Promise.all([ds.readAll(env, def, {}, {}, 10), ds.readAll(env, def, {}, {}, 10)])
    assert.deepEqual((await ds.readAll(env, def, {}, {}, 10)).datasets.rows, [{ id: 1 }, { id: 2 }, { id: 3 }])

    await stopInstance(home as string)
    for (let i = 0; i < 3; i++) {
      try {
        await ds.readAll(env, def, {}, {}, 10)
        assert.fail('read while the data source is stopped')
      } catch (err) {
        assert.ok(err instanceof Problem)
        assert.equal(err.code, 'DATA_SOURCE_UNAVAILABLE', err.message)
        assert.equal(err.headers?.['Retry-After'], '5')
      }
    }
    assert.ok(failures.length >= 3)

    await dataInstance()
    assert.deepEqual((await ds.readAll(env, def, {}, {}, 10)).datasets.rows, [{ id: 1 }, { id: 2 }, { id: 3 }])
    assert.equal(ds.poolCount(), 1, 'the same pool, no restart')
    // Parallel reads need both pool connections: both are fresh ones.
    const both = await Promise.all([ds.readAll(env, def, {}, {}, 10), ds.readAll(env, def, {}, {}, 10)])
    assert.equal(both[1].rowCount, 3)
  } finally {
    await ds.close()
  }
})

// A small document template whose one dataset reads the second MariaDB.
const TEMPLATE = {
  code: 'recovery-report',
  description: 'Rows of t',
  documentType: 'report',
  format: 'document',
  parameters: [],
  datasets: [{
    code: 'rows',
    description: 'All rows',
    cardinality: 'multiple',
    query: 'SELECT id, label FROM t ORDER BY id',
    fields: [{ name: 'id', type: 'integer' }, { name: 'label', type: 'string' }]
  }],
  document: {
    page: { size: 'A4', orientation: 'portrait', margins: [40, 40, 40, 40] },
    body: [
      { text: 'Recovery report ({{ count(rows) }} rows)' },
      { table: { rows: 'rows', columns: [{ header: 'Id', value: '{{ row.id }}', width: 40 }, { header: 'Label', value: '{{ row.label }}', width: '*' }] } }
    ]
  }
}

test('over HTTPS: a stopped data source → 503 DATA_SOURCE_UNAVAILABLE with Retry-After; back up → the same server renders again', async () => {
  const { base } = await dataInstance()
  const marker = `mark-${randomBytes(4).toString('hex')}`
  let data: DataDatabase | undefined
  let database: TestDatabase | undefined
  let server: TestServer | undefined
  try {
    data = await createDataDatabase(['CREATE TABLE t (id INT PRIMARY KEY, label VARCHAR(64))',
      `INSERT INTO t VALUES (1, '${marker}-one'), (2, '${marker}-two')`], base)
    const password = decodeURIComponent(new URL(data.url).password)
    database = await createTestDatabase('dsrec')
    server = await startServer(database.url, { SVC_DATASOURCE_CONNECT_TIMEOUT: '2s', SVC_DATASOURCE_POOL_SIZE: '2', SVC_RATE_LIMIT: '1000000' })
    const ctx = server.context
    const ws = await ctx.services.workspaces.create('recovery')
    await ctx.services.environments.create({ workspaceId: ws.id, key: 'production', dataSourceUrl: data.url })
    await ctx.services.templates.publish(ws.id, TEMPLATE, { note: 'test', publishedBy: 'tests' })
    const key = await ctx.services.apiKeys.create({ workspaceId: ws.id, name: 'k', mode: 'live', scopes: ['render', 'datasets.execute'], expiresAt: null })
    const srv = server
    const render = async (): Promise<TestResponse> => await srv.fetch('POST', '/api/v1/render', { headers: bearer(key.key), body: { template: 'recovery-report' } })
    const execute = async (): Promise<TestResponse> => await srv.fetch('POST', '/api/v1/datasets/recovery-report/rows/execute', { headers: bearer(key.key), body: {} })
    const assertRendered = async (res: TestResponse): Promise<void> => {
      assert.equal(res.status, 200, res.text())
      assert.equal(res.headers['content-type'], 'application/pdf')
      const pdf = await pdfFacts(res.body)
      assert.equal(pdf.pages, 1)
      assert.match(pdf.text, new RegExp(`${marker}-one`))
      assert.match(pdf.text, new RegExp(`${marker}-two`))
      assert.match(pdf.text, /Recovery report \(2 rows\)/)
    }
    const assertUnavailable = (res: TestResponse): void => {
      assert.equal(res.status, 503, res.text())
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
      assert.equal(res.json().errorCode, 'DATA_SOURCE_UNAVAILABLE')
      assert.equal(res.json().status, 503)
      assert.ok(Number(res.headers['retry-after']) > 0, `Retry-After: ${String(res.headers['retry-after'])}`)
      assert.ok(!res.text().includes(password), 'the data source password is not in the answer')
    }

    // Two renders at once warm the pool with idle connections, which the stop will kill.
    const warm = await Promise.all([render(), render()])
    for (const res of warm) await assertRendered(res)
    const rows = await execute()
    assert.equal(rows.status, 200, rows.text())
    assert.deepEqual(rows.json().rows, [{ id: 1, label: `${marker}-one` }, { id: 2, label: `${marker}-two` }])

    await stopInstance(home as string)
    for (let i = 0; i < 2; i++) {
      assertUnavailable(await render())
      assertUnavailable(await execute())
    }

    await dataInstance()
    await assertRendered(await render())
    const again = await execute()
    assert.equal(again.status, 200, again.text())
    assert.equal(again.json().rowCount, 2)
    // Parallel renders need both pool connections: both work again.
    for (const res of await Promise.all([render(), render()])) await assertRendered(res)
  } finally {
    await server?.close()
    await database?.drop()
    await data?.drop()
  }
})
