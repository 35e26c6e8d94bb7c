// The migration lock: a row lock on a table of the service database, held in a transaction on a
// connection of its own. Not GET_LOCK: named locks are server-wide, so any account on the same
// server (a tenant's data source, as the demo's are) could take `svc_migrate:<db>` first and hold
// it for hours. Tenants have no access to the service database (docs/security.md), so they can
// neither take this row nor wait on it. It sits on its own connection because the migrations' DDL
// commits implicitly and would release a row lock taken on the connection that runs them. A
// process that dies loses its connection, and the server rolls the transaction back: no stale lock.
import type { RowDataPacket } from 'mysql2/promise'
import { onlyRow, type Conn, type Db } from './db.js'

export interface MigrationLock {
  /** Ends the transaction (releasing the row) and gives the connection back to the pool. */
  release: () => Promise<void>
}

/** How long a second migrator waits for the first before giving up (as GET_LOCK(…, 60) did). */
export const MIGRATION_LOCK_WAIT_SECONDS = 60

const ER_LOCK_WAIT_TIMEOUT = 1205

export async function takeMigrationLock (db: Db, waitSeconds = MIGRATION_LOCK_WAIT_SECONDS): Promise<MigrationLock> {
  const conn: Conn = await db.getConnection()
  try {
    // Every statement here may wait on the other migrator's row lock (the INSERT IGNORE of a
    // duplicate takes a shared lock on it), so the bound is set before any of them.
    await conn.query('SET SESSION innodb_lock_wait_timeout = ?', [waitSeconds])
    // Idempotent and safe when two processes run it at once: CREATE … IF NOT EXISTS is
    // serialised by the server, and the row is inserted only when a plain read finds none.
    await conn.query(`CREATE TABLE IF NOT EXISTS schema_migration_lock (
      id TINYINT NOT NULL PRIMARY KEY
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`)
    const [rows] = await conn.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM schema_migration_lock')
    if (Number(onlyRow(rows).n) === 0) await conn.query('INSERT IGNORE INTO schema_migration_lock (id) VALUES (1)')
    await conn.beginTransaction()
    await conn.query('SELECT id FROM schema_migration_lock WHERE id = 1 FOR UPDATE')
  } catch (err) {
    // The connection may be inside a transaction or a wait: never hand it back to the pool.
    conn.destroy()
    if ((err as { errno?: number }).errno === ER_LOCK_WAIT_TIMEOUT) {
      throw new Error(`could not take the migration lock within ${waitSeconds} s (another process is migrating)`)
    }
    throw err
  }
  return {
    async release () {
      try {
        await conn.rollback()
        await conn.query('SET SESSION innodb_lock_wait_timeout = DEFAULT')
        conn.release()
      } catch {
        conn.destroy() // a dead connection has released the row already
      }
    }
  }
}
