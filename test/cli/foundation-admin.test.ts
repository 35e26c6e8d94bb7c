// `svc db migrate|status`, `workspaces`, `envs` and `keys` end to end: the real bin/svc in a child
// process, --json parsed, on a fresh database; usage errors exit 2 with one line, failures 1.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes, randomUUID } from 'node:crypto'
import type { RowDataPacket } from 'mysql2/promise'
import { createDb } from '../../server/store/db.js'
import type { Db } from '../../server/store/db.js'
import { createApiKeysRepo } from '../../server/store/repos/api-keys.js'
import { migrationsDir } from '../../server/util/paths.js'
import { serverUrl } from '../helpers/db.js'
import { svc } from './foundation-helpers.js'
import type { CliResult } from './foundation-helpers.js'

let home: string
let dbName: string
let db: Db
let env: Record<string, string>

before(async () => {
  // An empty database, so `db migrate` has real work to do.
  dbName = `cli_${randomBytes(5).toString('hex')}`
  const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  await admin.query(`CREATE DATABASE \`${dbName}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`)
  await admin.end()
  db = createDb(`${serverUrl()}/${dbName}`, { connectionLimit: 2 })
  home = await mkdtemp(join(tmpdir(), 'svc-cli-found-'))
  env = { SVC_HOME: home, SVC_DATABASE_URL: `${serverUrl()}/${dbName}`, SVC_MASTER_KEY: randomBytes(32).toString('hex'), SVC_LOG_LEVEL: 'silent' }
})
after(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await db?.end()
  const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  await admin.query(`DROP DATABASE IF EXISTS \`${dbName}\``)
  await admin.end()
  await rm(home, { recursive: true, force: true })
})

const json = (...args: string[]): Promise<CliResult> => svc(['--json', ...args], env)

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON under test: the assertions check its shape
function ok (r: CliResult): any {
  assert.equal(r.code, 0, `exit ${r.code}: ${r.stderr}${r.stdout}`)
  return r.json()
}

/** A usage error: exit 2, one line on stderr naming the argument, no stack trace. */
function usage (r: CliResult, names: RegExp): void {
  assert.equal(r.code, 2, `exit ${r.code}: ${r.stderr}${r.stdout}`)
  const message = r.stderr.trim()
  assert.equal(message.split('\n').length, 1, `one line: ${JSON.stringify(r.stderr)}`)
  assert.match(message, /^error: /)
  assert.match(message, names)
  assert.ok(!/\n\s+at /.test(r.stderr + r.stdout), 'no stack trace')
}

let workspaceId: string

test('db migrate applies every migration, then is up to date; db status says the database is external and answers', async () => {
  const files = (await readdir(migrationsDir)).filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f)).sort()
  const first = ok(await json('db', 'migrate'))
  assert.deepEqual(first.applied, files)
  assert.deepEqual(first.current, files)
  const second = ok(await json('db', 'migrate'))
  assert.deepEqual(second, { applied: [], current: files })
  const text = await svc(['db', 'migrate'], env)
  assert.equal(text.code, 0)
  assert.match(text.stdout, /up to date/)
  const status = ok(await json('db', 'status'))
  assert.equal(status.external, true)
  assert.equal(status.running, true)
  assert.equal(status.error, null)
  assert.equal(status.dir, join(home, 'db'))
})

test('workspaces create and list', async () => {
  const created = ok(await json('workspaces', 'create', '--name', 'Acme Logistics'))
  assert.match(created.id, /^[0-9a-f-]{36}$/)
  assert.equal(created.name, 'Acme Logistics')
  assert.ok(!Number.isNaN(Date.parse(created.createdAt)))
  workspaceId = created.id
  ok(await json('workspaces', 'create', '--name', 'Second'))
  const list = ok(await json('workspaces', 'list'))
  assert.deepEqual(list.map((w: { name: string }) => w.name), ['Acme Logistics', 'Second'])
  assert.equal(list[0].id, workspaceId)
  // text output: the id alone, for scripts
  const text = await svc(['workspaces', 'create', '--name', 'Third'], env)
  assert.equal(text.code, 0)
  assert.match(text.stdout.trim(), /^[0-9a-f-]{36}$/)
})

test('envs create and list never print the data-source password', async () => {
  const password = 'Pw-' + randomBytes(8).toString('hex')
  const url = `mysql://reader:${password}@db.internal:3306/shop`
  const created = await json('envs', 'create', '--workspace', workspaceId, '--key', 'production', '--datasource', url)
  const body = ok(created)
  assert.equal(body.key, 'production')
  assert.equal(body.production, true)
  assert.deepEqual(body.dataSource, { host: 'db.internal', port: 3306, user: 'reader', database: 'shop' })
  ok(await json('envs', 'create', '--workspace', workspaceId, '--key', 'development'))
  const list = await json('envs', 'list', '--workspace', workspaceId)
  assert.deepEqual(ok(list).map((e: { key: string, production: boolean }) => [e.key, e.production]), [['development', false], ['production', true]])
  const text = await svc(['envs', 'list', '--workspace', workspaceId], env)
  assert.equal(text.code, 0)
  assert.match(text.stdout, /reader@db\.internal:3306\/shop/)
  for (const r of [created, list, text]) assert.ok(!(r.stdout + r.stderr).includes(password), 'password printed')
  const dup = await json('envs', 'create', '--workspace', workspaceId, '--key', 'production')
  assert.equal(dup.code, 1)
  assert.equal(dup.json().errorCode, 'CONFLICT')
})

test('keys create prints the key once with its id, prefix, name, mode, scopes, expiry and workspace', async () => {
  const r = await json('keys', 'create', '--workspace', workspaceId, '--name', 'ci', '--mode', 'live', '--scopes', 'render,templates.read')
  const key = ok(r)
  assert.deepEqual(Object.keys(key).sort(), ['expiresAt', 'id', 'key', 'mode', 'name', 'prefix', 'rateLimit', 'scopes', 'workspaceId'])
  assert.match(key.key, /^svc_live_[a-z0-9]{12}_[A-Za-z0-9]{40}$/)
  assert.equal(key.prefix, `svc_live_${key.id}`)
  assert.ok(key.key.startsWith(key.prefix + '_'))
  assert.equal(key.name, 'ci')
  assert.equal(key.mode, 'live')
  assert.deepEqual(key.scopes, ['render', 'templates.read'])
  assert.equal(key.expiresAt, null)
  assert.equal(key.workspaceId, workspaceId)
  assert.equal(key.rateLimit, null, 'SVC_RATE_LIMIT unless --rate-limit')
  const [rows] = await db.query<RowDataPacket[]>('SELECT secret_hash FROM api_keys WHERE id = ?', [key.id])
  assert.equal(rows.length, 1)
})

test('keys create --expires 30d and a date; keys list shows state and last use; revoke by id and by prefix', async () => {
  const before = Date.now()
  const thirty = ok(await json('keys', 'create', '--workspace', workspaceId, '--name', 'month', '--mode', 'test', '--scopes', 'render', '--expires', '30d'))
  const expires = Date.parse(thirty.expiresAt)
  assert.ok(expires >= before + 30 * 86_400_000 && expires <= Date.now() + 30 * 86_400_000, thirty.expiresAt)
  assert.match(thirty.key, /^svc_test_[a-z0-9]{12}_[A-Za-z0-9]{40}$/)
  const dated = ok(await json('keys', 'create', '--workspace', workspaceId, '--name', 'dated', '--mode', 'live', '--scopes', 'datasets.execute', '--expires', '2099-06-30'))
  assert.equal(dated.expiresAt, '2099-06-30T00:00:00.000Z')
  const toExpire = ok(await json('keys', 'create', '--workspace', workspaceId, '--name', 'old', '--mode', 'live', '--scopes', 'render', '--expires', '90d'))
  await db.execute('UPDATE api_keys SET expires_at = ? WHERE id = ?', [new Date(Date.now() - 60_000), toExpire.id])
  const usedAt = new Date(Date.now() - 5000)
  await createApiKeysRepo(db).touch([dated.id], usedAt)

  const byId = ok(await json('keys', 'revoke', thirty.id, '--workspace', workspaceId))
  assert.equal(byId.state, 'revoked')
  assert.equal(byId.prefix, thirty.prefix)
  const byPrefix = ok(await json('keys', 'revoke', dated.prefix, '--workspace', workspaceId))
  assert.equal(byPrefix.id, dated.id)
  assert.equal(byPrefix.state, 'revoked')

  const list = ok(await json('keys', 'list', '--workspace', workspaceId))
  const byName = Object.fromEntries(list.map((k: { name: string }) => [k.name, k]))
  assert.equal(byName.ci.state, 'active')
  assert.equal(byName.month.state, 'revoked')
  assert.equal(byName.dated.state, 'revoked')
  assert.equal(byName.old.state, 'expired')
  assert.equal(byName.dated.lastUsedAt, usedAt.toISOString())
  assert.equal(byName.ci.lastUsedAt, null)
  for (const k of list) {
    assert.equal(k.key, undefined, 'the full key is never listed')
    assert.equal(k.workspaceId, workspaceId)
  }
  const text = await svc(['keys', 'list', '--workspace', workspaceId], env)
  assert.equal(text.code, 0)
  assert.match(text.stdout, /^PREFIX\s+NAME\s+MODE\s+SCOPES\s+STATE/m)
  assert.match(text.stdout, new RegExp(`${toExpire.prefix}\\s+old\\s+live\\s+render\\s+expired`))
  for (const k of [thirty, dated, toExpire]) assert.ok(!text.stdout.includes(k.key), 'secret printed by list')

  const limited = ok(await json('keys', 'create', '--workspace', workspaceId, '--name', 'bench', '--mode', 'live', '--scopes', 'render', '--rate-limit', '100000'))
  assert.equal(limited.rateLimit, 100000)
  assert.equal(ok(await json('keys', 'set-rate-limit', limited.prefix, '50')).rateLimit, 50)
  const [limitRows] = await db.query<RowDataPacket[]>('SELECT rate_limit FROM api_keys WHERE id = ?', [limited.id])
  assert.equal(limitRows[0]?.rate_limit, 50)
  const listed = (await svc(['keys', 'list', '--workspace', workspaceId], env)).stdout
  assert.match(listed, new RegExp(`${limited.prefix}\\s+bench\\s+live\\s+render\\s+active\\s+50\\s`))
  assert.match(listed, new RegExp(`${toExpire.prefix}\\s+old\\s+live\\s+render\\s+expired\\s+default\\s`))
  assert.equal(ok(await json('keys', 'set-rate-limit', limited.id, 'default')).rateLimit, null)
  usage(await svc(['keys', 'set-rate-limit', limited.id, '0'], env), /rateLimit/)

  const unknown = await json('keys', 'revoke', 'svc_live_zzzzzzzzzzzz', '--workspace', workspaceId)
  assert.equal(unknown.code, 1)
  assert.equal(unknown.json().errorCode, 'API_KEY_NOT_FOUND')
})

test('bad arguments exit 2 with a one-line error naming the argument', async () => {
  const base = ['keys', 'create', '--workspace', workspaceId, '--name', 'x', '--mode', 'live', '--scopes', 'render']
  const withOption = (name: string, value: string): string[] => {
    const args = [...base]
    args[args.indexOf(name) + 1] = value
    return args
  }
  usage(await svc(withOption('--mode', 'prod'), env), /--mode/)
  usage(await svc(['keys', 'create', '--name', 'x', '--mode', 'live', '--scopes', 'render'], env), /--workspace/)
  usage(await svc(withOption('--scopes', 'nope'), env), /scopes.*nope/)
  usage(await svc([...base, '--expires', '2020-01-01'], env), /expires/)
  usage(await svc([...base, '--expires', '45d'], env), /expires/)
  usage(await svc(['envs', 'create', '--workspace', workspaceId, '--key', 'Bad Key'], env), /key/)
  usage(await svc(['--json', 'keys', 'list'], env), /--workspace/)
  // The same usage errors with --json still exit 2; validation problems come as a document.
  const scopes = await svc(['--json', ...withOption('--scopes', 'nope')], env)
  assert.equal(scopes.code, 2)
  assert.equal(scopes.json().errorCode, 'VALIDATION_FAILED')
  assert.deepEqual(Object.keys(scopes.json().errors), ['scopes'])
  // A bad configuration variable is a usage error naming the variable.
  usage(await svc(['workspaces', 'list'], { ...env, SVC_RATE_LIMIT: 'lots' }), /SVC_RATE_LIMIT/)
  const none = await db.query<RowDataPacket[]>("SELECT COUNT(*) AS n FROM api_keys WHERE name = 'x'")
  assert.equal(Number(none[0][0]?.n), 0, 'nothing was created')
})

test('an unknown workspace exits 1 with a WORKSPACE_NOT_FOUND problem (--json) or one line', async () => {
  const missing = randomUUID()
  for (const args of [
    ['keys', 'create', '--workspace', missing, '--name', 'x', '--mode', 'live', '--scopes', 'render'],
    ['keys', 'list', '--workspace', missing],
    ['envs', 'list', '--workspace', missing],
    ['envs', 'create', '--workspace', missing, '--key', 'staging']
  ]) {
    const r = await json(...args)
    assert.equal(r.code, 1, args.join(' '))
    const body = r.json()
    assert.equal(body.errorCode, 'WORKSPACE_NOT_FOUND')
    assert.equal(body.status, 404)
    assert.equal(typeof body.detail, 'string')
  }
  const text = await svc(['keys', 'list', '--workspace', missing], env)
  assert.equal(text.code, 1)
  assert.equal(text.stderr.trim().split('\n').length, 1)
  assert.match(text.stderr, /WORKSPACE_NOT_FOUND/)
  assert.ok(!/\n\s+at /.test(text.stderr))
})
