/* eslint-disable @typescript-eslint/no-explicit-any -- parsed CLI JSON under test */
// Master key rotation end to end: values sealed under an old key (one in the format from before
// key ids), a real server that renders with data sources and delivers signed webhooks while a
// real `svc secrets rotate` process re-seals everything, then a server with the old key removed,
// then a sealed value moved to another row.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createCipheriv, randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { RowDataPacket } from 'mysql2/promise'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { makeHome, startServer } from '../../helpers/server.js'
import type { TestServer } from '../../helpers/server.js'
import { bearer } from '../../helpers/fixtures.js'
import { createDataDatabase, dropDataDatabase, renderWorkspace } from '../../helpers/render-data.js'
import { createLogger } from '../../../server/logger.js'
import { createKeyring, keyIdOf } from '../../../server/secrets/keyring.js'
import { makeCert, startReceiver, expectedSignature, parseSignature, waitFor } from '../webhooks/helpers.js'
import type { Cert, Receiver } from '../webhooks/helpers.js'

const root = fileURLToPath(new URL('../../../../', import.meta.url))
const oldKey = randomBytes(32)
const newKey = randomBytes(32)
const hex = (k: Buffer): string => k.toString('hex')
let database: TestDatabase
let dataName: string
let cert: Cert
let receiver: Receiver
let home: string
let server: TestServer | undefined
let ws: Awaited<ReturnType<typeof renderWorkspace>>
let secret: string
const ENVS = ['development', 'staging', 'production']

const webhookEnv = (): Record<string, string> => ({ SVC_WEBHOOKS_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_CA_FILE: cert.certFile, SVC_WEBHOOK_POLL: '100ms' })

function svc (args: string[], env: Record<string, string>): Promise<{ code: number, json: any, stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(root, 'bin', 'svc'), '--json', ...args], {
      cwd: root,
      env: { ...process.env, SVC_HOME: home, SVC_DATABASE_URL: database.url, SVC_LOG_LEVEL: 'silent', SVC_MASTER_KEY: '', ...env }
    }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : (err as { code?: number }).code ?? 1, json: stdout.trim() === '' ? undefined : JSON.parse(stdout), stderr })
    })
  })
}

before(async () => {
  cert = await makeCert()
  receiver = await startReceiver(cert)
  database = await createTestDatabase('rot')
  dataName = `${database.name}_data`
  const dataUrl = await createDataDatabase(dataName)
  home = await makeHome()
  // The past: everything sealed under the old key alone.
  server = await startServer(database.url, { SVC_MASTER_KEY: hex(oldKey), ...webhookEnv() }, home)
  ws = await renderWorkspace(server.context, dataUrl)
  secret = (await server.context.services.webhooks.create({ workspaceId: ws.workspace.id, url: receiver.url, events: ['document.generated'] })).secret
  await server.close()
  server = undefined
  // …and staging's password as it was stored before key ids: iv | tag | ciphertext, no row binding.
  const [rows] = await database.db.query<RowDataPacket[]>("SELECT id, ds_password_enc FROM environments WHERE env_key = 'staging'")
  const plain = createKeyring([oldKey]).open(rows[0]?.ds_password_enc, { table: 'environments', column: 'ds_password_enc', id: rows[0]?.id })
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', oldKey, iv)
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  await database.db.execute('UPDATE environments SET ds_password_enc = ? WHERE id = ?', [Buffer.concat([iv, cipher.getAuthTag(), body]), rows[0]?.id])
})
after(async () => {
  await server?.close()
  await receiver.close()
  await database.drop()
  await dropDataDatabase(dataName)
})

async function render (environment: string, correlationId: string): Promise<number> {
  const res = await (server as TestServer).fetch('POST', '/api/v1/render', {
    headers: { ...bearer(ws.key.key), 'x-correlation-id': correlationId },
    body: { template: 'invoice', environment, parameters: { invoiceId: 1 } }
  })
  return res.status
}

async function deliveredAndSigned (correlationIds: string[]): Promise<void> {
  for (const id of correlationIds) {
    const r = await waitFor(`event of ${id}`, () => receiver.received.find((x) => x.json?.data?.correlationId === id))
    const { t, v1 } = parseSignature(r.headers['svc-signature'])
    assert.equal(v1, expectedSignature(secret, t, r.raw), `signature of ${id}`)
  }
}

test('rotation while a server renders and delivers: nothing fails; then the old key goes and everything opens', async () => {
  const both = { SVC_MASTER_KEYS: `${hex(newKey)},${hex(oldKey)}` }
  server = await startServer(database.url, { ...both, ...webhookEnv() }, home)
  const before = await svc(['secrets', 'status'], both)
  assert.equal(before.code, 0, before.stderr)
  const count = (s: any, keyId: string): number =>
    s.counts.filter((c: any) => c.keyId === keyId).reduce((n: number, c: any) => n + c.values, 0)
  assert.equal(count(before.json, hex(keyIdOf(oldKey))), 3, 'two environments and the endpoint under the old key')
  assert.equal(count(before.json, 'legacy'), 1)

  let rotating = true
  const statuses: number[] = []
  const ids: string[] = []
  const load = (async () => {
    // `rotating` is changed by another async task.
    // eslint-disable-next-line no-unmodified-loop-condition, @typescript-eslint/no-unnecessary-condition
    for (let i = 0; rotating || i < 6; i++) {
      const id = `during-${i}`
      ids.push(id)
      statuses.push(await render(ENVS[i % 3]!, id))
    }
  })()
  const revisions = async (): Promise<number> =>
    Number((await database.db.query<RowDataPacket[]>('SELECT SUM(render_revision) AS n FROM workspaces'))[0][0]?.n)
  const revisionsBefore = await revisions()
  const rotated = await svc(['secrets', 'rotate', '--batch-size', '1'], both)
  rotating = false
  await load
  assert.equal(rotated.code, 0, rotated.stderr)
  assert.deepEqual(
    { resealed: rotated.json.resealed, unreadable: rotated.json.unreadable },
    { resealed: 4, unreadable: [] }
  )
  // Each re-sealed data-source password moved its workspace's render revision (held resolutions
  // of other processes are read again); the webhook secret is not part of a render's resolution.
  assert.equal(await revisions() - revisionsBefore, 3)
  assert.deepEqual(new Set(statuses), new Set([200]), 'every render during the rotation succeeded')
  await deliveredAndSigned(ids)
  const after = await svc(['secrets', 'status'], both)
  assert.equal(count(after.json, hex(keyIdOf(newKey))), 4)
  assert.equal(after.json.counts.length, 2, 'one row per sealed column, all under the new key')
  const again = await svc(['secrets', 'rotate'], both)
  assert.equal(again.json.resealed, 0, 'a second run has nothing left to do')
  await server.close()

  // The old key removed: a fresh server opens every password and signs with the same secret.
  server = await startServer(database.url, { SVC_MASTER_KEY: hex(newKey), ...webhookEnv() }, home)
  for (const env of ENVS) assert.equal(await render(env, `after-${env}`), 200, env)
  await deliveredAndSigned(ENVS.map((e) => `after-${e}`))
  await server.close()
  server = undefined
})

test('a sealed value copied to another row does not open: 503 for that environment, a clear log line, no crash', async () => {
  const logFile = join(home, 'moved.log')
  const logger = createLogger({ logLevel: 'info', logFile })
  server = await startServer(database.url, { SVC_MASTER_KEY: hex(newKey), ...webhookEnv() }, home, undefined, {
    logger
  })
  const [rows] = await database.db.query<RowDataPacket[]>('SELECT id, env_key, ds_password_enc FROM environments WHERE workspace_id = ?', [ws.workspace.id])
  const byKey = Object.fromEntries(rows.map((r) => [r.env_key, r]))
  await database.db.execute('UPDATE environments SET ds_password_enc = ?, ds_version = ds_version + 1 WHERE id = ?',
    [byKey.production.ds_password_enc, byKey.development.id])
  const res = await server.fetch('POST', '/api/v1/render', { headers: bearer(ws.key.key), body: { template: 'invoice', environment: 'development', parameters: { invoiceId: 1 } } })
  assert.equal(res.status, 503)
  assert.equal(res.json().errorCode, 'DATA_SOURCE_UNAVAILABLE')
  assert.equal(await render('production', 'still-fine'), 200, 'the process and the other environments carry on')
  // Its event reaches the receiver before the count below is taken (it would land inside it otherwise).
  await deliveredAndSigned(['still-fine'])
  await new Promise<void>((resolve, reject) => {
    logger.flush((err) => {
      // The callback passes null or undefined for no error.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (err !== undefined && err !== null) reject(err)
      else resolve()
    })
  })
  const lines = (await readFile(logFile, 'utf8')).trim().split('\n').map((l) => JSON.parse(l))
  const line = lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('sealed environments.ds_password_enc'))
  assert.ok(line !== undefined, 'a log line says which sealed value failed')
  assert.equal(line.level, 50)
  assert.match(line.msg, new RegExp(`of row ${byKey.development.id} cannot be opened: it does not belong to this row`))
  assert.equal(line.environment, 'development')

  // The same for a webhook signing secret: the delivery records a failed attempt, nothing is sent.
  const wh = server.context.services.webhooks
  const [first] = await wh.list(ws.workspace.id)
  const second = await wh.create({ workspaceId: ws.workspace.id, url: receiver.url, events: ['template.published'] })
  await database.db.execute('UPDATE webhook_endpoints SET secret_enc = (SELECT s FROM (SELECT secret_enc AS s FROM webhook_endpoints WHERE id = ?) x) WHERE id = ?', [first!.id, second.id])
  const received = receiver.received.length
  const sent = await wh.test(ws.workspace.id, second.id)
  const attempt = await waitFor('failed attempt', async () => {
    const d = await wh.delivery(ws.workspace.id, sent.deliveryId)
    return d.attempts > 0 ? d : undefined
  })
  assert.equal(attempt.status, 'failed')
  assert.equal(attempt.lastError, 'signing secret cannot be opened (see the server log)')
  assert.equal(receiver.received.length, received, 'nothing was sent unsigned or wrongly signed')
  await new Promise<void>((resolve, reject) => {
    logger.flush((err) => {
      // The callback passes null or undefined for no error.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (err !== undefined && err !== null) reject(err)
      else resolve()
    })
  })
  const after = (await readFile(logFile, 'utf8')).trim().split('\n').map((l) => JSON.parse(l))
  assert.ok(after.some((l) => l.endpoint === second.id && String(l.msg).startsWith(`sealed webhook_endpoints.secret_enc of row ${second.id} cannot be opened`)))
})
