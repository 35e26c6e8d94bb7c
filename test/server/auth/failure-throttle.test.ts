// The failed-authentication throttle on a controlled clock: an address is blocked when its
// failures use up the minute's allowance, free again when a token is back, and others are
// unaffected; the table of blocked addresses stays bounded.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { failureThrottle } from '../../../server/auth/failure-throttle.js'

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
