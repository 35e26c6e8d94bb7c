// The failed-authentication throttle on a controlled clock: an address is blocked when its
// failures use up the minute's allowance, free again when a token is back, and others are
// unaffected; a key that authenticated passes a blocked address for VOUCH_MS, with its own
// secret only; both tables stay bounded.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { failureThrottle, VOUCH_MS } from '../../../server/auth/failure-throttle.js'

const key = (keyId: string, secret: string) => ({ keyId, secretHash: createHash('sha256').update(secret).digest() })

test('blocked after the allowance, free again once a token refills; other addresses unaffected', () => {
  let t = 1_000_000
  const throttle = failureThrottle(6, () => t) // one token per 10 s
  for (let i = 0; i < 5; i++) {
    throttle.fail('10.0.0.1')
    assert.equal(throttle.retryAfter('10.0.0.1'), 0, `failure ${i + 1} of 6 leaves the address free`)
  }
  throttle.fail('10.0.0.1')
  assert.equal(throttle.retryAfter('10.0.0.1'), 10)
  assert.equal(throttle.retryAfter('10.0.0.2'), 0)
  t += 9_500
  assert.equal(throttle.retryAfter('10.0.0.1'), 1, 'rounded up, never 0 while blocked')
  t += 600
  assert.equal(throttle.retryAfter('10.0.0.1'), 0)
  throttle.fail('10.0.0.1')
  assert.ok(throttle.retryAfter('10.0.0.1') >= 1, 'one token back, spent again: blocked again')
})

test('the table of blocked addresses is bounded', () => {
  const t = 0
  const throttle = failureThrottle(1, () => t, 3)
  for (const a of ['a', 'b', 'c', 'd']) throttle.fail(a)
  assert.equal(throttle.retryAfter('a'), 0, 'the oldest block was dropped for the newest')
  for (const a of ['b', 'c', 'd']) assert.ok(throttle.retryAfter(a) > 0, a)
})

test('a key that authenticated passes a blocked address; a wrong secret, another key or a stale pass does not', () => {
  let t = 1_000_000
  const throttle = failureThrottle(1, () => t)
  throttle.vouch(key('k1', 'right'))
  throttle.fail('10.0.0.9')
  assert.ok(throttle.retryAfter('10.0.0.9') > 0, 'no key: blocked')
  assert.equal(throttle.retryAfter('10.0.0.9', key('k1', 'right')), 0)
  assert.ok(throttle.retryAfter('10.0.0.9', key('k1', 'wrong')) > 0, 'the same key id with another secret')
  assert.ok(throttle.retryAfter('10.0.0.9', key('k2', 'right')) > 0, 'a key never vouched for')
  t += VOUCH_MS - 1
  throttle.fail('10.0.0.9')
  assert.equal(throttle.retryAfter('10.0.0.9', key('k1', 'right')), 0, 'still within the pass')
  t += 1
  assert.ok(throttle.retryAfter('10.0.0.9', key('k1', 'right')) > 0, 'the pass ran out')
  throttle.vouch(key('k1', 'right'))
  assert.equal(throttle.retryAfter('10.0.0.9', key('k1', 'right')), 0, 'renewed by the next success')
})

test('the table of vouched keys is bounded', () => {
  const t = 0
  const throttle = failureThrottle(1, () => t, 100, 2)
  for (const id of ['a', 'b', 'c']) throttle.vouch(key(id, 's'))
  throttle.fail('x')
  assert.ok(throttle.retryAfter('x', key('a', 's')) > 0, 'the oldest pass was dropped for the newest')
  for (const id of ['b', 'c']) assert.equal(throttle.retryAfter('x', key(id, 's')), 0, id)
})
