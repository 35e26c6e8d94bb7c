// The migration lock tenants can neither take nor guess (issue 30, finding 2): a tenant's
// connection to the same MariaDB server holding GET_LOCK('svc_migrate:<service database>') (the
// lock name migrations used) no longer stops `svc db migrate` or a starting server; the row
// lock that replaced it lives in the service database, where a tenant has no access; and
// migrators starting together (pools in this process, and real `svc db migrate` processes) still
// wait for each other. Real MariaDB.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import type { RowDataPacket } from 'mysql2/promise'
import { createDb, parseMysqlUrl } from '../../server/store/db.js'
import { migrate } from '../../server/store/migrate.js'
import { takeMigrationLock } from '../../server/store/migration-lock.js'
import { serverUrl } from '../helpers/db.js'
import { svc } from '../cli/foundation-helpers.js'
import { migrationFiles, migrationFixture } from '../helpers/migrations.js'

const fx = migrationFixture('mig_lock')
const tenants: string[] = []
after(async () => {
  const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  for (const user of tenants) await admin.query(`DROP USER IF EXISTS '${user}'@'127.0.0.1'`).catch(() => {})
  await admin.end()
  await fx.cleanup()
})

/** Fails after `ms`: an upper bound on a hang, not a speed check. */
async function within<T> (ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const bound = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => { reject(new Error(`${what}: still waiting after ${ms} ms`)) }, ms) })
  try { return await Promise.race([p, bound]) } finally { clearTimeout(timer) }
}

/** A tenant as a data source would connect: its own user, with rights on its own database only. */
async function tenantConnection (): Promise<mysql.Connection> {
  const { name } = await fx.database()
  const user = `tenant_${randomBytes(4).toString('hex')}`
  const password = randomBytes(12).toString('hex')
  const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  try {
    await admin.query(`CREATE USER '${user}'@'127.0.0.1' IDENTIFIED BY '${password}'`)
    tenants.push(user)
    await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON \`${name}\`.* TO '${user}'@'127.0.0.1'`)
  } finally { await admin.end() }
  const { host, port } = parseMysqlUrl(`${serverUrl()}/x`)
  return await mysql.createConnection({ host, port, user, password, database: name })
}

test("a tenant holding GET_LOCK('svc_migrate:<service database>') does not stop migrate, and cannot reach the lock that replaced it", async () => {
  const { name, url } = await fx.database()
  const tenant = await tenantConnection()
  try {
    const [got] = await tenant.query<RowDataPacket[]>("SELECT GET_LOCK(CONCAT('svc_migrate:', ?), 0) AS got", [name])
    assert.equal(got[0]?.got, 1, 'the tenant holds the old lock name')
    const db = fx.pool(url)
    // Before the fix this waited 60 s for the tenant and failed.
    const result = await within(30_000, 'migrate', migrate(db))
    assert.deepEqual(result.applied, await migrationFiles())
    const [held] = await tenant.query<RowDataPacket[]>("SELECT IS_USED_LOCK(CONCAT('svc_migrate:', ?)) = CONNECTION_ID() AS mine", [name])
    assert.equal(held[0]?.mine, 1, 'the tenant held it throughout')
    await assert.rejects(tenant.query(`SELECT id FROM \`${name}\`.schema_migration_lock FOR UPDATE`), { errno: 1142 })
  } finally {
    await tenant.end()
  }
})

/** How many connections of `database` wait for a row lock on the migration lock's table. */
async function waitingForMigrationLock (database: string): Promise<number> {
  const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  try {
    // The statement that takes the row, still running: it can only be waiting for the holder.
    // (Read from PROCESSLIST, not INNODB_TRX: a const-key FOR UPDATE waits in the optimizer's
    // "Statistics" step, and INNODB_TRX did not always list that transaction.)
    const [rows] = await admin.query<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST
      WHERE DB = ? AND COMMAND = 'Query' AND INFO LIKE '%FROM schema_migration_lock%FOR UPDATE%'`, [database])
    return Number(rows[0]?.n)
  } finally { await admin.end() }
}

/** Polls until `n` connections of `database` wait for the migration lock (bounded against a hang). */
async function untilWaiting (database: string, n: number): Promise<void> {
  const deadline = Date.now() + 30_000
  while ((await waitingForMigrationLock(database)) < n) {
    assert.ok(Date.now() < deadline, `fewer than ${n} migrators ever waited on the migration lock`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

test('a migrator waits while another holds the migration lock, then applies everything', async () => {
  const { name, url } = await fx.database()
  const holder = fx.pool(url)
  const lock = await takeMigrationLock(holder)
  let released = false
  const pending = migrate(fx.pool(url)).then((r) => { assert.ok(released, 'migrated while the lock was held'); return r })
  try {
    await untilWaiting(name, 1)
    const [tables] = await holder.query<RowDataPacket[]>("SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME <> 'schema_migration_lock'", [name])
    assert.equal(Number(tables[0]?.n), 0, 'nothing migrated while waiting')
  } finally {
    released = true
    await lock.release()
  }
  assert.deepEqual((await within(60_000, 'migrate', pending)).applied, await migrationFiles())
})

test('three migrators starting at once on a latin1 database apply each migration exactly once', async () => {
  const { url } = await fx.database('CHARACTER SET latin1')
  const results = await within(120_000, 'migrate', Promise.all([0, 1, 2].map(async () => await migrate(fx.pool(url)))))
  const all = await migrationFiles()
  assert.deepEqual(results.flatMap((r) => r.applied).sort(), all)
  for (const r of results) assert.deepEqual(r.current, all)
  const [rows] = await fx.pool(url).query<RowDataPacket[]>('SELECT version, statements_applied AS n FROM schema_migrations ORDER BY version')
  assert.deepEqual(rows.map((r) => [r.version, r.n]), all.map((f) => [f, null]))
})

test('two `svc db migrate` processes started at once wait for the lock, then apply each migration exactly once', async () => {
  const { name, url } = await fx.database('CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci')
  const home = await mkdtemp(join(tmpdir(), 'svc-mig-home-'))
  const lock = await takeMigrationLock(fx.pool(url))
  let released = false
  try {
    const env = { SVC_HOME: home, SVC_DATABASE_URL: url, SVC_MASTER_KEY: 'ab'.repeat(32) }
    const runs = [0, 1].map(async () => {
      const r = await svc(['--json', 'db', 'migrate'], env, 120_000)
      return { ...r, early: !released }
    })
    try {
      await untilWaiting(name, 2)
    } finally {
      released = true
      await lock.release()
    }
    const results = await Promise.all(runs)
    for (const r of results) {
      assert.equal(r.code, 0, r.stderr)
      assert.equal(r.early, false, 'a process finished while the lock was held')
    }
    const applied = results.flatMap((r) => (r.json() as { applied: string[] }).applied).sort()
    assert.deepEqual(applied, await migrationFiles(), 'each file applied by exactly one process')
  } finally {
    if (!released) await lock.release()
    await rm(home, { recursive: true, force: true })
  }
})
