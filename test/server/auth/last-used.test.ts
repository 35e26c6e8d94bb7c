import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createLastUsedRecorder } from '../../../server/auth/last-used.js'

// A refused row, as mysql2 reports one (SQLSTATE class 22: data exception).
const refused = (): Error => Object.assign(new Error('Data too long'), { sqlState: '22001', errno: 1406 })

test('key use: one write per interval for many uses; a refused key is dropped alone, the others are written', async () => {
  const touched: string[][] = []
  const errors: unknown[] = []
  const repo = {
    async touch (ids: string[]) {
      if (ids.includes('poisoned')) throw refused()
      touched.push([...ids])
    }
  }
  const recorder = createLastUsedRecorder(repo, 60_000, (err) => errors.push(err))
  for (const id of ['a', 'b', 'a', 'poisoned', 'c', 'b']) recorder.record(id)
  await recorder.flush()
  assert.deepEqual(touched, [['a'], ['b'], ['c']], 'the batch was refused, so each key went alone; the bad one was dropped')
  recorder.record('d')
  await recorder.close()
  assert.deepEqual(touched.at(-1), ['d'], 'later uses are not held up by the refused one')
  assert.equal(errors.length, 2, 'the refused batch and the refused key alone, each logged once')
})
