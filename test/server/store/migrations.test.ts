// Migrations on a fresh, empty database: applied once, a second run is a no-op, and two
// migrators starting at once (two server processes) both succeed without double-applying.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { readdir } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import type { RowDataPacket } from 'mysql2/promise'
import { createDb } from '../../../server/store/db.js'
import type { Db } from '../../../server/store/db.js'
import { migrate } from '../../../server/store/migrate.js'
import { migrationsDir } from '../../../server/util/paths.js'
import { serverUrl } from '../../helpers/db.js'

const created: string[] = []
const pools: Db[] = []

async function emptyDatabase (): Promise<string> {
  const name = `mig_${randomBytes(5).toString('hex')}`
  const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`)
  await admin.end()
  created.push(name)
  return `${serverUrl()}/${name}`
}

function pool (url: string): Db {
  const db = createDb(url, { connectionLimit: 2 })
  pools.push(db)
  return db
}

async function files (): Promise<string[]> {
  return (await readdir(migrationsDir)).filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f)).sort()
}

/** Files applied whole (a file that stopped part-way has a row counting its statements). */
async function recorded (db: Db): Promise<string[]> {
  const [rows] = await db.query<RowDataPacket[]>('SELECT version FROM schema_migrations WHERE statements_applied IS NULL ORDER BY version')
  return rows.map((r) => r.version as string)
}

after(async () => {
  for (const db of pools) await db.end().catch(() => {})
  const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  for (const name of created) await admin.query(`DROP DATABASE IF EXISTS \`${name}\``)
  await admin.end()
})

test('every migration is applied once, in order; a second run is a no-op', async () => {
  const all = await files()
  assert.ok(all.includes('001_initial.sql'))
  const db = pool(await emptyDatabase())
  const first = await migrate(db)
  assert.deepEqual(first.applied, all)
  assert.deepEqual(first.current, all)
  assert.deepEqual(await recorded(db), all)
  const [tables] = await db.query<RowDataPacket[]>('SHOW TABLES')
  const names = tables.map((r) => Object.values(r)[0] as string)
  for (const t of ['workspaces', 'environments', 'api_keys', 'templates', 'template_versions', 'render_jobs', 'documents', 'runs', 'webhook_endpoints', 'events', 'webhook_deliveries', 'webhook_attempts']) {
    assert.ok(names.includes(t), `table ${t}`)
  }
  const second = await migrate(db)
  assert.deepEqual(second.applied, [])
  assert.deepEqual(second.current, all)
  assert.deepEqual(await recorded(db), all)
})

test('two concurrent migrate() calls on a fresh database both succeed and record each migration once', async () => {
  const url = await emptyDatabase()
  // Separate pools, as two server processes would have.
  const [a, b] = await Promise.all([migrate(pool(url)), migrate(pool(url))])
  const all = await files()
  assert.deepEqual([...a.applied, ...b.applied].sort(), all, 'each file applied by exactly one of them')
  assert.deepEqual(a.current, all)
  assert.deepEqual(b.current, all)
  const db = pool(url)
  const [rows] = await db.query<RowDataPacket[]>('SELECT version, COUNT(*) AS n FROM schema_migrations GROUP BY version')
  assert.equal(rows.length, all.length)
  for (const r of rows) assert.equal(Number(r.n), 1, r.version)
})

test('a migration that fails is not recorded, the lock is released, and the next run resumes at the failed statement', async () => {
  const { mkdtemp, writeFile, rm } = await import('node:fs/promises')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const dir = await mkdtemp(join(tmpdir(), 'svc-mig-'))
  try {
    await writeFile(join(dir, '001_ok.sql'), 'CREATE TABLE a (id INT PRIMARY KEY);\n-- a comment\nINSERT INTO a VALUES (1);\n')
    const head = 'CREATE TABLE b (id INT AUTO_INCREMENT PRIMARY KEY, v INT);\nINSERT INTO b (v) VALUES (1);\n'
    await writeFile(join(dir, '002_bad.sql'), head + 'SELECT * FROM no_such_table;\n')
    const db = pool(await emptyDatabase())
    await assert.rejects(migrate(db, dir), /002_bad\.sql, statement 3 of 3: .*no_such_table/)
    assert.deepEqual(await recorded(db), ['001_ok.sql'])
    const [partial] = await db.query<RowDataPacket[]>("SELECT statements_applied AS n FROM schema_migrations WHERE version = '002_bad.sql'")
    assert.equal(partial[0]?.n, 2, 'the statements that committed are counted')
    // The failed statement fixed; the ones that committed are not run again (the CREATE would
    // fail, the INSERT would insert twice).
    await writeFile(join(dir, '002_bad.sql'), head + 'INSERT INTO b (v) VALUES (2);\n')
    const again = await migrate(db, dir) // would wait 60 s if the lock had leaked
    assert.deepEqual(again.applied, ['002_bad.sql'])
    assert.deepEqual(await recorded(db), ['001_ok.sql', '002_bad.sql'])
    const [b] = await db.query<RowDataPacket[]>('SELECT v FROM b ORDER BY id')
    assert.deepEqual(b.map((r) => r.v), [1, 2])
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})

test('011_run_warnings on a database with run history: old runs read 0 warnings, new runs keep theirs', async () => {
  const { mkdtemp, copyFile, rm } = await import('node:fs/promises')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const { createRunsRepo } = await import('../../../server/store/repos/runs.js')
  const dir = await mkdtemp(join(tmpdir(), 'svc-mig-'))
  try {
    const before = (await files()).filter((f) => f < '011')
    for (const f of before) await copyFile(join(migrationsDir, f), join(dir, f))
    const db = pool(await emptyDatabase())
    assert.deepEqual((await migrate(db, dir)).applied, before)
    await db.query(`INSERT INTO runs (id, workspace_id, correlation_id, mode, template_code, status, duration_ms,
      started_at, completed_at) VALUES ('old-run', 'w', 'c', 'sync', 't', 'succeeded', 1, NOW(3), NOW(3))`)
    assert.deepEqual((await migrate(db)).applied.filter((f) => f.startsWith('011')), ['011_run_warnings.sql'])
    const runs = createRunsRepo(db)
    const old = await runs.get('old-run')
    assert.ok(old !== undefined)
    assert.equal(old.warningCount, 0)
    assert.deepEqual(old.warnings, [])
    // A new run: the count is every warning, the texts are the first ones that fit the column.
    const many = Array.from({ length: 8 }, (_, i) => `warning ${i} ` + 'x'.repeat(400))
    await runs.insertMany(db, [{ ...old, id: 'new-run', warningCount: many.length, warnings: many }])
    const fresh = await runs.get('new-run')
    assert.ok(fresh !== undefined)
    assert.equal(fresh.warningCount, 8)
    assert.ok(fresh.warnings.length >= 1 && fresh.warnings.length < 8, String(fresh.warnings.length))
    assert.ok(fresh.warnings.every((w, i) => w.startsWith(`warning ${i} `) && w.length <= 300))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
