// Issue 30, finding 3: the failed-authentication throttle never refuses a working key, and still
// bounds what bad keys cost. Real servers on a real MariaDB: one address sends bad keys past
// SVC_AUTH_FAILURE_LIMIT and keeps getting 429, while a valid key from the same address, never
// used on that process (and after a restart), keeps getting 200; a bad key costs at
// most one read of the key table per process, however often it is sent.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { createTestDatabase } from '../helpers/db.js'
import type { TestDatabase } from '../helpers/db.js'
import { startServer } from '../helpers/server.js'
import type { TestServer } from '../helpers/server.js'
import { bearer, workspaceWithKey } from '../helpers/fixtures.js'

let database: TestDatabase
let strict: TestServer
before(async () => {
  database = await createTestDatabase('auththrottle')
  strict = await startServer(database.url, { SVC_AUTH_FAILURE_LIMIT: '3' })
})
after(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await strict?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await database?.drop()
})

const alnum = (n: number): string => randomBytes(n).toString('hex').slice(0, n)
const unknownKey = (): string => `svc_live_${alnum(12)}_${'u'.repeat(40)}`

async function whoami (server: TestServer, key: string): Promise<number> {
  return (await server.fetch('GET', '/api/v1/whoami', { headers: bearer(key) })).status
}

test('one address sending bad keys past the limit gets 429; a valid key from the same address, never used here, gets 200 throughout', async () => {
  const fresh = (await workspaceWithKey(strict.context)).key
  const sameIdWrongSecret = `${fresh.prefix}_${'w'.repeat(40)}`
  const repeated = unknownKey()
  const first: number[] = []
  for (let i = 0; i < 3; i++) first.push(await whoami(strict, repeated))
  assert.deepEqual(first, [401, 401, 401], 'the first failures are 401s')
  for (let round = 0; round < 8; round++) {
    // Bad keys of every kind from the address past its budget: 429 with Retry-After.
    for (const bad of [repeated, unknownKey(), sameIdWrongSecret, 'not a key']) {
      const res = await strict.fetch('GET', '/api/v1/whoami', { headers: bearer(bad) })
      assert.equal(res.status, 429, `round ${round}: ${bad.slice(0, 22)}`)
      assert.equal(res.json().errorCode, 'RATE_LIMITED')
      assert.ok(Number(res.headers['retry-after']) >= 1)
    }
    // The valid key is served as ever, on any route.
    const ok = await strict.fetch('GET', '/api/v1/whoami', { headers: bearer(fresh.key) })
    assert.equal(ok.status, 200, `round ${round}: the valid key`)
    assert.equal(ok.json().keyId, fresh.id)
    const render = await strict.fetch('POST', '/api/v1/render', { headers: bearer(fresh.key), body: { template: 'none' } })
    assert.equal(render.status, 404, 'authenticated: its template is looked up')
  }
})

test('after a restart (a fresh process on the same database) a valid key from a blocked address is served at once', async () => {
  const before = await startServer(database.url, { SVC_AUTH_FAILURE_LIMIT: '3' })
  const known = (await workspaceWithKey(before.context)).key
  assert.equal(await whoami(before, known.key), 200, 'the key worked before the restart')
  await before.close()
  const restarted = await startServer(database.url, { SVC_AUTH_FAILURE_LIMIT: '3' })
  try {
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) statuses.push(await whoami(restarted, unknownKey()))
    assert.deepEqual(statuses, [401, 401, 401, 429, 429])
    // Neither the key used before the restart nor one never used anywhere is refused.
    const never = (await workspaceWithKey(restarted.context)).key
    for (let i = 0; i < 3; i++) {
      assert.equal(await whoami(restarted, known.key), 200)
      assert.equal(await whoami(restarted, never.key), 200)
      assert.equal(await whoami(restarted, unknownKey()), 429)
    }
  } finally {
    await restarted.close()
  }
})

test('a bad key costs at most one read of the key table per process, however often it is sent (the limit out of the way)', async () => {
  const lenient = await startServer(database.url, { SVC_AUTH_FAILURE_LIMIT: '100000' })
  try {
    // Every statement of the process's service pool that reads the key table.
    let reads = 0
    const db = lenient.context.db
    for (const method of ['query', 'execute'] as const) {
      const original = db[method].bind(db) as (...args: unknown[]) => unknown
      Object.defineProperty(db, method, {
        configurable: true,
        value: (...args: unknown[]) => {
          const sql = typeof args[0] === 'string' ? args[0] : (args[0] as { sql: string }).sql
          if (/FROM api_keys\b/.test(sql)) reads++
          return original(...args)
        }
      })
    }
    const valid = (await workspaceWithKey(lenient.context)).key
    assert.equal(await whoami(lenient, valid.key), 200)
    assert.equal(reads, 1, 'the counter sees the key read of a valid request')

    const unknown = unknownKey()
    const wrongSecret = `${valid.prefix}_${'w'.repeat(40)}`
    for (const [bad, label] of [[unknown, 'an unknown key id'], [wrongSecret, 'a wrong secret of an existing id']]) {
      const before = reads
      for (let i = 0; i < 20; i++) {
        assert.equal(await whoami(lenient, bad!), 401)
        const render = await lenient.fetch('POST', '/api/v1/render', { headers: bearer(bad!), body: { template: 'invoice' } })
        assert.equal(render.status, 401)
        assert.equal(render.json().errorCode, 'API_KEY_INVALID')
      }
      assert.ok(reads - before <= 1, `${label}: ${reads - before} reads for 40 requests`)
    }
    // The valid key is still read on every request (revocation stays immediate).
    const before = reads
    for (let i = 0; i < 3; i++) assert.equal(await whoami(lenient, valid.key), 200)
    assert.equal(reads - before, 3)
    await lenient.context.services.apiKeys.revoke(valid.workspaceId, valid.prefix)
    const revoked = await lenient.fetch('GET', '/api/v1/whoami', { headers: bearer(valid.key) })
    assert.equal(revoked.status, 401)
    assert.equal(revoked.json().errorCode, 'API_KEY_REVOKED')
  } finally {
    await lenient.close()
  }
})
