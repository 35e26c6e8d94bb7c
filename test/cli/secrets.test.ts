// `svc secrets` with the keyring file (no key in the environment): add-key makes a new sealing
// key and keeps the old one for opening, remove-key is refused while values still need the old
// key, rotate re-seals, and afterwards the old key can go.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadConfig } from '../../server/config.js'
import { createContext } from '../../server/context.js'
import { createTestDatabase } from '../helpers/db.js'
import type { TestDatabase } from '../helpers/db.js'
import { makeHome } from '../helpers/server.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
let database: TestDatabase
let home: string
let workspaceId: string

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON under test: the assertions check its shape
function svc (...args: string[]): Promise<{ code: number, json: any, stderr: string }> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    SVC_HOME: home,
    SVC_DATABASE_URL: database.url,
    SVC_LOG_LEVEL: 'silent'
  }
  delete env.SVC_MASTER_KEY
  delete env.SVC_MASTER_KEYS
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(root, 'bin', 'svc'), '--json', ...args],
      { cwd: root, env },
      (err, stdout, stderr) => {
        resolve({
          code: err === null ? 0 : ((err as { code?: number }).code ?? 1),
          json: stdout.trim() === '' ? undefined : JSON.parse(stdout),
          stderr
        })
      }
    )
  })
}

before(async () => {
  database = await createTestDatabase('clisecrets')
  home = await makeHome()
  // Sealed under SVC_HOME/master.key, created on first use.
  const ctx = await createContext(loadConfig({}, { SVC_HOME: home, SVC_DATABASE_URL: database.url }, 2), {
    poolSize: 1
  })
  workspaceId = (await ctx.services.workspaces.create('secrets')).id
  await ctx.services.environments.create({ workspaceId, key: 'production', dataSourceUrl: 'mysql://reader:pw-123@db.example:3306/erp' })
  await ctx.close()
})
after(async () => {
  await database.drop()
  await rm(home, { recursive: true, force: true })
})

test('add-key, rotate, remove-key through the keyring file', async () => {
  const first = await svc('secrets', 'status')
  assert.equal(first.code, 0, first.stderr)
  const oldId = first.json.activeKeyId as string
  assert.deepEqual(first.json.counts.map((c: { keyId: string, values: number }) => [c.keyId, c.values]), [[oldId, 1]])

  const added = await svc('secrets', 'add-key')
  assert.equal(added.code, 0, added.stderr)
  assert.equal((await stat(join(home, 'master-keys'))).mode & 0o777, 0o600)
  assert.equal((await readFile(join(home, 'master-keys'), 'utf8')).match(/^[0-9a-f]{64}/gm)?.length, 2)
  const newId = added.json.keyId as string

  const early = await svc('secrets', 'remove-key', oldId)
  assert.equal(early.code, 2)
  assert.match(early.stderr, /still be sealed under/)

  const rotated = await svc('secrets', 'rotate')
  assert.equal(rotated.json.resealed, 1)
  const status = await svc('secrets', 'status')
  assert.equal(status.json.activeKeyId, newId)
  assert.deepEqual(status.json.counts.map((c: { keyId: string, values: number }) => [c.keyId, c.values]), [[newId, 1]])

  assert.equal((await svc('secrets', 'remove-key', newId)).code, 2, 'the sealing key stays')
  const removed = await svc('secrets', 'remove-key', oldId)
  assert.equal(removed.code, 0, removed.stderr)
  assert.equal((await readFile(join(home, 'master-keys'), 'utf8')).match(/^[0-9a-f]{64}/gm)?.length, 1)
  const after = await svc('secrets', 'status')
  assert.deepEqual(after.json.configuredKeyIds, [newId])
  assert.equal(after.json.counts[0].configured, true)
  const ctx = await createContext(loadConfig({}, { SVC_HOME: home, SVC_DATABASE_URL: database.url }, 2), {
    poolSize: 1
  })
  try {
    const env = await ctx.repos.environments.get(workspaceId, 'production')
    assert.equal(ctx.services.environments.openDataSource(env as NonNullable<typeof env>)?.password, 'pw-123', 'opens with the key left')
  } finally { await ctx.close() }
})
