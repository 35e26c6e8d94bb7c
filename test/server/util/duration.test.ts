import { test } from 'node:test'
import assert from 'node:assert/strict'
import { parseDuration, formatDuration } from '../../../server/util/duration.js'

test('parseDuration: units, bare milliseconds, fractions and spaces', () => {
  assert.equal(parseDuration('500ms'), 500)
  assert.equal(parseDuration('30s'), 30_000)
  assert.equal(parseDuration('5m'), 300_000)
  assert.equal(parseDuration('2h'), 7_200_000)
  assert.equal(parseDuration('1d'), 86_400_000)
  assert.equal(parseDuration('250'), 250)
  assert.equal(parseDuration('0.5s'), 500)
  assert.equal(parseDuration(' 10 s '), 10_000)
})

test('parseDuration: anything else is undefined', () => {
  for (const text of ['', 's', '5w', '-1s', '1e3', '1h30m', 'five', '5 minutes', '.5s']) {
    assert.equal(parseDuration(text), undefined, JSON.stringify(text))
  }
})

test('formatDuration picks the largest whole unit and round-trips', () => {
  assert.equal(formatDuration(500), '500ms')
  assert.equal(formatDuration(30_000), '30s')
  assert.equal(formatDuration(90_000), '90s')
  assert.equal(formatDuration(300_000), '5m')
  assert.equal(formatDuration(7_200_000), '2h')
  assert.equal(formatDuration(86_400_000), '1d')
  for (const ms of [1, 999, 1000, 61_000, 3_600_000, 172_800_000]) assert.equal(parseDuration(formatDuration(ms)), ms)
})
