import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createGate } from '../../../server/util/gate.js'

test('at most `limit` holders; waiters enter in arrival order as places are left', async () => {
  const g = createGate(2)
  assert.equal(await g.enter(), true)
  assert.equal(await g.enter(), true)
  const order: number[] = []
  const third = g.enter().then((ok) => { order.push(3); return ok })
  const fourth = g.enter().then((ok) => { order.push(4); return ok })
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(g.stats(), { active: 2, waiting: 2 })
  assert.deepEqual(order, [])
  g.leave()
  assert.equal(await third, true)
  assert.deepEqual(order, [3])
  g.leave()
  assert.equal(await fourth, true)
  assert.deepEqual(order, [3, 4])
  g.leave(); g.leave()
  assert.deepEqual(g.stats(), { active: 0, waiting: 0 })
})

test('close() turns away the waiters and every later caller; holders leave normally', async () => {
  const g = createGate(1)
  assert.equal(await g.enter(), true)
  const waiter = g.enter()
  g.close()
  assert.equal(await waiter, false)
  assert.equal(await g.enter(), false)
  g.leave()
  assert.deepEqual(g.stats(), { active: 0, waiting: 0 })
})

test('with a per-key share, one key never holds the last place: another key\'s waiter goes before its older waiters', async () => {
  const g = createGate(3, 2)
  const order: string[] = []
  const enter = (key: string, name: string): Promise<void> => g.enter(key).then((ok) => { if (ok) order.push(name) })
  void enter('B', 'b0'); void enter('B', 'b1'); void enter('B', 'b2'); void enter('B', 'b3')
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(order, ['b0', 'b1'], 'B holds two of three places, one stays free')
  void enter('A', 'a0')
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(order, ['b0', 'b1', 'a0'], 'A enters at once')
  void enter('A', 'a1')
  g.leave('B')
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(order, ['b0', 'b1', 'a0', 'b2'], 'B back under its share: its oldest waiter goes first')
  g.leave('A')
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(order, ['b0', 'b1', 'a0', 'b2', 'a1'], 'A goes before b3, which would be B\'s third')
  assert.deepEqual(g.stats(), { active: 3, waiting: 1 })
})
