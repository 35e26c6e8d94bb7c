import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runRecorder } from '../../../server/render/run-recorder.js'
import type { RunRecord, RunsRepo } from '../../../server/store/repos/runs.js'

const run = (id: string): RunRecord => ({
  id, workspaceId: 'w', apiKeyId: 'k', apiKeyPrefix: 'p', apiKeyName: 'n', correlationId: 'c', mode: 'sync', jobId: null,
  templateCode: 't', version: 1, environment: 'e', format: 'pdf', status: 'succeeded', errorCode: null, errorMessage: null,
  durationMs: 1, pageCount: 1, labelCount: null, outputBytes: 1, startedAt: new Date(), completedAt: new Date()
})

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
  const recorder = runRecorder(repo, {} as never, { flushMs: 60_000, onError: (err) => errors.push(err) })
  recorder.record(run('a'))
  recorder.record(run('b'))
  await recorder.flush()
  assert.equal(errors.length, 1)
  assert.deepEqual(written, [])
  recorder.record(run('c'))
  await recorder.close()
  assert.deepEqual(written, ['a', 'b', 'c'])
})
