// A data source whose server stops answers 503, and the same pool reads again once the server is
// back, without restarting anything. Uses a second private MariaDB on a free port.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Environment } from '../../../server/store/repos/environments.js'
import { startInstance, stopInstance } from '../../../server/store/instance.js'
import { dataSources } from '../../../server/datasources/index.js'
import type { DatasetFailure } from '../../../server/datasources/index.js'
import { Problem } from '../../../server/errors.js'
import type { TemplateDefinition } from '../../../workers/template/definition.js'
import { loadConfig } from '../../../server/config.js'
import { createDataDatabase, refusedPort } from './helpers.js'

let home: string | undefined
after(async () => {
  if (home !== undefined) { await stopInstance(home); await rm(home, { recursive: true, force: true }) }
})

test('stopped data source → 503; back up → the same pool recovers', async () => {
  home = await mkdtemp(join(tmpdir(), 'svc-ds-recovery-'))
  const port = await refusedPort()
  const info = await startInstance(home, port)
  const base = info.url.replace(/\/[^/]*$/, '')
  const data = await createDataDatabase(['CREATE TABLE t (id INT PRIMARY KEY)', 'INSERT INTO t VALUES (1), (2), (3)'], base)
  const url = new URL(data.url)
  const source = { host: url.hostname, port: Number(url.port), user: url.username, password: decodeURIComponent(url.password), database: data.name }
  const env: Environment = { id: 'env-recovery', workspaceId: 'w', key: 'recovery', isProduction: false, dataSource: { host: source.host, port: source.port, user: source.user, passwordEnc: null, database: source.database }, dsVersion: 1, createdAt: new Date() }
  const failures: DatasetFailure[] = []
  const config = loadConfig({}, { SVC_MASTER_KEY: randomBytes(32).toString('hex'), SVC_DATASOURCE_CONNECT_TIMEOUT: '2s', SVC_DATASOURCE_POOL_SIZE: '2' })
  const ds = dataSources(config, { openDataSource: () => source }, { onError: (f) => failures.push(f) })
  const def: TemplateDefinition = { code: 'r', format: 'document', datasets: [{ code: 'rows', cardinality: 'multiple', query: 'SELECT id FROM t ORDER BY id', fields: [] }] }
  try {
    // Warm the pool with two idle connections, which the stop will kill.
    await Promise.all([ds.readAll(env, def, {}, {}, 10), ds.readAll(env, def, {}, {}, 10)])
    assert.deepEqual((await ds.readAll(env, def, {}, {}, 10)).datasets.rows, [{ id: 1 }, { id: 2 }, { id: 3 }])

    await stopInstance(home)
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

    await startInstance(home, port)
    assert.deepEqual((await ds.readAll(env, def, {}, {}, 10)).datasets.rows, [{ id: 1 }, { id: 2 }, { id: 3 }])
    assert.equal(ds.poolCount(), 1, 'the same pool, no restart')
    // Parallel reads need both pool connections: both are fresh ones.
    const both = await Promise.all([ds.readAll(env, def, {}, {}, 10), ds.readAll(env, def, {}, {}, 10)])
    assert.equal(both[1].rowCount, 3)
  } finally {
    await ds.close()
  }
})
