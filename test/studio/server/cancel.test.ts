// The page aborts a stale render: the studio cancels it in the render pool, so it keeps no thread.
// One thread and no waiting room (SVC_RENDER_QUEUE=0): while a render holds the thread another
// is refused RENDER_BUSY at once; after the long render's request is aborted, the thread is free
// again long before that render could have finished (it is ~3,000 pages: seconds of work).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { projectRoot } from '../../../server/util/paths.js'
import { post, startStudio, type Answer, type StudioProcess } from './helpers.js'

const example = (kind: 'templates' | 'data', name: string): string => join(projectRoot, 'examples', kind, `${name}.json`)
let s: StudioProcess
let templateText: string
let rows: { header: unknown, lines: unknown[] }

before(async () => {
  templateText = await readFile(example('templates', 'invoice'), 'utf8')
  rows = JSON.parse(await readFile(example('data', 'invoice'), 'utf8'))
  s = await startStudio([example('templates', 'invoice')], {
    SVC_RENDER_THREADS: '1',
    SVC_RENDER_QUEUE: '0',
    SVC_RENDER_TIMEOUT: '10m',
    SVC_RENDER_MAX_ROWS: '1000000',
    SVC_RENDER_MAX_PAGES: '100000'
  })
})
after(async () => { await s.close() })

const small = async (): Promise<Answer> =>
  await post(s, 'render', { templateText, data: { kind: 'rows', rows }, parameters: { invoiceId: 1 }, context: {} })

async function until (what: string, fn: () => Promise<boolean>, tries: number): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await fn()) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assert.fail(`${what}: not after ${tries} tries`)
}

test('an aborted render is cancelled: the thread is free again at once', async () => {
  assert.equal((await small()).status, 200)
  const lines = Array.from({ length: 120_000 }, (_, i) => rows.lines[i % rows.lines.length])
  const longBody = { templateText, data: { kind: 'rows', rows: { ...rows, lines } }, parameters: { invoiceId: 1 }, context: {} }
  let abort = new AbortController()
  let long: Promise<unknown> = Promise.resolve()
  let settled = true
  const start = (): void => {
    abort = new AbortController()
    settled = false
    long = post(s, 'render', longBody, abort.signal).then((r) => r, (err: unknown) => err).finally(() => { settled = true })
  }
  // The long render holds the only thread once another render is refused RENDER_BUSY. A probe
  // may itself hold the thread when the long one arrives (then that one is refused): start it again.
  await until('the long render on the thread', async () => {
    if (settled) start()
    const r = await small()
    if (r.status === 200) return false
    assert.equal(r.json().errorCode, 'RENDER_BUSY')
    return !settled
  }, 200)
  abort.abort()
  assert.equal((await long as Error).name, 'AbortError')
  // Upper bound on a hang, not a speed check: the stale render would hold the thread for seconds more.
  await until('the thread free again', async () => (await small()).status === 200, 10)
})
