// Migrations on any database (issue 30, finding 6): they run on service databases whose default
// collation is not utf8mb4_bin, every table and text column ends up utf8mb4_bin whatever the
// default, and a migration that stopped at any statement (a failure, or a crash after a DDL
// statement committed) completes on the next run with the schema of a clean run. Real MariaDB.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { RowDataPacket } from 'mysql2/promise'
import { migrate } from '../../server/store/migrate.js'
import { migrationFiles, migrationFixture, realStatement, schemaOf } from '../helpers/migrations.js'

const fx = migrationFixture('mig_any')
let all: string[]
let clean: Record<string, unknown[]>

before(async () => {
  all = await migrationFiles()
  const { name, url } = await fx.database()
  const db = fx.pool(url)
  assert.deepEqual((await migrate(db)).applied, all)
  clean = await schemaOf(db, name)
})
after(async () => { await fx.cleanup() })

for (const spec of [
  'CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci',
  'CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci',
  'CHARACTER SET latin1'
]) {
  test(`every migration runs on a database created ${spec}; every table and text column is utf8mb4_bin`, async () => {
    const { name, url } = await fx.database(spec)
    const db = fx.pool(url)
    assert.deepEqual((await migrate(db)).applied, all)
    const [tables] = await db.query<RowDataPacket[]>(
      'SELECT TABLE_NAME AS t, TABLE_COLLATION AS c FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?', [name])
    assert.ok(tables.some((r) => r.t === 'rate_limit_windows'))
    for (const r of tables) assert.equal(r.c, 'utf8mb4_bin', `table ${String(r.t)}`)
    const [columns] = await db.query<RowDataPacket[]>(`SELECT TABLE_NAME AS t, COLUMN_NAME AS c, CHARACTER_SET_NAME AS cs,
      COLLATION_NAME AS co FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND COLLATION_NAME IS NOT NULL`, [name])
    assert.ok(columns.length > 50, String(columns.length))
    for (const r of columns) assert.deepEqual([r.cs, r.co], ['utf8mb4', 'utf8mb4_bin'], `${String(r.t)}.${String(r.c)}`)
    assert.deepEqual(await schemaOf(db, name), clean)
    // The foreign key that failed with errno 150 holds: a window row needs its key and goes with it.
    await db.query("INSERT INTO workspaces (id, name) VALUES ('w1', 'w')")
    await db.query("INSERT INTO api_keys (id, workspace_id, name, mode, scopes, secret_hash) VALUES ('k1', 'w1', 'k', 'live', 'render', REPEAT('x', 32))")
    await db.query("INSERT INTO rate_limit_windows (key_id) VALUES ('k1')")
    await assert.rejects(db.query("INSERT INTO rate_limit_windows (key_id) VALUES ('K1')"), /foreign key/i)
    await db.query("DELETE FROM api_keys WHERE id = 'k1'")
    const [left] = await db.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM rate_limit_windows')
    assert.equal(Number(left[0]?.n), 0)
  })
}

// Statement positions: [file, index of the statement that fails]. 001 stops after some of its
// tables exist; 008 after its ALTER committed (the reported case); 011 and 014 at their only one.
const positions: Array<[string, number]> = [
  ['001_initial.sql', 1], ['001_initial.sql', 7], ['001_initial.sql', 11],
  ['008_rate_limits.sql', 0], ['008_rate_limits.sql', 1], ['011_run_warnings.sql', 0], ['014_render_revision.sql', 0]
]

test('a migration that failed at any statement completes on the next run, with the schema of a clean run', async () => {
  for (const [file, index] of positions) {
    const where = `${file} statement ${index + 1}`
    const { name, url } = await fx.database('CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci')
    const db = fx.pool(url)
    await assert.rejects(migrate(db, await fx.brokenCopy(file, index)), /injected_failure/, where)
    const again = await migrate(db)
    assert.deepEqual(again.applied, all.filter((f) => f >= file), where)
    assert.deepEqual(await schemaOf(db, name), clean, where)
    assert.deepEqual((await migrate(db)).applied, [], where)
  }
})

test('a DDL statement that committed before its progress was recorded (a crash) is taken as applied on the next run', async () => {
  for (const [file, index] of [['001_initial.sql', 3], ['008_rate_limits.sql', 0], ['008_rate_limits.sql', 1], ['013_pending_documents_index.sql', 0]] as Array<[string, number]>) {
    const where = `${file} statement ${index + 1}`
    const { name, url } = await fx.database()
    const db = fx.pool(url)
    await assert.rejects(migrate(db, await fx.brokenCopy(file, index)), /injected_failure/, where)
    // The process died right after the server committed the statement: it is there, uncounted.
    await db.query(await realStatement(file, index))
    assert.deepEqual((await migrate(db)).applied, all.filter((f) => f >= file), where)
    assert.deepEqual(await schemaOf(db, name), clean, where)
  }
})

test("a database left by today's 008 on utf8mb4_general_ci (ALTER committed, CREATE failed with errno 150, nothing recorded) is repaired by migrate", async () => {
  const { name, url } = await fx.database('CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci')
  const db = fx.pool(url)
  const dir = await fx.copyBefore('008_rate_limits.sql')
  assert.deepEqual((await migrate(db, dir)).applied, all.filter((f) => f < '008'))
  // That svc's bookkeeping: schema_migrations in the database's collation, without progress,
  // and no lock table.
  await db.query('ALTER TABLE schema_migrations DROP COLUMN statements_applied')
  await db.query('ALTER TABLE schema_migrations CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci')
  await db.query('DROP TABLE schema_migration_lock')
  // What an svc without per-statement progress left: 008's first statement applied, no row for
  // 008, and its CREATE TABLE (without a collation) refused by the foreign key check.
  await db.query(await realStatement('008_rate_limits.sql', 0))
  const oldCreate = (await realStatement('008_rate_limits.sql', 1)).replace(/\)\s*ENGINE=InnoDB[^)]*$/, ') ENGINE=InnoDB')
  assert.ok(!oldCreate.includes('COLLATE'))
  await assert.rejects(db.query(oldCreate), /errno: 150|foreign key/i)
  assert.deepEqual((await migrate(db)).applied, all.filter((f) => f >= '008'))
  assert.deepEqual(await schemaOf(db, name), clean)
})
