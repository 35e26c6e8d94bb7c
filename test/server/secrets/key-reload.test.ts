/* eslint-disable @typescript-eslint/no-explicit-any -- parsed CLI and API JSON under test */
// Issue 30, finding 9: after `svc secrets add-key`, servers that are already running open values
// sealed under the new key (a data source set, a webhook endpoint created by the CLI) without a
// restart; a document link signed under the new key by one server is accepted by another that
// had not read it yet; a key removed from the keyring file is dropped on reload; `svc serve`
// reloads on SIGHUP.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { makeHome, startServer } from '../../helpers/server.js'
import { startChildServer } from '../../helpers/child-server.js'
import { Agent, request } from 'undici'
import type { TestServer } from '../../helpers/server.js'
import { bearer } from '../../helpers/fixtures.js'
import { createDataDatabase, dropDataDatabase, renderWorkspace } from '../../helpers/render-data.js'
import { keyIdOf } from '../../../server/secrets/keyring.js'
import { writeKeyringFile } from '../../../server/secrets/load.js'
import { makeCert, startReceiver, expectedSignature, parseSignature, waitFor } from '../webhooks/helpers.js'
import type { Cert, Receiver } from '../webhooks/helpers.js'

const root = fileURLToPath(new URL('../../../../', import.meta.url))
const oldKey = randomBytes(32)
const hex = (k: Buffer): string => k.toString('hex')
let database: TestDatabase
let dataName: string
let dataUrl: string
let cert: Cert
let receiver: Receiver
let home: string
let a: TestServer
let b: TestServer
let ws: Awaited<ReturnType<typeof renderWorkspace>>

// Keys from the keyring file in SVC_HOME, as `svc secrets add-key` writes it (no SVC_MASTER_KEY).
const fromFile = { SVC_MASTER_KEY: '', SVC_WEBHOOKS_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_POLL: '100ms' }

function svc (args: string[]): Promise<{ code: number, json: any, stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(root, 'bin', 'svc'), '--json', ...args], {
      cwd: root,
      env: {
        ...process.env,
        SVC_HOME: home,
        SVC_DATABASE_URL: database.url,
        SVC_LOG_LEVEL: 'silent',
        SVC_MASTER_KEY: '',
        SVC_MASTER_KEYS: '',
        SVC_WEBHOOKS_ALLOW_PRIVATE: 'true'
      }
    }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : (err as { code?: number }).code ?? 1, json: stdout.trim() === '' ? undefined : JSON.parse(stdout), stderr })
    })
  })
}

before(async () => {
  cert = await makeCert()
  receiver = await startReceiver(cert)
  database = await createTestDatabase('rel')
  dataName = `${database.name}_data`
  dataUrl = await createDataDatabase(dataName)
  home = await makeHome()
  await writeKeyringFile(home, [oldKey])
  const env = { ...fromFile, SVC_WEBHOOK_CA_FILE: cert.certFile }
  a = await startServer(database.url, env, home)
  // B only serves the document link below, and must not have met the new key before it: without
  // its own webhook dispatcher and job runner (either could open the endpoint's secret, sealed
  // under the new key, and read the keyring first; CI saw B's dispatcher win that race once).
  b = await startServer(database.url, { ...env, SVC_WEBHOOKS: 'false', SVC_JOBS: 'false' }, home)
  ws = await renderWorkspace(a.context, dataUrl)
})
after(async () => {
  await a.close()
  await b.close()
  await receiver.close()
  await database.drop()
  await dropDataDatabase(dataName)
})

const render = (server: TestServer, environment: string, extra: Record<string, unknown> = {}) =>
  server.fetch('POST', '/api/v1/render', {
    headers: { ...bearer(ws.key.key), 'x-correlation-id': `reload-${environment}-${randomBytes(4).toString('hex')}` },
    body: { template: 'invoice', environment, parameters: { invoiceId: 1 }, ...extra }
  })

test('a key added by svc secrets add-key opens values sealed under it on servers already running', async () => {
  assert.equal((await render(a, 'staging')).status, 200)
  assert.deepEqual(a.context.box.ids, [hex(keyIdOf(oldKey))])

  const added = await svc(['secrets', 'add-key'])
  assert.equal(added.code, 0, added.stderr)
  const newId: string = added.json.keyId
  // The CLI seals under the new key: a data source set, a webhook endpoint created.
  const set = await svc(['envs', 'set-datasource', '--workspace', ws.workspace.id, '--key', 'staging', '--datasource', dataUrl])
  assert.equal(set.code, 0, set.stderr)
  const created = await svc(['webhooks', 'create', '--workspace', ws.workspace.id, '--url', receiver.url, '--events', 'document.generated'])
  assert.equal(created.code, 0, created.stderr)
  const status = await svc(['secrets', 'status'])
  const underNew = status.json.counts.filter((c: any) => c.keyId === newId).map((c: any) => `${c.table as string}:${c.values as number}`)
  assert.deepEqual(underNew.sort(), ['environments:1', 'webhook_endpoints:1'])

  // Server A meets the staging password sealed under a key it did not have: it reads the file again.
  const res = await render(a, 'staging')
  assert.equal(res.status, 200, res.text())
  assert.equal(a.context.box.activeId, newId)
  // The render's event is delivered, signed with the secret sealed under the new key.
  const correlationId = res.headers['x-correlation-id'] as string
  const got = await waitFor('signed delivery', () => receiver.received.find((r) => r.json?.data?.correlationId === correlationId))
  const { t, v1 } = parseSignature(got.headers['svc-signature'])
  assert.equal(v1, expectedSignature(created.json.secret, t, got.raw))

  // A document link minted by A (now under the new key) works on B, which had not read the key.
  assert.deepEqual(b.context.box.ids, [hex(keyIdOf(oldKey))])
  const job = (await render(a, 'production', { async: true })).json()
  const done = await waitFor('job', async () => {
    const j = (await a.fetch('GET', `/api/v1/jobs/${job.jobId as string}`, { headers: bearer(ws.key.key) })).json()
    return j.status === 'succeeded' ? j : undefined
  })
  const link = new URL(done.documentUrl as string)
  const doc = await b.fetch('GET', link.pathname)
  assert.equal(doc.status, 200)
  assert.equal(doc.headers['content-type'], 'application/pdf')
  assert.equal(b.context.box.activeId, newId)
})

test('a key removed from the keyring file is dropped on reload (what SIGHUP does)', async () => {
  const rotated = await svc(['secrets', 'rotate'])
  assert.equal(rotated.code, 0, rotated.stderr)
  const removed = await svc(['secrets', 'remove-key', hex(keyIdOf(oldKey))])
  assert.equal(removed.code, 0, removed.stderr)
  assert.equal(a.context.box.reload(), true)
  assert.deepEqual(a.context.box.ids, [a.context.box.activeId])
  assert.equal(a.context.box.reload(), false, 'an unchanged file is not read again')
  assert.equal((await render(a, 'development')).status, 200, 'values re-sealed under the new key open')
})

test('svc serve reads the keyring file again on SIGHUP, and keeps serving', async () => {
  const child = await startChildServer({ SVC_HOME: home, SVC_DATABASE_URL: database.url, SVC_LOG_LEVEL: 'info' })
  let log = ''
  child.process.stdout?.on('data', (chunk: Buffer) => { log += chunk.toString() })
  try {
    const added = await svc(['secrets', 'add-key'])
    assert.equal(added.code, 0, added.stderr)
    child.process.kill('SIGHUP')
    const line = await waitFor('the SIGHUP log line', () => log.split('\n').filter((l) => l.includes('SIGHUP')).map((l) => JSON.parse(l))[0])
    assert.equal(line.changed, true)
    assert.equal(line.keyIds[0], added.json.keyId)
    const health = await request(`${child.url}/healthz`, { dispatcher: new Agent({ connect: { rejectUnauthorized: false } }) })
    assert.equal(health.statusCode, 200, 'still serving')
    await health.body.dump()
  } finally {
    await child.kill('SIGTERM')
  }
})
