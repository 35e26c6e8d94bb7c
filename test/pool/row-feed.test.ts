// The row feed's protocol over a real MessageChannel: batches arrive in order and whole, a
// sender more than `window` batches ahead of the worker waits, abort ends both sides.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { FeedClosed, rowFeedSender } from '../../pool/row-feed.js'
import { receiveRows } from '../../worker/receive-rows.js'

const batch = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ n: from + i }))
const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve))
}

test('a sender waits once `window` batches are unread, and goes on as the worker takes them', async () => {
  const sender = rowFeedSender(2)
  await sender.rows('sales', batch(0, 3)) // one unread: no wait
  let third = false
  const second = sender.rows('sales', batch(3, 3)).then(() => { third = true })
  await turns(20)
  assert.equal(third, false, 'two batches unread: the sender waits (nobody reads yet)')
  const received = receiveRows(sender.port)
  await second
  assert.equal(third, true, 'the worker took them: the sender goes on')
  await sender.rows('sales', batch(6, 2))
  sender.value('customer', { name: 'Acme' })
  sender.end()
  const datasets = await received
  assert.ok(datasets !== undefined)
  assert.deepEqual(datasets.sales, batch(0, 8), 'every row, in order')
  assert.deepEqual(datasets.customer, { name: 'Acme' })
  sender.abort()
})

test('abort: a waiting sender stops with FeedClosed and the worker gets no datasets', async () => {
  const sender = rowFeedSender(1)
  const waiting = assert.rejects(sender.rows('sales', batch(0, 2)), FeedClosed)
  sender.abort()
  await waiting
  await assert.rejects(sender.rows('sales', batch(2, 1)), FeedClosed)
  assert.equal(await receiveRows(sender.port), undefined, 'no render without every row')
})
