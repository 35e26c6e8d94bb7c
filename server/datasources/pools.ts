// One small mysql2 pool per environment's data source, in an LRU keyed by `<env.id>:<dsVersion>`:
// changing an environment's data source bumps dsVersion, so the next read opens a new pool and
// the stale one is closed. Evicted pools are closed too, so at most `maxPools` stay open.
// A pool connects to the address its destination check answered (pinned for the pool's life, so
// DNS rebinding cannot move it), and each connection is made read-only before its first use.
// A connection goes back to its pool only after `DO RELEASE_ALL_LOCKS()`: user locks (GET_LOCK)
// live in one namespace for the whole server, and a tenant's own stored function or view can take
// one that the publish check cannot see by name; a connection whose locks cannot be released is
// discarded. A connection idle for SVC_DATASOURCE_IDLE_TIMEOUT is closed (mysql2's own idle timer
// runs only when maxIdle < connectionLimit, which would also close busy pools' spare connections).
import mysql from 'mysql2'
import type { Pool, PoolConnection } from 'mysql2'
import { LRUCache } from 'lru-cache'
import type { Config } from '../config.js'
import type { Environment } from '../store/repos/environments.js'
import type { DataSourceConfig, DataSourceOpener } from './source.js'
import { AddressRefused } from '../net/address-guard.js'
import { unavailable } from './errors.js'
import type { DataSourceGuard } from './destinations.js'
import { prepareSession } from './session.js'
import { meteredConnection } from './byte-budget.js'
import type { WireMeter } from './byte-budget.js'

export interface PoolCache {
  /** A read-only connection of the environment's data source; 503 when it has none or the policy refuses it. */
  connection (env: Environment): Promise<PoolConnection>
  size (): number
  close (): Promise<void>
}

function endPool (pool: Pool): Promise<void> {
  // end() waits for nothing and fails queries still queued; a closed pool is never reused.
  return new Promise((resolve) => { pool.end(() => resolve()) })
}

function acquire (pool: Pool): Promise<PoolConnection> {
  return new Promise((resolve, reject) => {
    // mysql2's callback passes null or undefined for no error
    pool.getConnection((err, conn) => { if (err != null) reject(err); else resolve(conn) })
  })
}

export function createPoolCache (config: Pick<Config, 'datasources'>, environments: DataSourceOpener, guard: DataSourceGuard): PoolCache {
  const ds = config.datasources
  const closing = new Set<Promise<void>>()
  const close = (pool: Promise<Pool>): void => {
    const p = pool.then(endPool, () => {}).finally(() => closing.delete(p))
    closing.add(p)
  }
  const pools = new LRUCache<string, Promise<Pool>>({ max: ds.maxPools, dispose: (pool) => close(pool) })
  /** envId → the cache key in use, so an old dsVersion's pool is closed as soon as a new one opens. */
  const current = new Map<string, string>()
  /** Connections whose session is read-only and bounded already. */
  const ready = new WeakSet<PoolConnection>()
  /** Connections handed out by connection() and not given back yet. */
  const lent = new WeakSet<PoolConnection>()
  /** The idle timer of each connection waiting in its pool. */
  const idle = new WeakMap<PoolConnection, NodeJS.Timeout>()
  /** A new connection's socket → the meter of its bytes until its session is ready (byte-budget.ts). */
  const setup = new WeakMap<object, WireMeter>()

  async function open (env: Environment, source: DataSourceConfig): Promise<Pool> {
    let pinned: string
    try {
      pinned = (await guard.check(source)).address
    } catch (err) {
      if (!(err instanceof AddressRefused)) throw err
      throw unavailable(`The data source of environment "${env.key}" is refused by the data-source destination policy`)
    }
    return createPool(pinned, source)
  }

  function get (env: Environment): Promise<Pool> {
    const key = `${env.id}:${env.dsVersion}`
    const hit = pools.get(key)
    if (hit !== undefined) return hit
    const source = environments.openDataSource(env)
    if (source === null) return Promise.reject(unavailable(`Environment "${env.key}" has no data source`))
    const previous = current.get(env.id)
    if (previous !== undefined && previous !== key) pools.delete(previous)
    const pool = open(env, source)
    // A refused or failed check is not cached: the next read checks again.
    pool.catch(() => { if (pools.peek(key) === pool) { pools.delete(key); current.delete(env.id) } })
    pools.set(key, pool)
    current.set(env.id, key)
    return pool
  }

  function createPool (host: string, source: { port: number, user: string, password: string, database: string }): Pool {
    const pool = mysql.createPool({
      host,
      port: source.port,
      user: source.user,
      password: source.password,
      database: source.database,
      connectionLimit: ds.poolSize,
      // Idle connections are closed by our own timer (SVC_DATASOURCE_IDLE_TIMEOUT, below):
      // mysql2's idleTimeout only runs when maxIdle < connectionLimit.
      maxIdle: ds.poolSize,
      waitForConnections: true,
      connectTimeout: ds.connectTimeoutMs,
      enableKeepAlive: true,
      // Rows as the engine expects them: DATE/DATETIME as Date read in UTC, DECIMAL as string.
      timezone: 'Z',
      dateStrings: false,
      decimalNumbers: false,
      supportBigNumbers: true,
      bigNumberStrings: false,
      charset: 'utf8mb4',
      multipleStatements: false,
      // No stack captured per query (mysql2's default): as on the service pool (store/db.ts),
      // ~4-13 µs CPU per statement, and a failure is mapped to a problem that names no stack.
      trace: false,
      // Per-connection statement cache; bounded so many pools stay under the server's max_prepared_stmt_count.
      maxPreparedStatements: 128,
      // Our socket, metered from the first byte: a hostile server's greeting is bounded too.
      stream: () => {
        const { socket, meter } = meteredConnection(host, source.port)
        setup.set(socket, meter)
        return socket
      }
    })
    // Dead connections leave the pool by themselves (mysql2 removes a connection on error/end);
    // the error listener only keeps an idle connection's error from being an unhandled 'error' event.
    pool.on('connection', (conn) => {
      conn.on('error', () => {})
      unlockOnRelease(conn)
    })
    pool.on('release', (conn) => {
      idle.set(conn, setTimeout(() => { conn.destroy() }, ds.idleTimeoutMs).unref())
    })
    pool.on('acquire', (conn) => { clearTimeout(idle.get(conn)) })
    return pool
  }

  /**
   * Every holder of a pooled connection gives it back with release() (server/datasources/run.ts,
   * also when its statement failed), so release() itself is where the session's user locks are
   * dropped: one statement per dataset run, after its rows were read (off the answer's path).
   */
  function unlockOnRelease (conn: PoolConnection): void {
    const giveBack = conn.release.bind(conn)
    conn.release = () => {
      if (!lent.delete(conn)) return
      conn.query('DO RELEASE_ALL_LOCKS()', (err) => {
        if (err === null) giveBack()
        else conn.destroy()
      })
    }
  }

  return {
    async connection (env) {
      const conn = await acquire(await get(env))
      lent.add(conn)
      if (ready.has(conn)) return conn
      try {
        await prepareSession(conn, ds.queryTimeoutMs)
      } catch (err) {
        lent.delete(conn)
        conn.destroy()
        throw err
      }
      ready.add(conn)
      setup.get((conn as unknown as { stream: object }).stream)?.stop()
      return conn
    },
    size: () => pools.size,
    async close () {
      pools.clear()
      current.clear()
      await Promise.all([...closing])
    }
  }
}
