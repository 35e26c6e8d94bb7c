// Empty databases for migration tests (any default charset/collation), a comparable picture of
// a database's schema from information_schema, and migration folders with one statement made to
// fail. Databases and folders made here are dropped by cleanup().
import { randomBytes } from 'node:crypto'
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RowDataPacket } from 'mysql2/promise'
import { createDb } from '../../server/store/db.js'
import type { Db } from '../../server/store/db.js'
import { migrationStatements } from '../../server/store/migrate.js'
import { migrationsDir } from '../../server/util/paths.js'
import { serverUrl } from './db.js'

export interface MigrationFixture {
  /** A new empty database created with `spec` (e.g. "CHARACTER SET latin1"); its name and URL. */
  database: (spec?: string) => Promise<{ name: string, url: string }>
  /** A pool on `url` with room for the migrator's two connections. */
  pool: (url: string) => Db
  /** A copy of the real migrations with statement `index` of `file` replaced by `replacement`. */
  brokenCopy: (file: string, index: number, replacement?: string) => Promise<string>
  /** A copy of the real migrations before `file` (exclusive). */
  copyBefore: (file: string) => Promise<string>
  cleanup: () => Promise<void>
}

/** A statement that fails without changing anything (unknown column). */
export const FAILING_STATEMENT = 'SELECT injected_failure FROM DUAL'

export async function migrationFiles (): Promise<string[]> {
  return (await readdir(migrationsDir)).filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f)).sort()
}

export async function realStatement (file: string, index: number): Promise<string> {
  const statement = migrationStatements(await readFile(join(migrationsDir, file), 'utf8'))[index]
  if (statement === undefined) throw new Error(`${file} has no statement ${index}`)
  return statement
}

export function migrationFixture (prefix: string): MigrationFixture {
  const databases: string[] = []
  const dirs: string[] = []
  const pools: Db[] = []
  async function copy (keep: (f: string) => boolean): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'svc-mig-'))
    dirs.push(dir)
    for (const f of (await migrationFiles()).filter(keep)) await copyFile(join(migrationsDir, f), join(dir, f))
    return dir
  }
  return {
    async database (spec = 'CHARACTER SET utf8mb4 COLLATE utf8mb4_bin') {
      const name = `${prefix}_${randomBytes(5).toString('hex')}`
      const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
      try { await admin.query(`CREATE DATABASE \`${name}\` ${spec}`) } finally { await admin.end() }
      databases.push(name)
      return { name, url: `${serverUrl()}/${name}` }
    },
    pool (url) {
      const db = createDb(url, { connectionLimit: 4 })
      pools.push(db)
      return db
    },
    async brokenCopy (file, index, replacement = FAILING_STATEMENT) {
      const dir = await copy(() => true)
      const stmts = migrationStatements(await readFile(join(dir, file), 'utf8'))
      if (index >= stmts.length) throw new Error(`${file} has ${stmts.length} statements`)
      stmts[index] = replacement
      await writeFile(join(dir, file), stmts.join(';\n') + ';\n')
      return dir
    },
    async copyBefore (file) { return await copy((f) => f < file) },
    async cleanup () {
      for (const db of pools) await db.end().catch(() => {})
      const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
      for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS \`${name}\``).catch(() => {})
      await admin.end()
      for (const dir of dirs) await rm(dir, { recursive: true, force: true })
    }
  }
}

/**
 * Everything information_schema says about a database's tables, columns, indexes and foreign
 * keys, plus the migrations it records, in a stable order: two databases migrated the same
 * way compare equal.
 */
export async function schemaOf (db: Db, name: string): Promise<Record<string, unknown[]>> {
  const q = async (sql: string): Promise<unknown[]> => {
    const [rows] = await db.query<RowDataPacket[]>(sql, [name])
    return rows.map((r) => ({ ...r }))
  }
  return {
    tables: await q(`SELECT TABLE_NAME, ENGINE, TABLE_COLLATION FROM information_schema.TABLES
      WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME`),
    columns: await q(`SELECT TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT,
      CHARACTER_SET_NAME, COLLATION_NAME, EXTRA FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION`),
    indexes: await q(`SELECT TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NON_UNIQUE FROM information_schema.STATISTICS
      WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`),
    foreignKeys: await q(`SELECT k.TABLE_NAME, k.CONSTRAINT_NAME, k.COLUMN_NAME, k.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME,
      r.UPDATE_RULE, r.DELETE_RULE FROM information_schema.KEY_COLUMN_USAGE k
      JOIN information_schema.REFERENTIAL_CONSTRAINTS r ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME
      WHERE k.TABLE_SCHEMA = ? AND k.REFERENCED_TABLE_NAME IS NOT NULL ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`),
    // Every column but the time (and whichever columns this svc's bookkeeping has).
    migrations: (await db.query<RowDataPacket[]>('SELECT * FROM schema_migrations ORDER BY version'))[0]
      .map(({ applied_at: _at, ...rest }) => rest)
  }
}
