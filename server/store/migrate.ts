// Versioned SQL migrations, applied once each and recorded in schema_migrations. A named lock
// (per database) serialises concurrent migrators (two processes starting at once); a second
// run is a no-op.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { RowDataPacket } from 'mysql2/promise'
import type { Db } from './db.js'
import { migrationsDir } from '../util/paths.js'

export interface MigrationResult { applied: string[], current: string[] }

/** Splits a migration file into statements (our files have no semicolons inside strings). */
function statements (sql: string): string[] {
  return sql.split(/;\s*(?:\n|$)/)
    .map((s) => s.split('\n').filter((line) => !line.trim().startsWith('--')).join('\n').trim())
    .filter((s) => s.length > 0)
}

export async function migrate (db: Db, dir = migrationsDir): Promise<MigrationResult> {
  const files = (await readdir(dir)).filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f)).sort()
  const conn = await db.getConnection()
  try {
    const [lock] = await conn.query<RowDataPacket[]>("SELECT GET_LOCK(CONCAT('svc_migrate:', DATABASE()), 60) AS got")
    if (lock[0].got !== 1) throw new Error('could not take the migration lock within 60 s')
    try {
      await conn.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version VARCHAR(255) NOT NULL PRIMARY KEY,
        applied_at DATETIME(3) NOT NULL DEFAULT UTC_TIMESTAMP(3)
      ) ENGINE=InnoDB`)
      const [rows] = await conn.query<RowDataPacket[]>('SELECT version FROM schema_migrations')
      const done = new Set(rows.map((r) => r.version as string))
      const applied: string[] = []
      for (const file of files) {
        if (done.has(file)) continue
        // DDL commits implicitly in MySQL, so a migration is not atomic: keep each one small
        // and record it right after its last statement.
        for (const stmt of statements(await readFile(join(dir, file), 'utf8'))) await conn.query(stmt)
        await conn.query('INSERT INTO schema_migrations (version) VALUES (?)', [file])
        applied.push(file)
      }
      return { applied, current: [...done, ...applied].sort() }
    } finally {
      await conn.query("SELECT RELEASE_LOCK(CONCAT('svc_migrate:', DATABASE()))")
    }
  } finally {
    conn.release()
  }
}
