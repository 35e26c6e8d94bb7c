// What a pooled data-source connection keeps between uses: no user lock (released when the
// connection is given back, whatever took it), and no idle connection past
// SVC_DATASOURCE_IDLE_TIMEOUT (here 300 ms). Real MariaDB; sessions seen from an admin connection.
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
import type { Environment } from '../../../server/store/repos/environments.js'
import { createTestDatabase, testDataSourceAllow } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { createDataDatabase, suiteServer } from './helpers.js'
import type { DataDatabase } from './helpers.js'

let tdb: TestDatabase
let ctx: Context
let data: DataDatabase
let pools: PoolCache
let env: Environment

const config = (idle: string) => loadConfig({}, {
  SVC_HOME: '/nonexistent',
  SVC_MASTER_KEY: randomBytes(32).toString('hex'),
  SVC_DATASOURCE_POOL_SIZE: '1',
  SVC_DATASOURCE_IDLE_TIMEOUT: idle,
  SVC_DATASOURCE_ALLOW: testDataSourceAllow()
})

function sql (conn: PoolConnection, text: string): Promise<RowDataPacket[]> {
  return new Promise((resolve, reject) => {
    conn.query<RowDataPacket[]>(text, (err, rows) => { if (err !== null) reject(err); else resolve(rows) })
  })
}

async function adminQuery (text: string, values: unknown[]): Promise<RowDataPacket[]> {
  const admin = suiteServer().admin()
  try { return (await admin.query<RowDataPacket[]>(text, values))[0] } finally { await admin.end() }
}

const sessionExists = async (id: number): Promise<boolean> =>
  (await adminQuery('SELECT ID FROM information_schema.PROCESSLIST WHERE ID = ?', [id])).length > 0

before(async () => {
  tdb = await createTestDatabase('hygiene')
  ctx = await createContext(config('30s'), { db: tdb.db })
  const workspaceId = (await ctx.services.workspaces.create('Pool hygiene')).id
  data = await createDataDatabase(['CREATE TABLE t (id INT)'])
  await ctx.services.environments.create({ workspaceId, key: 'hygiene', dataSourceUrl: data.url })
  env = (await ctx.repos.environments.get(workspaceId, 'hygiene')) as Environment
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

test('a user lock taken on a pooled connection is released when the connection is given back; the session stays open', async () => {
  const cache = createPoolCache(config('30s'), ctx.services.environments, createDataSourceGuard(config('30s'), undefined))
  const name = `hygiene_${randomBytes(4).toString('hex')}`
  try {
    const conn = await cache.connection(env)
    const id = Number((await sql(conn, 'SELECT CONNECTION_ID() AS id'))[0]?.id)
    assert.equal(Number((await sql(conn, `SELECT GET_LOCK('${name}', 0) AS got`))[0]?.got), 1)
    conn.release()
    conn.release() // a second release of the same lease changes nothing
    // Pool size 1: the next lease is the same session, given back only after its locks were released.
    const again = await cache.connection(env)
    try {
      assert.equal(Number((await sql(again, 'SELECT CONNECTION_ID() AS id'))[0]?.id), id, 'the same session')
      const [row] = await adminQuery('SELECT IS_FREE_LOCK(?) AS free', [name])
      assert.equal(Number(row?.free), 1, 'the lock was released, not kept by the pooled session')
    } finally { again.release() }
  } finally { await cache.close() }
})

test('a pooled connection idle past SVC_DATASOURCE_IDLE_TIMEOUT is closed; the pool opens a new one when needed', { timeout: 60_000 }, async () => {
  pools = createPoolCache(config('300ms'), ctx.services.environments, createDataSourceGuard(config('300ms'), undefined))
  const conn = await pools.connection(env)
  const id = Number((await sql(conn, 'SELECT CONNECTION_ID() AS id'))[0]?.id)
  conn.release()
  // Closed within the idle timeout plus the server noticing; the bound only keeps a missing
  // timer from hanging the suite.
  for (let i = 0; i < 200 && await sessionExists(id); i++) await new Promise((resolve) => setTimeout(resolve, 100))
  assert.equal(await sessionExists(id), false, 'the idle session was closed')
  const next = await pools.connection(env)
  try {
    const nextId = Number((await sql(next, 'SELECT CONNECTION_ID() AS id'))[0]?.id)
    assert.notEqual(nextId, id)
    assert.equal(Number((await sql(next, 'SELECT @@session.tx_read_only AS ro'))[0]?.ro), 1, 'the new connection is read-only too')
  } finally { next.release() }
})
