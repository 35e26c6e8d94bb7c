// The byte budget's accounting (server/datasources/byte-budget.ts): the wire meter follows the
// MySQL packet headers in whatever pieces the socket delivers them and cuts at a header that
// announces more than the budget has left or than a row of cells within the limit can hold.
// End to end (real MariaDB, a hostile server): test/security/dataset-bytes.test.ts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { ByteLimitExceeded, largestCell, meterWire, packetBound, rowCost } from '../../../server/datasources/byte-budget.js'
import type { ByteBudget } from '../../../server/datasources/byte-budget.js'

function header (length: number, seq = 0): Buffer {
  const h = Buffer.alloc(4)
  h.writeUIntLE(length, 0, 3)
  h[3] = seq
  return h
}

interface Metered { feed (...chunks: Buffer[]): void, cuts: ByteLimitExceeded[], listeners (): number, stop (): void }

function metered (budget: ByteBudget, columns = 1): Metered {
  const stream = new EventEmitter()
  const cuts: ByteLimitExceeded[] = []
  const meter = meterWire(stream, budget, () => columns, (err) => cuts.push(err))
  return {
    feed: (...chunks) => { for (const c of chunks) stream.emit('data', c) },
    cuts,
    listeners: () => stream.listenerCount('data'),
    stop: () => meter.stop()
  }
}

test('small packets in any split are counted whole and never cut while the budget holds', () => {
  const budget: ByteBudget = { limit: 1000, used: 0, cellLimit: 100 }
  const m = metered(budget)
  const stream = Buffer.concat([header(10), Buffer.alloc(10), header(50, 1), Buffer.alloc(50), header(0, 2)])
  // Split inside a header and inside a payload.
  m.feed(stream.subarray(0, 2), stream.subarray(2, 9), stream.subarray(9, 40), stream.subarray(40))
  assert.equal(m.cuts.length, 0)
  assert.equal(budget.used, stream.length)
})

test('a packet announcing more than the budget has left is cut at its header, before its payload arrives', () => {
  const budget: ByteBudget = { limit: 1000, used: 900, cellLimit: 10_000 }
  const m = metered(budget)
  m.feed(header(200).subarray(0, 3))
  assert.equal(m.cuts.length, 0, 'the header is not complete yet')
  m.feed(header(200).subarray(3))
  assert.equal(m.cuts.length, 1)
  assert.equal(m.cuts[0]?.kind, 'total')
  assert.equal(m.cuts[0].limit, 1000)
  assert.equal(m.listeners(), 0, 'the meter stops listening once it cut')
})

test('the budget is shared: bytes of another statement count, and passing it cuts', () => {
  const budget: ByteBudget = { limit: 100, used: 0, cellLimit: 1000 }
  const a = metered(budget)
  const b = metered(budget)
  a.feed(header(40), Buffer.alloc(40))
  assert.equal(a.cuts.length, 0)
  b.feed(header(60))
  assert.equal(b.cuts[0]?.kind, 'total', '44 + 64 > 100, announced')
})

test('16 MiB packets are joined: a value spread over several is cut by the cell bound at the header that passes it', () => {
  const MAX = 0xffffff
  const cellLimit = 20 * 1024 * 1024
  const budget: ByteBudget = { limit: 1024 * 1024 * 1024, used: 0, cellLimit }
  const m = metered(budget, 1)
  m.feed(header(MAX), Buffer.alloc(MAX))
  assert.equal(m.cuts.length, 0, 'one full packet is within a 20 MiB cell')
  m.feed(header(MAX, 1))
  assert.equal(m.cuts.length, 1)
  assert.equal(m.cuts[0]?.kind, 'cell')
  assert.equal(m.cuts[0].limit, cellLimit)
})

test('the row bound grows with the columns; before the columns are known a cell is the bound', () => {
  assert.equal(packetBound(0, 1000), 2024)
  assert.equal(packetBound(1, 1000), 1009 + 1 + 2)
  assert.equal(packetBound(3, 1000), 3 * 1009 + 1 + 2)
  const budget: ByteBudget = { limit: 1e9, used: 0, cellLimit: 1000 }
  const three = metered(budget, 3)
  three.feed(header(2500))
  assert.equal(three.cuts.length, 0, 'three values of up to 1000 bytes fit 2500')
  const one = metered({ limit: 1e9, used: 0, cellLimit: 1000 }, 1)
  one.feed(header(2500))
  assert.equal(one.cuts[0]?.kind, 'cell')
})

test('stop() leaves the stream alone: later bytes belong to nobody\'s budget', () => {
  const budget: ByteBudget = { limit: 10, used: 0, cellLimit: 10 }
  const m = metered(budget)
  m.stop()
  m.feed(header(1000))
  assert.equal(budget.used, 0)
  assert.equal(m.cuts.length, 0)
})

test('largestCell measures strings in UTF-8 bytes and buffers by length; rowCost charges every cell and its name', () => {
  assert.equal(largestCell({ a: 'abc', b: Buffer.alloc(7), c: 12, d: null }, 100), 7)
  assert.equal(largestCell({ a: 'é'.repeat(40) }, 100), 80, 'two bytes a character once it could pass the limit')
  assert.equal(largestCell({ a: '€'.repeat(40) }, 100), 120)
  assert.equal(rowCost([{ name: 'id' }, { name: 'total' }]), 2 * 4 + 2 + 5)
})
