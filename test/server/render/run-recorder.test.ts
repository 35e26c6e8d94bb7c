import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import type { RowDataPacket } from 'mysql2/promise'
import { createRunRecorder } from '../../../server/render/run-recorder.js'
import { createRunsRepo } from '../../../server/store/repos/runs.js'
import type { RunRecord, RunsRepo } from '../../../server/store/repos/runs.js'
import { createTestDatabase } from '../../helpers/db.js'
import { newRun } from '../../helpers/runs.js'

const run = (id: string): RunRecord => newRun({ id })

test('a failed batch write is kept and written by the next flush', async () => {
  const written: string[] = []
  let failNext = true
  const errors: unknown[] = []
  const repo = {
    async insertMany (_db: unknown, runs: RunRecord[]) {
      if (failNext) { failNext = false; throw new Error('database away') }
      written.push(...runs.map((r) => r.id))
    }
  } as unknown as RunsRepo
  const recorder = createRunRecorder(repo, {} as never, { flushMs: 60_000, onError: (err) => errors.push(err) })
  recorder.record(run('a'))
  recorder.record(run('b'))
  await recorder.flush()
  assert.equal(errors.length, 1)
  assert.deepEqual(written, [])
  recorder.record(run('c'))
  await recorder.close()
  assert.deepEqual(written, ['a', 'b', 'c'])
})

test('a run the database refuses (version above the INT column) is dropped alone; the runs around it are written', async () => {
  const database = await createTestDatabase('runrec')
  try {
    const dropped: Array<{ id: string, correlationId: string }> = []
    const recorder = createRunRecorder(createRunsRepo(database.db), database.db, {
      flushMs: 60_000,
      onDrop: (r) => dropped.push({ id: r.id, correlationId: r.correlationId })
    })
    const good = (n: number): RunRecord => ({ ...run(randomUUID()), correlationId: `good-${n}` })
    const first = [good(1), { ...run(randomUUID()), version: 2147483648, correlationId: 'poisoned' }, good(2)]
    for (const r of first) recorder.record(r)
    await recorder.flush()
    // The next flush is not held up by the refused run: it is gone, not retried.
    const later = good(3)
    recorder.record(later)
    await recorder.close()
    const [rows] = await database.db.query<RowDataPacket[]>('SELECT correlation_id FROM runs ORDER BY correlation_id')
    assert.deepEqual(rows.map((r) => r.correlation_id), ['good-1', 'good-2', 'good-3'])
    assert.deepEqual(dropped, [{ id: first[1]?.id, correlationId: 'poisoned' }])
  } finally {
    await database.drop()
  }
})
