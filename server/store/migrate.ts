// Versioned SQL migrations, applied in order and recorded in schema_migrations, statement by
// statement: a migration that stops part-way (a failing statement, a crash) resumes at the
// statement it stopped at, so the statements that committed are not run twice (DDL commits
// implicitly: a file cannot be atomic). A row lock on a table of the service database
// (migration-lock.ts) serialises concurrent migrators (two processes starting at once); a second
// run is a no-op. The DDL is portable (MariaDB >= 10.6 and MySQL 8, docs/deploy.md): no IF NOT
// EXISTS on columns or indexes, and every table states its charset and collation.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { RowDataPacket } from 'mysql2/promise'
import { onlyRow, type Conn, type Db } from './db.js'
import { takeMigrationLock } from './migration-lock.js'
import { migrationsDir } from '../util/paths.js'

export interface MigrationResult { applied: string[], current: string[] }

/**
 * Splits a migration file into statements (our files have no semicolons inside strings). The
 * progress of a file is a count of these: never change the number or order of the statements of
 * a file that may have been applied (their text may be fixed, as 008's and 011's were).
 */
export function migrationStatements (sql: string): string[] {
  return sql.split(/;\s*(?:\n|$)/)
    .map((s) => s.split('\n').filter((line) => !line.trim().startsWith('--')).join('\n').trim())
    .filter((s) => s.length > 0)
}

/**
 * Errors that say a statement's object is there already (table, column, index exists; a dropped
 * column or index is gone): the statement committed before its progress was recorded.
 */
const ALREADY_APPLIED = new Set([1050, 1060, 1061, 1091])

/**
 * schema_migrations: one row per file; `statements_applied` counts the statements of a file that
 * stopped part-way, and is NULL once the whole file is applied (rows written before the column
 * existed are whole files). Created or brought up to date with portable DDL only.
 */
async function bookkeeping (conn: Conn): Promise<void> {
  await conn.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version VARCHAR(255) NOT NULL PRIMARY KEY,
    applied_at DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
    statements_applied INT NULL
  ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`)
  const [table] = await conn.query<RowDataPacket[]>(`SELECT TABLE_COLLATION AS c FROM information_schema.TABLES
    WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'schema_migrations'`)
  // Made by an older svc with the database's default collation.
  if (table[0]?.c !== 'utf8mb4_bin') {
    await conn.query('ALTER TABLE schema_migrations CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin')
  }
  const [column] = await conn.query<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM information_schema.COLUMNS
    WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'schema_migrations' AND COLUMN_NAME = 'statements_applied'`)
  if (Number(onlyRow(column).n) === 0) {
    await conn.query('ALTER TABLE schema_migrations ADD COLUMN statements_applied INT NULL')
  }
}

/**
 * Runs the statements of one file from `from` on. Each runs in a transaction with its progress,
 * so a data statement and its progress commit together (exactly once). DDL commits by itself
 * before the progress is written, so a crash in between leaves it applied but not counted: when a
 * file starts or resumes, leading statements whose objects exist already are taken as applied
 * (this also repairs files an older svc left half-applied with no progress at all, such as 008's
 * ALTER before its CREATE failed). Once a statement has run, every later error is an error.
 */
async function applyFile (conn: Conn, file: string, stmts: string[], from: number): Promise<void> {
  let resuming = true
  for (const [i, stmt] of stmts.entries()) {
    if (i < from) continue
    await conn.beginTransaction()
    try {
      try {
        await conn.query(stmt)
        resuming = false
      } catch (err) {
        if (!resuming || !ALREADY_APPLIED.has((err as { errno?: number }).errno ?? 0)) throw err
      }
      await conn.query('UPDATE schema_migrations SET statements_applied = ? WHERE version = ?', [i + 1, file])
      await conn.commit()
    } catch (err) {
      await conn.rollback().catch(() => {})
      throw new Error(`migration ${file}, statement ${i + 1} of ${stmts.length}: ${(err as Error).message}`, { cause: err })
    }
  }
  await conn.query('UPDATE schema_migrations SET statements_applied = NULL, applied_at = UTC_TIMESTAMP(3) WHERE ' +
    'version = ?', [file])
}

export async function migrate (db: Db, dir = migrationsDir): Promise<MigrationResult> {
  const files = (await readdir(dir)).filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f)).sort()
  const lock = await takeMigrationLock(db)
  try {
    const conn = await db.getConnection()
    try {
      await bookkeeping(conn)
      const [rows] = await conn.query<RowDataPacket[]>('SELECT version, statements_applied AS n FROM schema_migrations')
      const progress = new Map(rows.map((r) => [r.version as string, r.n as number | null]))
      const done = [...progress].filter(([, n]) => n === null).map(([version]) => version)
      const applied: string[] = []
      for (const file of files) {
        const n = progress.get(file)
        if (n === null) continue
        // The row is written before the first statement runs: a file without one was never started
        // here (or was left half-applied by an svc older than this bookkeeping: see applyFile).
        if (n === undefined) {
          await conn.query('INSERT INTO schema_migrations (version, statements_applied) VALUES (?, 0)', [file])
        }
        await applyFile(conn, file, migrationStatements(await readFile(join(dir, file), 'utf8')), n ?? 0)
        applied.push(file)
      }
      return { applied, current: [...done, ...applied].sort() }
    } finally {
      conn.release()
    }
  } finally {
    await lock.release()
  }
}
