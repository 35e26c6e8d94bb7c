// The service database: one mysql2 pool, UTC everywhere, helpers for transactions.
import mysql from 'mysql2/promise'
import type { Pool, PoolConnection, PoolOptions } from 'mysql2/promise'

export type Db = Pool
export type Conn = PoolConnection

export function parseMysqlUrl (url: string): {
  host: string
  port: number
  user: string
  password: string
  database: string
} {
  const u = new URL(url)
  if (u.protocol !== 'mysql:') throw new Error('expected a mysql:// URL')
  return {
    host: u.hostname,
    port: u.port === '' ? 3306 : Number(u.port),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.replace(/^\//, ''))
  }
}

/**
 * The sql_mode every service connection runs with, whatever the server's global default:
 * mysql2's client-side escaping (query() with `?` values, used by the multi-row writers) assumes
 * backslash escapes and '…' strings, so NO_BACKSLASH_ESCAPES or ANSI_QUOTES set globally by an
 * operator would turn an escaped quote in a caller's value into the end of the literal (injection).
 */
export const SQL_MODE = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'

export function createDb (url: string, options: Partial<PoolOptions> = {}): Db {
  const pool = mysql.createPool({
    ...parseMysqlUrl(url),
    connectionLimit: 10,
    waitForConnections: true,
    // Dates are written and read as UTC; DATETIME has no zone of its own.
    timezone: 'Z',
    dateStrings: false,
    supportBigNumbers: true,
    bigNumberStrings: false,
    charset: 'utf8mb4_bin',
    enableKeepAlive: true,
    // mysql2's default trace: true captures a stack (Error.captureStackTrace) on every query so a
    // failure shows the caller; on the render path that was ~3% of the main thread's samples.
    // Errors still carry the SQL state and code that the callers map.
    trace: false,
    // Prepared statements (execute) stay cached per connection; mysql2's default bound is 16,000
    // per connection, and MariaDB's max_prepared_stmt_count (16,382 by default) is per server:
    // 20 connections × 256 stays far under it. The service's statement texts are fixed (the
    // documents insert varies with its batch size only), so 256 never evicts in practice.
    maxPreparedStatements: 256,
    ...options
  })
  pool.on('connection', (conn) => {
    // Once per physical connection (queued before any query of ours): UTC, the sql_mode the
    // client-side escaping relies on (SQL_MODE), and READ COMMITTED
    // for every transaction — the queue claims need it (no gap locks blocking inserts, see
    // shared/notes), and setting it here saves a round trip per transaction.
    void conn.query(`SET time_zone = '+00:00', sql_mode = '${SQL_MODE}'`)
    void conn.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED')
  })
  return pool
}

/** The one row an aggregate (COUNT, SUM) or a singleton-table query always answers. */
export function onlyRow<T> (rows: T[]): T {
  const [row] = rows
  if (row === undefined) throw new Error('expected one row, the query answered none')
  return row
}

/**
 * True when the database refused a statement for the values of one row (out of range, too long,
 * a duplicate or missing reference): writing that row again will fail again, while the other
 * rows of its batch can be written. Anything else (connection lost, timeout) is an outage.
 */
export function isRowFault (err: unknown): boolean {
  const e = err as { sqlState?: string, errno?: number } | null
  const state = e?.sqlState ?? ''
  return state.startsWith('22') || state.startsWith('23') || e?.errno === 1366 || e?.errno === 1292
}

/** The transaction in progress: its connection, and work that must wait until it has committed. */
export interface Tx {
  conn: Conn
  /** Runs `fn` once the transaction has committed (never after a rollback), e.g. to wake a loop
   * that will read the rows it wrote: before the commit it would not see them. */
  afterCommit: (fn: () => void) => void
}

/**
 * Runs fn in a transaction on one connection; commits on success, rolls back on any error, then
 * runs the after-commit callbacks (only after a commit). Connections of createDb() are READ
 * COMMITTED already; other levels are set per transaction.
 */
export async function transaction<T> (db: Db, fn: (conn: Conn, tx: Tx) => Promise<T>, isolation?: 'READ COMMITTED' | 'REPEATABLE READ'): Promise<T> {
  const conn = await db.getConnection()
  const after: Array<() => void> = []
  let result: T
  try {
    if (isolation !== undefined && isolation !== 'READ COMMITTED') await conn.query(`SET TRANSACTION ISOLATION LEVEL ${isolation}`)
    await conn.beginTransaction()
    try {
      result = await fn(conn, { conn, afterCommit: (cb) => { after.push(cb) } })
      await conn.commit()
    } catch (err) {
      await conn.rollback().catch(() => {})
      throw err
    }
  } finally {
    conn.release()
  }
  // Callbacks are notifications (wake-ups): one that throws must not turn a commit into an error.
  for (const cb of after) {
    try { cb() } catch { /* a failed wake-up leaves the work to the poll */ }
  }
  return result
}
