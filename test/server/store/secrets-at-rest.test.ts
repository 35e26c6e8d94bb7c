// Secrets at rest: data-source passwords are sealed with the master key, API keys are stored as a
// digest only, and a generated master key file is private to its owner.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, stat, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { RowDataPacket } from 'mysql2/promise'
import { loadConfig } from '../../../server/config.js'
import { createContext } from '../../../server/context.js'
import type { Context } from '../../../server/context.js'
import { sha256 } from '../../../server/util/crypto.js'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'

let database: TestDatabase
let ctx: Context
let home: string
const masterKey = randomBytes(32).toString('hex')

before(async () => {
  database = await createTestDatabase('secrets')
  home = await mkdtemp(join(tmpdir(), 'svc-secrets-'))
  ctx = await createContext(
    loadConfig({}, { SVC_HOME: home, SVC_DATABASE_URL: database.url, SVC_MASTER_KEY: masterKey }, 2),
    { poolSize: 2 }
  )
})
after(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await ctx?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await database?.drop()
  await rm(home, { recursive: true, force: true })
})

/** Every column of every row, as text and as raw bytes, so a secret hidden in a blob is found too. */
function contains (rows: RowDataPacket[], needle: string): string[] {
  const hits: string[] = []
  for (const row of rows) {
    for (const [column, value] of Object.entries(row)) {
      if (value === null || value === undefined) continue
      const bytes = Buffer.isBuffer(value)
        ? value
        : Buffer.from(value instanceof Date ? value.toISOString() : String(value))
      if (bytes.includes(Buffer.from(needle)) || bytes.toString('hex').includes(Buffer.from(needle).toString('hex'))) hits.push(column)
    }
  }
  return hits
}

test('an environment data-source password is stored encrypted and opened only by openDataSource', async () => {
  const ws = await ctx.services.workspaces.create('Secrets')
  const password = 'Very-S3cret-' + randomBytes(6).toString('hex')
  const created = await ctx.services.environments.create({ workspaceId: ws.id, key: 'production', dataSourceUrl: `mysql://reader:${encodeURIComponent(password)}@db.example.com:3306/shop` })
  assert.ok(!JSON.stringify(created).includes(password), 'the view has no password')
  assert.deepEqual(created.dataSource, { host: 'db.example.com', port: 3306, user: 'reader', database: 'shop' })
  const [rows] = await database.db.query<RowDataPacket[]>('SELECT * FROM environments WHERE workspace_id = ?', [ws.id])
  assert.equal(rows.length, 1)
  assert.deepEqual(contains(rows, password), [], 'no column holds the password')
  const sealed = rows[0]?.ds_password_enc as Buffer
  assert.ok(Buffer.isBuffer(sealed) && sealed.length >= 12 + 16 + password.length)
  const env = await ctx.repos.environments.get(ws.id, 'production')
  assert.ok(env !== undefined)
  assert.deepEqual(ctx.services.environments.openDataSource(env), { host: 'db.example.com', port: 3306, user: 'reader', database: 'shop', password })
  assert.ok(!JSON.stringify(await ctx.services.environments.list(ws.id)).includes(password), 'listing has no password')
  // The same row under another master key cannot be opened.
  const home2 = await mkdtemp(join(tmpdir(), 'svc-secrets-other-'))
  const other = await createContext(loadConfig({}, { SVC_HOME: home2, SVC_DATABASE_URL: database.url, SVC_MASTER_KEY: randomBytes(32).toString('hex') }, 2), { poolSize: 1 })
  try {
    assert.throws(() => other.services.environments.openDataSource(env))
  } finally {
    await other.close()
    await rm(home2, { recursive: true, force: true })
  }
})

test('an API key is stored only as a SHA-256 digest of its secret', async () => {
  const ws = await ctx.services.workspaces.create('Keys')
  const created = await ctx.services.apiKeys.create({ workspaceId: ws.id, name: 'ci', mode: 'live', scopes: ['render'], expiresAt: null })
  const secret = created.key.split('_').pop() as string
  assert.equal(secret.length, 40)
  const [rows] = await database.db.query<RowDataPacket[]>('SELECT * FROM api_keys WHERE id = ?', [created.id])
  assert.equal(rows.length, 1)
  assert.deepEqual(contains(rows, secret), [], 'no column holds the secret')
  assert.deepEqual(contains(rows, created.key), [], 'no column holds the full key')
  assert.deepEqual(rows[0]?.secret_hash, sha256(secret))
  assert.ok(!JSON.stringify(await ctx.services.apiKeys.list(ws.id)).includes(secret))
})

test('without SVC_MASTER_KEY a master key file is created in SVC_HOME with mode 0600 and used', async () => {
  const ownHome = await mkdtemp(join(tmpdir(), 'svc-secrets-home-'))
  const config = loadConfig({}, { SVC_HOME: join(ownHome, 'state'), SVC_DATABASE_URL: database.url }, 2)
  const first = await createContext(config, { poolSize: 1 })
  try {
    const file = join(ownHome, 'state', 'master.key')
    assert.equal((await stat(file)).mode & 0o777, 0o600)
    assert.match((await readFile(file, 'utf8')).trim(), /^[0-9a-f]{64}$/)
    const ws = await first.services.workspaces.create('File key')
    await first.services.environments.create({ workspaceId: ws.id, key: 'development', dataSourceUrl: 'mysql://u:pw-from-file@h:3306/d' })
    // A second process on the same home reads the same key and opens the secret.
    const second = await createContext(config, { poolSize: 1 })
    try {
      const env = await second.repos.environments.get(ws.id, 'development')
      assert.equal(second.services.environments.openDataSource(env as NonNullable<typeof env>)?.password, 'pw-from-file')
    } finally { await second.close() }
  } finally {
    await first.close()
    await rm(ownHome, { recursive: true, force: true })
  }
})
