// bench/stats.ts: the paired rounds the ratio rows of the engine benchmark are measured in.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { pairedCpu } from '../../bench/stats.js'

test('pairedCpu runs every variant beside the baseline each round, the order reversed every other round', () => {
  const calls: string[] = []
  const rec = (name: string) => (): void => { calls.push(name) }
  const r = pairedCpu(rec('base'), [rec('a'), rec('b')], 4, 3)
  const rounds = [0, 1, 2, 3].map((i) => calls.slice(i * 9, i * 9 + 9).join(' '))
  assert.equal(calls.length, 4 * 3 * 3)
  assert.deepEqual(rounds, [
    'base base base a a a b b b',
    'b b b a a a base base base',
    'base base base a a a b b b',
    'b b b a a a base base base'
  ])
  assert.equal(r.ms.length, 2)
  assert.equal(r.ratios.length, 2)
  // (Their values are CPU time, which a test does not judge.)
  for (const x of [r.baseMs, ...r.ms, ...r.ratios]) assert.equal(typeof x, 'number')
})
