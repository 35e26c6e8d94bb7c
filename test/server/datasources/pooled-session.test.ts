// A data-source connection is made read-only and time-bounded ONCE, when the pool opens it
// (pools.ts), not per statement. These checks run on one pooled connection (pool size 1) after
// it has served many datasets: it is the same session (CONNECTION_ID), still read-only with its
// time limit, and its dataset statement was prepared once and then only executed (binary protocol).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { PoolConnection, RowDataPacket } from 'mysql2'
import { loadConfig } from '../../../server/config.js'
import { createContext } from '../../../server/context.js'
import type { Context } from '../../../server/context.js'
import { createDataSourceGuard } from '../../../server/datasources/destinations.js'
import { createPoolCache } from '../../../server/datasources/pools.js'
import type { PoolCache } from '../../../server/datasources/pools.js'
import { runStatement } from '../../../server/datasources/run.js'
import { bindQuery, compileQuery } from '../../../server/datasources/sql.js'
import type { Environment } from '../../../server/store/repos/environments.js'
import { createTestDatabase, testDataSourceAllow } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { createDataDatabase } from './helpers.js'
import type { DataDatabase } from './helpers.js'

const RUNS = 25
let tdb: TestDatabase
let ctx: Context
let data: DataDatabase
let pools: PoolCache
let env: Environment

const config = loadConfig({}, {
  SVC_HOME: '/nonexistent',
  SVC_MASTER_KEY: randomBytes(32).toString('hex'),
  SVC_DATASOURCE_QUERY_TIMEOUT: '7s',
  SVC_DATASOURCE_POOL_SIZE: '1',
  SVC_DATASOURCE_ALLOW: testDataSourceAllow()
})

function sql (conn: PoolConnection, text: string): Promise<RowDataPacket[]> {
  return new Promise((resolve, reject) => {
    conn.query<RowDataPacket[]>(text, (err, rows) => { if (err !== null) reject(err); else resolve(rows) })
  })
}

before(async () => {
  tdb = await createTestDatabase('pooled')
  ctx = await createContext(config, { db: tdb.db })
  const workspaceId = (await ctx.services.workspaces.create('Pooled sessions')).id
  data = await createDataDatabase([
    'CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL)',
    "INSERT INTO items VALUES (1, 'one'), (2, 'two'), (3, 'three')"
  ], undefined, 'SELECT, INSERT')
  await ctx.services.environments.create({ workspaceId, key: 'pooled', dataSourceUrl: data.url })
  env = (await ctx.repos.environments.get(workspaceId, 'pooled')) as Environment
  pools = createPoolCache(config, ctx.services.environments, createDataSourceGuard(config, undefined))
})

after(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await pools?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await ctx?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await data?.drop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await tdb?.drop()
})

test('a reused data-source connection is still read-only with its time limit, and its dataset statement is prepared once', async () => {
  const q = compileQuery('SELECT name FROM items WHERE id = :id', 'items')
  const ids = new Set<number>()
  let first: { prepare: number, execute: number } | undefined
  for (let i = 0; i < RUNS; i++) {
    const conn = await pools.connection(env)
    ids.add(Number((await sql(conn, 'SELECT CONNECTION_ID() AS id'))[0]?.id))
    if (i === 1) first = await counters(conn)
    const bytes = { limit: 1 << 20, used: 0, cellLimit: 1 << 20 }
    const r = await runStatement(conn, bindQuery(q, () => (i % 3) + 1), 5000, { limit: 10, used: 0 }, bytes)
    assert.deepEqual(r.rows, [{ name: ['one', 'two', 'three'][i % 3] }])
  }
  assert.equal(ids.size, 1, 'one physical connection served every dataset')

  const conn = await pools.connection(env)
  try {
    const [session] = await sql(conn, 'SELECT @@session.tx_read_only AS ro, @@session.max_statement_time AS t, @@session.time_zone AS tz')
    assert.equal(Number(session?.ro), 1, 'still read-only')
    assert.equal(Number(session?.t), 7, 'still bounded by SVC_DATASOURCE_QUERY_TIMEOUT (seconds)')
    assert.equal(session?.tz, '+00:00')
    // The user may INSERT; the session may not.
    await assert.rejects(sql(conn, "INSERT INTO items VALUES (9, 'nine')"), /READ ONLY|read.only/i)
    const after = await counters(conn)
    assert.ok(first !== undefined)
    // Counted on this session only: RUNS - 1 executions since the second use, no new prepare.
    assert.equal(after.execute - first.execute, RUNS - 1, 'each dataset is a prepared-statement execution')
    assert.equal(after.prepare - first.prepare, 0, 'the statement was prepared once (first use)')
  } finally {
    conn.release()
  }
  const admin = (await import('./helpers.js')).suiteServer().admin()
  try {
    const [rows] = await admin.query<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM \`${data.name}\`.items`)
    assert.equal(Number(rows[0]?.n), 3, 'nothing was written')
  } finally {
    await admin.end()
  }
})

async function counters (conn: PoolConnection): Promise<{ prepare: number, execute: number }> {
  const rows = await sql(conn, "SHOW SESSION STATUS WHERE Variable_name IN ('Com_stmt_prepare', 'Com_stmt_execute')")
  const get = (name: string): number => Number(rows.find((r) => r.Variable_name === name)?.Value)
  return { prepare: get('Com_stmt_prepare'), execute: get('Com_stmt_execute') }
}
