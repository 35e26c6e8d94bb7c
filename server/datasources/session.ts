// Every data-source session is read-only and time-bounded before its first dataset statement:
// a dataset whose SQL (or a function it calls) writes fails on the server, and nothing is written.
// Set once per physical connection and awaited: a connection whose set-up failed is never used.
import type { PoolConnection } from 'mysql2'

function run (conn: PoolConnection, sql: string): Promise<void> {
  return new Promise((resolve, reject) => conn.query(sql, (err) => { if (err !== null) reject(err); else resolve() }))
}

export async function prepareSession (conn: PoolConnection, timeoutMs: number): Promise<void> {
  await run(conn, "SET time_zone = '+00:00'")
  await run(conn, 'SET SESSION TRANSACTION READ ONLY')
  // MariaDB: max_statement_time in seconds; MySQL 8: MAX_EXECUTION_TIME in ms (SELECT only).
  try {
    await run(conn, `SET SESSION max_statement_time = ${(timeoutMs / 1000).toFixed(3)}`)
  } catch (err) {
    if ((err as { code?: string }).code !== 'ER_UNKNOWN_SYSTEM_VARIABLE') throw err
    await run(conn, `SET SESSION MAX_EXECUTION_TIME = ${Math.ceil(timeoutMs)}`)
  }
}
