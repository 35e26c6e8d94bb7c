// One small mysql2 pool per environment's data source, in an LRU keyed by `<env.id>:<dsVersion>`:
// changing an environment's data source bumps dsVersion, so the next read opens a new pool and
// the stale one is closed. Evicted pools are closed too, so at most `maxPools` stay open.
import mysql from 'mysql2'
import type { Pool } from 'mysql2'
import { LRUCache } from 'lru-cache'
import type { Config } from '../config.js'
import type { Environment } from '../store/repos/environments.js'
import type { EnvironmentsService } from '../services/environments.js'
import { unavailable } from './errors.js'

export interface PoolCache {
  /** The pool of the environment's data source; 503 when the environment has none. */
  get (env: Environment): Pool
  size (): number
  close (): Promise<void>
}

function endPool (pool: Pool): Promise<void> {
  // end() waits for nothing and fails queries still queued; a closed pool is never reused.
  return new Promise((resolve) => { pool.end(() => resolve()) })
}

export function poolCache (config: Pick<Config, 'datasources'>, environments: Pick<EnvironmentsService, 'openDataSource'>): PoolCache {
  const ds = config.datasources
  const closing = new Set<Promise<void>>()
  const close = (pool: Pool): void => {
    const p = endPool(pool).finally(() => closing.delete(p))
    closing.add(p)
  }
  const pools = new LRUCache<string, Pool>({ max: ds.maxPools, dispose: (pool) => close(pool) })
  /** envId → the cache key in use, so an old dsVersion's pool is closed as soon as a new one opens. */
  const current = new Map<string, string>()

  return {
    get (env) {
      const key = `${env.id}:${env.dsVersion}`
      const hit = pools.get(key)
      if (hit !== undefined) return hit
      const source = environments.openDataSource(env)
      if (source === null) throw unavailable(`Environment "${env.key}" has no data source`)
      const previous = current.get(env.id)
      if (previous !== undefined && previous !== key) pools.delete(previous)
      const pool = mysql.createPool({
        host: source.host,
        port: source.port,
        user: source.user,
        password: source.password,
        database: source.database,
        connectionLimit: ds.poolSize,
        maxIdle: ds.poolSize,
        idleTimeout: 60_000,
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
        // Per-connection statement cache; bounded so many pools stay under the server's max_prepared_stmt_count.
        maxPreparedStatements: 128
      })
      // Dead connections leave the pool by themselves (mysql2 removes a connection on error/end);
      // this listener only keeps an idle connection's error from being an unhandled 'error' event.
      pool.on('connection', (conn) => {
        conn.on('error', () => {})
        conn.query("SET time_zone = '+00:00'", () => {})
      })
      pools.set(key, pool)
      current.set(env.id, key)
      return pool
    },
    size: () => pools.size,
    async close () {
      pools.clear()
      current.clear()
      await Promise.all([...closing])
    }
  }
}
