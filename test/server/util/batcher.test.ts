import { test } from 'node:test'
import assert from 'node:assert/strict'
import { background, createBatcher, isolating, ItemFailed } from '../../../server/util/batcher.js'

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

test('the first item is written at once; items arriving during a write go together in the next one', async () => {
  const writes: number[][] = []
  let release: () => void = () => {}
  const b = createBatcher<number, string>(async (items) => {
    writes.push(items)
    await new Promise<void>((resolve) => { release = resolve })
    return items.map((i) => `done ${i}`)
  })
  const first = b.push(1)
  await tick()
  assert.deepEqual(writes, [[1]], 'no waiting for company when idle')
  const later = [b.push(2), b.push(3), b.push(4)]
  assert.equal(b.size(), 4)
  release()
  assert.equal(await first, 'done 1')
  await tick()
  assert.deepEqual(writes, [[1], [2, 3, 4]])
  release()
  assert.deepEqual(await Promise.all(later), ['done 2', 'done 3', 'done 4'])
  assert.equal(b.size(), 0)
})

test('batches respect the item and weight limits; a single heavy item still goes alone', async () => {
  const writes: number[][] = []
  let gate: Promise<void> | undefined = new Promise<void>((resolve) => setTimeout(resolve, 20))
  const b = createBatcher<number, number>(async (items) => {
    writes.push(items)
    if (gate !== undefined) { await gate; gate = undefined }
    return items
  }, { maxItems: 3, maxWeight: 10, weigh: (n) => n })
  const all = [b.push(1), b.push(2), b.push(2), b.push(2), b.push(2), b.push(50), b.push(4), b.push(4), b.push(4)]
  assert.deepEqual(await Promise.all(all), [1, 2, 2, 2, 2, 50, 4, 4, 4])
  assert.deepEqual(writes, [[1], [2, 2, 2], [2], [50], [4, 4], [4]])
})

test('a failed write rejects its whole batch; the next batch is written normally', async () => {
  let calls = 0
  let release: () => void = () => {}
  const b = createBatcher<number, number>(async (items) => {
    calls++
    if (calls === 1) { await new Promise<void>((resolve) => { release = resolve }); return items }
    if (calls === 2) throw new Error('database down')
    return items.map((i) => i * 10)
  })
  const first = b.push(1)
  await tick()
  const failing = [b.push(2), b.push(3)].map(async (p) => await p.then(() => 'ok', (e: Error) => e.message))
  release()
  assert.equal(await first, 1)
  assert.deepEqual(await Promise.all(failing), ['database down', 'database down'])
  assert.equal(await b.push(4), 40)
})

test('isolating: when a batch fails, each item is written alone, so one bad item fails alone', async () => {
  const seen: number[][] = []
  const write = isolating<number, number>(async (items) => {
    seen.push(items)
    if (items.includes(13)) throw new Error('bad row')
    return items.map((i) => i + 1)
  })
  const out = await write([1, 13, 2])
  assert.equal(out[0], 2)
  assert.ok(out[1] instanceof ItemFailed)
  assert.equal(((out[1]).error as Error).message, 'bad row')
  assert.equal(out[2], 3)
  assert.deepEqual(seen, [[1, 13, 2], [1], [13], [2]])
  await assert.rejects(write([13]), /bad row/, 'a batch of one fails as itself')
})

test('maxWriters: up to that many writes in flight; items arriving meanwhile wait for the first free one', async () => {
  const started: number[][] = []
  const releases: Array<() => void> = []
  const b = createBatcher<number, number>(async (items) => {
    started.push(items)
    await new Promise<void>((resolve) => releases.push(resolve))
    return items
  }, { maxWriters: 2 })
  const all = [b.push(1), b.push(2), b.push(3), b.push(4)]
  await tick()
  assert.deepEqual(started, [[1], [2]], 'two writes at once, each started as its item came')
  releases[1]!() // the second write ends first
  await tick(); await tick()
  assert.deepEqual(started, [[1], [2], [3, 4]], 'the waiting items go together into the freed writer')
  releases[0]!(); releases[2]!()
  assert.deepEqual(await Promise.all(all), [1, 2, 3, 4])
  assert.equal(b.size(), 0)
})

test('isolating with isItemFault: an outage fails the batch as it is; a refused item is retried once alone, then dropped', async () => {
  const seen: number[][] = []
  const dropped: number[] = []
  let away = true
  const fault = (err: unknown): boolean => (err as Error).message === 'bad row'
  const write = isolating<number, number>(async (items) => {
    seen.push(items)
    if (away) throw new Error('database away')
    if (items.includes(13)) throw new Error('bad row')
    return items
  }, { isItemFault: fault, onDrop: (item) => dropped.push(item) })
  await assert.rejects(write([1, 13, 2]), /database away/)
  assert.deepEqual(seen, [[1, 13, 2]], 'not split for an outage')
  away = false
  const out = await write([1, 13, 2])
  assert.deepEqual([out[0], out[2]], [1, 2])
  assert.ok(out[1] instanceof ItemFailed)
  assert.deepEqual(seen.slice(1), [[1, 13, 2], [1], [13], [2]])
  assert.deepEqual(dropped, [13])
})

test('lingerMs: items wait for company until flush(); flush() writes them and waits for the write', async () => {
  const writes: number[][] = []
  const b = createBatcher<number, number>(async (items) => { writes.push(items); return items }, { lingerMs: 60_000 })
  const all = [b.push(1), b.push(2)]
  await tick()
  assert.deepEqual(writes, [], 'nothing written before the linger ends')
  await b.flush()
  assert.deepEqual(writes, [[1, 2]])
  assert.deepEqual(await Promise.all(all), [1, 2])
  await b.flush()
  assert.deepEqual(writes, [[1, 2]], 'an empty flush writes nothing')
})

test('background: items of a batch that failed for an outage are written by the next write; a refused one is not retried', async () => {
  const written: number[] = []
  let away = true
  const fault = (err: unknown): boolean => (err as Error).message === 'bad row'
  const b = createBatcher<number, undefined>(isolating(async (items) => {
    if (away) throw new Error('database away')
    if (items.includes(13)) throw new Error('bad row')
    written.push(...items)
    return items.map(() => undefined)
  }, { isItemFault: fault }), { lingerMs: 60_000 })
  const writer = background(b, { isItemFault: fault, maxKept: 100 })
  writer.record(1)
  writer.record(13)
  writer.record(2)
  await writer.flush()
  await tick()
  assert.deepEqual(written, [])
  assert.equal(b.size(), 3, 'kept for the next write')
  away = false
  writer.record(3)
  await writer.close()
  assert.deepEqual(written, [1, 2, 3])
  assert.equal(b.size(), 0, 'the refused item is gone, not waiting for a retry')
})
