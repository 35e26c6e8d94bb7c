// svc runs list end to end: runs written by real renders over HTTPS, read by the real CLI.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { createTestDatabase } from '../helpers/db.js'
import type { TestDatabase } from '../helpers/db.js'
import { startServer, makeHome } from '../helpers/server.js'
import type { TestServer } from '../helpers/server.js'
import { bearer } from '../helpers/fixtures.js'
import { createDataDatabase, dropDataDatabase, renderWorkspace } from '../helpers/render-data.js'
import { svc } from './foundation-helpers.js'

const masterKey = randomBytes(32).toString('hex')
let database: TestDatabase
let server: TestServer
let dataName: string
let ws: Awaited<ReturnType<typeof renderWorkspace>>
let env: Record<string, string>

before(async () => {
  database = await createTestDatabase('runs')
  dataName = `${database.name}_data`
  const dataUrl = await createDataDatabase(dataName)
  const home = await makeHome()
  server = await startServer(database.url, { SVC_MASTER_KEY: masterKey }, home)
  ws = await renderWorkspace(server.context, dataUrl)
  env = { SVC_HOME: home, SVC_DATABASE_URL: database.url, SVC_MASTER_KEY: masterKey }
  const render = (body: unknown) => server.fetch('POST', '/api/v1/render', { headers: bearer(ws.key.key), body })
  assert.equal((await render({ template: 'invoice', parameters: { invoiceId: 1 } })).status, 200)
  assert.equal((await render({ template: 'invoice', parameters: { invoiceId: 2 } })).status, 200)
  assert.equal((await render({ template: 'nope' })).status, 404)
  // A character no font has (drawn as a box): a render warning, sync and async.
  const emoji = { code: 'emoji', format: 'document', document: { body: [{ text: 'A \u{1FAE8} B' }] } }
  await server.context.services.templates.publish(ws.workspace.id, emoji, { note: 'test', publishedBy: 'tests' })
  assert.equal((await render({ template: 'emoji' })).status, 200)
  const queued = await render({ template: 'emoji', async: true })
  assert.equal(queued.status, 202)
  await finished(queued.json().statusUrl)
  await server.close() // flushes the batched run history
})
async function finished (statusUrl: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const job = (await server.fetch('GET', new URL(statusUrl).pathname, { headers: bearer(ws.key.key) })).json()
    if (job.status === 'succeeded') return
    assert.notEqual(job.status, 'failed', JSON.stringify(job.error))
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('job did not finish')
}

after(async () => {
  await database.drop()
  await dropDataDatabase(dataName)
})

test('svc runs list shows every run, newest first, with key prefix and outcome', async () => {
  const res = await svc(['--json', 'runs', 'list', '--workspace', ws.workspace.id], env)
  assert.equal(res.code, 0, res.stderr)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- items of a parsed JSON body under test
  const runs = (res.json() as any[]).filter((r) => r.templateCode !== 'emoji')
  assert.equal(runs.length, 3)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- items of a parsed JSON body under test
  assert.ok(runs.every((r: any) => r.apiKeyPrefix === ws.key.prefix && r.mode === 'sync'))
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- items of a parsed JSON body under test
  assert.deepEqual(runs.map((r: any) => r.status).sort(), ['failed', 'succeeded', 'succeeded'])
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- items of a parsed JSON body under test
  assert.ok(runs.every((r: any) => r.warningCount === 0 && r.warnings.length === 0))
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- items of a parsed JSON body under test
  const times = runs.map((r: any) => Date.parse(r.startedAt))
  assert.deepEqual([...times].sort((a, b) => b - a), times)
})

test('filters: --status, --key, --limit; bad arguments exit 2', async () => {
  const failed = (await svc(['--json', 'runs', 'list', '--workspace', ws.workspace.id, '--status', 'failed'], env)).json()
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- items of a parsed JSON body under test
  assert.deepEqual(failed.map((r: any) => [r.templateCode, r.errorCode]), [['nope', 'TEMPLATE_NOT_FOUND']])
  assert.equal((await svc(['--json', 'runs', 'list', '--workspace', ws.workspace.id, '--limit', '1'], env)).json().length, 1)
  assert.equal((await svc(['--json', 'runs', 'list', '--workspace', ws.workspace.id, '--key', 'svc_live_nobodyatall1'], env)).json().length, 0)
  const bad = await svc(['runs', 'list', '--workspace', ws.workspace.id, '--limit', 'many'], env)
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /--limit/)
  const text = await svc(['runs', 'list', '--workspace', ws.workspace.id], env)
  assert.equal(text.code, 0)
  assert.match(text.stdout, /TEMPLATE_NOT_FOUND/)
})

test('render warnings (a character no font has) are counted in the run, sync and async', async () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- items of a parsed JSON body under test
  const all = (await svc(['--json', 'runs', 'list', '--workspace', ws.workspace.id], env)).json() as any[]
  const emoji = all.filter((r) => r.templateCode === 'emoji')
  assert.deepEqual(emoji.map((r) => [r.mode, r.status, r.warningCount]).sort(),
    [['async', 'succeeded', 1], ['sync', 'succeeded', 1]])
  for (const r of emoji) assert.deepEqual(r.warnings, ['1 character(s) no font has, drawn as boxes: U+1FAE8'])
  const text = await svc(['runs', 'list', '--workspace', ws.workspace.id, '--status', 'succeeded'], env)
  const lines = text.stdout.trim().split('\n')
  const column = (lines[0] ?? '').split(/\s+/).indexOf('WARNINGCOUNT')
  assert.ok(column > 0, lines[0])
  const counts = lines.slice(1).map((l) => [l.split(/\s+/)[3], l.split(/\s+/)[column]])
  assert.deepEqual(counts.sort(), [['emoji', '1'], ['emoji', '1'], ['invoice', '0'], ['invoice', '0']])
})
