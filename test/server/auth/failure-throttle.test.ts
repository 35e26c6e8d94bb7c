// The failed-authentication throttle on a controlled clock: failures of an address or of an
// existing key id are answered 429 past the minute's allowance and 401 again once a token is
// back; others are unaffected; refusals are remembered (unknown id, wrong secret, revoked,
// expired) but a matching secret of a usable key is always read again; every table is bounded.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createFailureThrottle } from '../../../server/auth/failure-throttle.js'
import { generateApiKey } from '../../../server/util/api-key-format.js'
import { parseToken } from '../../../server/auth/keys.js'
import type { PresentedKey } from '../../../server/auth/keys.js'
import type { ApiKeyRow } from '../../../server/store/repos/api-keys.js'
import { Problem } from '../../../server/errors.js'

function made (): { key: PresentedKey, row: ApiKeyRow, wrong: PresentedKey } {
  const k = generateApiKey('live')
  const row: ApiKeyRow = {
    id: k.keyId,
    workspaceId: '0b6c1f3e-8f1d-4c1e-9a51-5d7f3c2a9e10',
    name: 'k',
    mode: 'live',
    scopes: ['render'],
    secretHash: k.secretHash,
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
    createdAt: new Date(),
    rateLimit: null
  }
  return { key: parseToken(k.key), row, wrong: parseToken(`${k.prefix}_${'w'.repeat(40)}`) }
}

const refusedWith = (code: string) => (err: unknown): boolean => err instanceof Problem && err.code === code

test('an address: 429 after the allowance of failures, 401 again once a token refills; other addresses unaffected', () => {
  let t = 1_000_000
  const throttle = createFailureThrottle(6, () => t) // one token per 10 s
  for (let i = 0; i < 6; i++) assert.equal(throttle.fail('10.0.0.1', undefined), 0, `failure ${i + 1} of 6 is a 401`)
  assert.equal(throttle.fail('10.0.0.1', undefined), 10)
  assert.equal(throttle.fail('10.0.0.2', undefined), 0)
  t += 9_500
  assert.equal(throttle.fail('10.0.0.1', undefined), 1, 'rounded up, never 0 while spent')
  t += 600
  assert.equal(throttle.fail('10.0.0.1', undefined), 0)
  assert.ok(throttle.fail('10.0.0.1', undefined) >= 1, 'one token back, spent again')
  assert.equal(throttle.fail(undefined, undefined), 0, 'no address, no key id: nothing to count')
})

test('a key id has its own budget (no address needed), the same whether the id exists or not', () => {
  const t = 0
  const throttle = createFailureThrottle(2, () => t)
  const { row, wrong } = made()
  throttle.remember(wrong, row)
  const unknown = made()
  throttle.remember(unknown.key, undefined)
  for (const id of [row.id, unknown.row.id]) {
    for (let i = 0; i < 2; i++) assert.equal(throttle.fail(undefined, id), 0)
    assert.ok(throttle.fail(undefined, id) > 0, 'the key id is spent, whatever the address')
  }
  assert.equal(throttle.fail(undefined, made().row.id), 0, 'another id is not')
})

test('remembered refusals: unknown id, wrong secret, revoked and expired are answered from memory; a matching usable key is not', () => {
  let t = Date.now()
  const throttle = createFailureThrottle(30, () => t)
  const unknown = made()
  assert.doesNotThrow(() => { throttle.refuseKnown(unknown.key) }, 'never seen: read it')
  throttle.remember(unknown.key, undefined)
  assert.throws(() => { throttle.refuseKnown(unknown.key) }, refusedWith('API_KEY_INVALID'))

  const live = made()
  throttle.remember(live.wrong, live.row)
  assert.throws(() => { throttle.refuseKnown(live.wrong) }, refusedWith('API_KEY_INVALID'))
  assert.doesNotThrow(() => { throttle.refuseKnown(live.key) }, 'the right secret of a usable key is read again')

  const revoked = made()
  revoked.row.revokedAt = new Date(t - 1000)
  throttle.remember(revoked.key, revoked.row)
  assert.throws(() => { throttle.refuseKnown(revoked.key) }, refusedWith('API_KEY_REVOKED'))
  assert.throws(() => { throttle.refuseKnown(revoked.wrong) }, refusedWith('API_KEY_INVALID'))

  const expiring = made()
  expiring.row.expiresAt = new Date(t + 5000)
  throttle.remember(expiring.wrong, expiring.row)
  assert.doesNotThrow(() => { throttle.refuseKnown(expiring.key) })
  t += 5000
  assert.throws(() => { throttle.refuseKnown(expiring.key) }, refusedWith('API_KEY_EXPIRED'))
})

test('both tables are bounded: the oldest refusal and the oldest budget go first', () => {
  const t = 0
  const throttle = createFailureThrottle(1, () => t, 2, 3)
  const keys = [made(), made(), made()]
  for (const k of keys) throttle.remember(k.key, undefined)
  assert.doesNotThrow(() => { throttle.refuseKnown(keys[0]!.key) }, 'forgotten for the newest')
  for (const k of keys.slice(1)) assert.throws(() => { throttle.refuseKnown(k.key) })
  for (const a of ['a', 'b', 'c', 'd']) throttle.fail(a, undefined)
  assert.equal(throttle.fail('a', undefined), 0, 'the oldest budget was dropped for the newest')
  assert.ok(throttle.fail('d', undefined) > 0)
})

test('fresh key ids from a spent address do not push its budget out of the bounded table', () => {
  const t = 1_000_000
  const throttle = createFailureThrottle(6, () => t, 10, 4) // at most 4 budgets per table
  for (let i = 0; i < 6; i++) throttle.fail('10.0.0.1', generateApiKey('live').keyId)
  // Each failure above and below brings a new key id: the key-id table turns over many times.
  for (let i = 0; i < 20; i++) assert.ok(throttle.fail('10.0.0.1', generateApiKey('live').keyId) > 0, `failure ${i + 7} is still throttled`)
})
