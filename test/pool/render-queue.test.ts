import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createRenderQueue, type Admission, type RenderQueueOptions } from '../../pool/render-queue.js'
import { itemAt } from '../helpers/item-at.js'

// The waiting room alone: no threads, no renders. A "render" holds its admission until the test
// releases it, so every assertion is about order and counts.
const options = (o: Partial<RenderQueueOptions> = {}): RenderQueueOptions => ({
  threads: 2,
  maxQueue: 64,
  workspaceRunning: 2,
  workspaceQueue: 64,
  maxWaitMs: 60_000,
  batchMaxWaitMs: 60_000,
  fairWindowMs: 0,
  ...o
})

interface Held { name: string, release: () => void }

function harness (o: Partial<RenderQueueOptions> = {}) {
  const queue = createRenderQueue(options(o))
  const started: Held[] = []
  const refused: string[] = []
  // Grants resolve promises: one turn of the event loop lets every granted waiter record itself.
  const settle = async (): Promise<void> => { await new Promise((resolve) => setImmediate(resolve)) }
  const submit = (workspace: string, name: string, lane: 'interactive' | 'batch' = 'interactive'): Promise<void> => {
    const take = (a: Admission): void => {
      if (a.ok) started.push({ name, release: a.release })
      else refused.push(name)
    }
    const a = queue.acquire(workspace, lane)
    if (a instanceof Promise) return a.then(take)
    take(a)
    return Promise.resolve()
  }
  /** Ends the oldest running render and lets the granted waiters record themselves. */
  const finish = async (name?: string): Promise<void> => {
    const i = name === undefined ? 0 : started.findIndex((h) => h.name === name)
    const held = itemAt(started.splice(i, 1), 0)
    held.release()
    await settle()
  }
  const names = (): string[] => started.map((h) => h.name)
  return { queue, submit, finish, names, refused, started, flush: settle }
}

test('workspaces are served round-robin: B keeps 8× the threads busy, A gets the next free thread', async () => {
  const h = harness()
  for (let i = 0; i < 16; i++) void h.submit('B', `b${i}`)
  void h.submit('A', 'a0')
  assert.deepEqual(h.names(), ['b0', 'b1'])
  const order: string[] = []
  const served = new Set(h.names())
  // Finish renders one by one and note who got each freed thread.
  while (h.started.length > 0) {
    await h.finish()
    for (const n of h.names()) if (!served.has(n)) { served.add(n); order.push(n) }
  }
  // A waited for one render per thread at most: the very first freed thread is A's.
  assert.equal(order[0], 'a0')
  assert.deepEqual(order.slice(1), Array.from({ length: 14 }, (_, i) => `b${i + 2}`), 'B keeps its own FIFO order')
  assert.equal(h.queue.stats().workspaces, 0, 'idle workspaces are forgotten')
})

test('three workspaces waiting take turns, one render each', async () => {
  const h = harness({ threads: 1 })
  void h.submit('A', 'a0')
  for (let i = 1; i <= 3; i++) { void h.submit('A', `a${i}`); void h.submit('B', `b${i}`); void h.submit('C', `c${i}`) }
  const order: string[] = []
  while (h.started.length > 0) { order.push(itemAt(h.names(), 0)); await h.finish() }
  assert.deepEqual(order, ['a0', 'b1', 'c1', 'a1', 'b2', 'c2', 'a2', 'b3', 'c3', 'a3'], 'A, served first, waits its ' +
    'turn')
})

test('a workspace over its waiting cap gets RENDER_BUSY; another workspace is still admitted', async () => {
  const h = harness({ threads: 1, workspaceQueue: 3 })
  for (let i = 0; i < 6; i++) void h.submit('B', `b${i}`)
  void h.submit('A', 'a0')
  // b0 runs, b1..b3 wait, b4 and b5 are over B's cap.
  assert.deepEqual(h.refused, ['b4', 'b5'])
  assert.equal(h.queue.stats().queued, 4)
  // B was just served (b0), so A's turn comes first; then B's.
  await h.finish()
  assert.deepEqual(h.names(), ['a0'])
  await h.finish()
  assert.deepEqual(h.names(), ['b1'])
  // The rest drain in B's order (and no waiter is left holding its 60 s wait timer).
  const order: string[] = []
  while (h.started.length > 0) { order.push(itemAt(h.names(), 0)); await h.finish() }
  assert.deepEqual(order, ['b1', 'b2', 'b3'])
  assert.equal(h.queue.stats().queued, 0)
})

test('a full waiting room: the workspace holding most of it gives up its newest render to a newcomer', async () => {
  const h = harness({ threads: 1, maxQueue: 4 })
  for (let i = 0; i < 5; i++) void h.submit('B', `b${i}`)
  void h.submit('B', 'b5')
  assert.deepEqual(h.refused, ['b5'], 'B alone: the room is full, B is refused')
  void h.submit('A', 'a0')
  await h.flush()
  assert.deepEqual(h.refused, ['b5', 'b4'], "A is admitted and B's newest waiter leaves")
  void h.submit('A', 'a1')
  await h.flush()
  void h.submit('A', 'a2')
  await h.flush()
  // B holds 2 after giving up b3, A 2: equal shares, nobody gives way any more.
  assert.deepEqual(h.refused, ['b5', 'b4', 'b3', 'a2'])
  const order: string[] = []
  while (h.started.length > 0) { order.push(itemAt(h.names(), 0)); await h.finish() }
  assert.deepEqual(order, ['b0', 'a0', 'b1', 'a1', 'b2'])
})

test('the per-workspace running cap leaves threads to others even when that workspace waits', async () => {
  const h = harness({ threads: 3, workspaceRunning: 1 })
  void h.submit('B', 'b0')
  void h.submit('B', 'b1')
  void h.submit('A', 'a0')
  assert.deepEqual(h.names(), ['b0', 'a0'], 'b1 waits although a thread is free')
  void h.submit('C', 'c0')
  assert.deepEqual(h.names(), ['b0', 'a0', 'c0'])
  await h.finish('b0')
  assert.deepEqual(h.names(), ['a0', 'c0', 'b1'])
})

test('interactive renders go before batch ones; batch runs when no interactive render can', async () => {
  const h = harness({ threads: 1, workspaceRunning: 1 })
  void h.submit('A', 'a0')
  void h.submit('J', 'j0', 'batch')
  void h.submit('J', 'j1', 'batch')
  void h.submit('B', 'b0')
  void h.submit('A', 'a1')
  const order: string[] = []
  while (h.started.length > 0) { order.push(itemAt(h.names(), 0)); await h.finish() }
  assert.deepEqual(order, ['a0', 'b0', 'a1', 'j0', 'j1'])
})

test('an aged batch render takes every other turn, so interactive load cannot starve jobs', async () => {
  const h = harness({ threads: 1, batchMaxWaitMs: -1 })
  void h.submit('A', 'a0')
  void h.submit('J', 'j0', 'batch')
  void h.submit('J', 'j1', 'batch')
  void h.submit('A', 'a1')
  void h.submit('B', 'b1')
  const order: string[] = []
  while (h.started.length > 0) { order.push(itemAt(h.names(), 0)); await h.finish() }
  assert.deepEqual(order, ['a0', 'j0', 'b1', 'j1', 'a1'])
})

test('a batch render goes before interactive ones only once it has waited longer than batchMaxWaitMs', async () => {
  let clock = 0
  const h = harness({ threads: 1, batchMaxWaitMs: 300, now: () => clock })
  void h.submit('A', 'a0')
  void h.submit('J', 'j0', 'batch')
  void h.submit('A', 'a1')
  void h.submit('A', 'a2')
  void h.submit('A', 'a3')
  const order: string[] = []
  const next = async (): Promise<void> => { order.push(itemAt(h.names(), 0)); await h.finish() }
  await next() // a0 ends at 0 ms: j0 has not waited yet, a1 goes
  clock = 300
  await next() // a1 ends at 300 ms: waited exactly the limit, not longer: a2 goes
  clock = 301
  while (h.started.length > 0) await next()
  assert.deepEqual(order, ['a0', 'a1', 'a2', 'j0', 'a3'])
})

test('a render that waits past the time limit is refused and leaves the room', async () => {
  const h = harness({ threads: 1, maxWaitMs: 1 })
  void h.submit('A', 'a0')
  await h.submit('B', 'b0')
  assert.deepEqual(h.refused, ['b0'])
  assert.equal(h.queue.stats().queued, 0)
  await h.finish()
  assert.equal(h.queue.stats().workspaces, 0)
})

// Fair threads (issue 30, finding 4): renders cannot be interrupted, so while another workspace
// is active a workspace holds at most N−1 of N threads, in either lane; alone it may hold all N.
test('a workspace alone takes every thread; once another is active it holds N−1 and the other finds one ' +
  'free', async () => {
  let clock = 0
  const h = harness({ threads: 3, workspaceRunning: 3, fairWindowMs: 5000, now: () => clock })
  for (let i = 0; i < 6; i++) void h.submit('B', `b${i}`)
  assert.deepEqual(h.names(), ['b0', 'b1', 'b2'], 'alone, B uses all three threads')
  void h.submit('A', 'a0')
  assert.deepEqual(h.names(), ['b0', 'b1', 'b2'], 'A arrives to a full pool and waits one render')
  await h.finish('b0')
  assert.deepEqual(h.names(), ['b1', 'b2', 'a0'])
  await h.finish('a0')
  clock = 1000
  assert.deepEqual(h.names(), ['b1', 'b2'], 'A was active 1 s ago: B does not take the third thread')
  void h.submit('A', 'a1')
  assert.deepEqual(h.names(), ['b1', 'b2', 'a1'], 'A finds a thread free at once')
  await h.finish('a1')
  await h.finish('b1')
  assert.deepEqual(h.names(), ['b2', 'b3'], 'still held to N−1 while A is within the window')
  clock = 6001
  await h.finish('b2')
  assert.deepEqual(h.names(), ['b3', 'b4', 'b5'], 'A quiet past the window: B alone uses all threads again')
})

test('one thread: nothing can be kept free, so a lone workspace takes it and workspaces take turns', async () => {
  let clock = 0
  const h = harness({ threads: 1, fairWindowMs: 5000, now: () => clock })
  void h.submit('A', 'a0')
  await h.finish('a0')
  clock = 10
  void h.submit('B', 'b0')
  void h.submit('B', 'b1')
  assert.deepEqual(h.names(), ['b0'], 'A was active just now, yet B takes the only thread')
  void h.submit('A', 'a1')
  await h.finish('b0')
  assert.deepEqual(h.names(), ['a1'], 'A waited one render of B at most')
})

test('jobs (batch lane) obey the same rule: B\'s jobs hold N−1 threads while A is active; A\'s job starts at ' +
  'once', async () => {
  let clock = 0
  const h = harness({ threads: 2, fairWindowMs: 5000, now: () => clock })
  void h.submit('A', 'a0')
  await h.finish('a0')
  clock = 100
  for (let i = 0; i < 4; i++) void h.submit('B', `jb${i}`, 'batch')
  assert.deepEqual(h.names(), ['jb0'], 'A asked 100 ms ago: one thread stays free')
  void h.submit('A', 'ja0', 'batch')
  assert.deepEqual(h.names(), ['jb0', 'ja0'])
  void h.submit('A', 'ja1', 'batch')
  await h.finish('jb0')
  assert.deepEqual(h.names(), ['ja0', 'jb1'], 'the workspace holding fewer threads goes first')
  await h.finish('ja0')
  assert.deepEqual(h.names(), ['jb1', 'ja1'], 'A\'s job goes before B\'s older ones: B holds N−1 already')
})
