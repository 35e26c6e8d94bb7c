// The database-shared limiter: several limiter instances stand for several nodes on one real
// MariaDB. Exact count across nodes, give-back, statements per request, Retry-After, fail closed.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createRateLimiter, waitMs } from '../../../server/auth/rate-limiter.js'
import { createRateLimitsRepo, SLOT_MS } from '../../../server/store/repos/rate-limits.js'
import { createDb } from '../../../server/store/db.js'
import type { Db } from '../../../server/store/db.js'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'

let database: TestDatabase
before(async () => { database = await createTestDatabase('limiter') })
// eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
after(async () => { await database?.drop() })

let seq = 0
/** A key row (the window's foreign key needs one) with its own limit. */
async function key (limit: number): Promise<{ keyId: string, rateLimit: number }> {
  const keyId = `k${String(++seq).padStart(11, '0')}${Math.random().toString(36).slice(2, 8)}`.slice(0, 12)
  const ws = `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`
  await database.db.query('INSERT IGNORE INTO workspaces (id, name) VALUES (?, ?)', [ws, 'w'])
  await database.db.query("INSERT INTO api_keys (id, workspace_id, name, mode, scopes, secret_hash, rate_limit) VALUES (?, ?, 'k', 'live', 'render', ?, ?)",
    [keyId, ws, Buffer.alloc(32), limit])
  return { keyId, rateLimit: limit }
}

/** The service pool with every statement counted. */
function counting (db: Db): { db: Db, count: () => number } {
  let n = 0
  const proxy = new Proxy(db, {
    get (target, prop, receiver) {
      if (prop === 'query' || prop === 'execute') {
        // Forwards whatever method of the wrapped object is called.
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        return (...args: unknown[]) => { n++; return (target as any)[prop](...args) }
      }
      return Reflect.get(target, prop, receiver)
    }
  })
  return { db: proxy, count: () => n }
}

test('three nodes sharing one key admit exactly its limit, then all refuse with the real wait', async () => {
  const k = await key(200)
  const nodes = [0, 1, 2].map(() => createRateLimiter(createRateLimitsRepo(database.db), { defaultPerMinute: 600 }))
  const results = []
  for (let i = 0; i < 300; i++) results.push(await nodes[i % 3]!.admit(k))
  assert.equal(results.filter((r) => r.allowed).length, 200)
  assert.ok(results.slice(0, 150).every((r) => r.allowed), 'no refusal while most of the window is free')
  for (const r of results.filter((r) => r.allowed !== true)) {
    assert.equal(r.allowed, false)
    assert.ok(r.retryAfterSeconds >= 1 && r.retryAfterSeconds <= 63, String(r.retryAfterSeconds))
  }
  await Promise.all(nodes.map(async (n) => { await n.close() }))
})

test('concurrent requests on three nodes never exceed the limit', async () => {
  const k = await key(150)
  const nodes = [0, 1, 2].map(() => createRateLimiter(createRateLimitsRepo(database.db), { defaultPerMinute: 600 }))
  const results = await Promise.all(Array.from({ length: 240 }, async (_, i) => await nodes[i % 3]!.admit(k)))
  assert.equal(results.filter((r) => r.allowed).length, 150)
  await Promise.all(nodes.map(async (n) => { await n.close() }))
})

test('a node that stops gives its unused tokens back to the window for the others', async () => {
  const k = await key(40) // blocks of 2
  const a = createRateLimiter(createRateLimitsRepo(database.db), { defaultPerMinute: 600 })
  const b = createRateLimiter(createRateLimitsRepo(database.db), { defaultPerMinute: 600 })
  assert.equal((await a.admit(k)).allowed, true) // leased 2, spent 1
  await a.close()
  let allowed = 0
  for (let i = 0; i < 60; i++) if ((await b.admit(k)).allowed) allowed++
  assert.equal(allowed, 39)
  await b.close()
})

test('at saturation a key costs at most 0.1 statements per request, refused requests included', async () => {
  const c = counting(database.db)
  const limiter = createRateLimiter(createRateLimitsRepo(c.db), { defaultPerMinute: 600 })
  const busy = await key(20_000)
  let allowed = 0
  for (let i = 0; i < 20_000; i++) if ((await limiter.admit(busy)).allowed) allowed++
  assert.equal(allowed, 20_000)
  const forBusy = c.count()
  assert.ok(forBusy / 20_000 <= 0.1, `${forBusy} statements for 20,000 requests`)
  const capped = await key(600)
  let ok = 0
  for (let i = 0; i < 3000; i++) if ((await limiter.admit(capped)).allowed) ok++
  assert.equal(ok, 600)
  const forCapped = c.count() - forBusy
  // Refusals are answered from the node's memory until the wait is over, not by a statement each.
  assert.ok(forCapped / 3000 <= 0.1, `${forCapped} statements for 3,000 requests`)
  await limiter.close()
})

test('SVC_RATE_LIMIT=0: a key without a limit of its own is never limited and costs no statement', async () => {
  const c = counting(database.db)
  const limiter = createRateLimiter(createRateLimitsRepo(c.db), { defaultPerMinute: 0 })
  const open = { keyId: 'k-no-limit', rateLimit: null }
  const answers = []
  for (let i = 0; i < 2000; i++) answers.push(await limiter.admit(open))
  assert.equal(answers.filter((r) => r.allowed && r.unlimited === true).length, 2000)
  assert.equal(c.count(), 0, 'no lease, no window read')
  // A key's own limit still applies with the default off.
  const own = await key(50)
  let ok = 0
  for (let i = 0; i < 200; i++) if ((await limiter.admit(own)).allowed) ok++
  assert.equal(ok, 50)
  assert.ok(c.count() > 0)
  await limiter.close()
})

test('the database unreachable: a key with a live lease is served from it, any other is refused (fail closed)', async () => {
  const db = createDb(database.url, { connectionLimit: 2 })
  const t = Date.now()
  // A frozen clock keeps the lease inside its slot for the whole test.
  const limiter = createRateLimiter(createRateLimitsRepo(db),
    { defaultPerMinute: 600, now: () => t, onError: () => {} })
  const known = await key(1000) // blocks of 50
  const unknown = await key(1000)
  assert.equal((await limiter.admit(known)).allowed, true)
  await db.end()
  const served = []
  for (let i = 0; i < 60; i++) served.push(await limiter.admit(known))
  assert.equal(served.filter((r) => r.allowed).length, 49, 'the rest of the lease')
  assert.equal(served[59]?.unavailable, true)
  const refused = await limiter.admit(unknown)
  assert.equal(refused.allowed, false)
  assert.equal(refused.unavailable, true)
  await limiter.close()
})

test('waitMs: the time until enough of the oldest slots leave the 63 s ring', () => {
  const nowMs = 1000 * SLOT_MS + 500 // slot 1000, 0.5 s in
  const slots = new Array(21).fill(0)
  // Slot 990 (column 990 % 21 = 3) holds 4, slot 1000 (column 13) holds 6: 10 of a limit of 10.
  slots[990 % 21] = 4
  slots[1000 % 21] = 6
  assert.equal(waitMs({ nowMs, epoch: 1000, slots }, 10), (990 + 21) * SLOT_MS - nowMs)
  assert.equal(waitMs({ nowMs, epoch: 1000, slots }, 11), 0, 'room left: no wait')
  assert.equal(waitMs({ nowMs, epoch: 1000, slots }, 6), (1000 + 21) * SLOT_MS - nowMs, 'both slots must go')
  assert.equal(waitMs({ nowMs: nowMs + 30 * SLOT_MS, epoch: 1000, slots }, 10), 0, 'slots that left the ring hold nothing')
})
