// `svc webhooks …` end to end: the real bin/svc in child processes with --json parsed, a real
// database, a dispatcher running here, and `svc webhooks listen` as the HTTPS receiver.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { request } from 'node:https'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { kit, waitFor } from '../server/webhooks/helpers.js'
import type { Kit } from '../server/webhooks/helpers.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
let k: Kit
let listener: ChildProcess | undefined
const lines: any[] = [] // eslint-disable-line @typescript-eslint/no-explicit-any

// eslint-disable-next-line @typescript-eslint/no-explicit-any
interface Run { code: number, json: any, stdout: string, stderr: string }

function env (extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    SVC_HOME: k.home,
    SVC_DATABASE_URL: k.tdb.url,
    SVC_MASTER_KEY: k.config.masterKey,
    SVC_LOG_LEVEL: 'silent',
    SVC_WEBHOOKS_ALLOW_PRIVATE: 'true',
    ...extra
  }
}

async function svc (args: string[], options: { json?: boolean, env?: Record<string, string> } = {}): Promise<Run> {
  const argv = [join(root, 'bin', 'svc'), ...(options.json === false ? [] : ['--json']), ...args]
  return await new Promise((resolve) => {
    execFile(process.execPath, argv, { cwd: root, env: env(options.env) }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1
      let json: unknown
      try { json = JSON.parse(stdout) } catch { json = undefined }
      resolve({ code, json, stdout, stderr })
    })
  })
}

before(async () => { k = await kit() })
after(async () => {
  if (listener?.exitCode === null) listener.kill('SIGTERM')
  await k.close()
})

test('svc webhooks: create, list, show, test via `listen`, deliveries, redeliver, rotate, disable, enable, delete', async () => {
  listener = spawn(process.execPath, [join(root, 'bin', 'svc'), '--json', 'webhooks', 'listen', '--port', '0', '--secret', 'whsec_placeholder', '--cert', k.cert.certFile, '--key', k.cert.keyFile],
    { cwd: root, env: env(), stdio: ['ignore', 'pipe', 'pipe'] })
  let buffered = ''
  listener.stdout?.on('data', (c: Buffer) => {
    buffered += c.toString()
    let nl
    while ((nl = buffered.indexOf('\n')) >= 0) { lines.push(JSON.parse(buffered.slice(0, nl))); buffered = buffered.slice(nl + 1) }
  })
  const { listening } = await waitFor('listen to start', () => lines.find((l) => l.listening !== undefined), 15_000)
  assert.match(listening, /^https:\/\/127\.0\.0\.1:\d+\/$/)

  // Refusals: a private host without the development switch, unknown event types.
  const refused = await svc(['webhooks', 'create', '--workspace', k.workspaceId, '--url', 'https://10.0.0.8/h', '--events', 'document.generated'], { env: { SVC_WEBHOOKS_ALLOW_PRIVATE: 'false' } })
  assert.equal(refused.code, 1)
  assert.equal(refused.json.errorCode, 'WEBHOOK_URL_REFUSED')
  assert.equal(refused.json.status, 422)
  const badEvents = await svc(['webhooks', 'create', '--workspace', k.workspaceId, '--url', listening, '--events', 'document.generated,nope'])
  assert.equal(badEvents.code, 2)
  assert.equal(badEvents.json.errorCode, 'VALIDATION_FAILED')

  // Text mode prints the id and the secret, once.
  const text = await svc(['webhooks', 'create', '--workspace', k.workspaceId, '--url', listening, '--events', 'template.published'], { json: false })
  assert.equal(text.code, 0, text.stderr)
  assert.match(text.stdout, /^[0-9a-f-]{36}\nwhsec_[A-Za-z0-9]{32}\n/)

  const created = await svc(['webhooks', 'create', '--workspace', k.workspaceId, '--url', listening, '--events', 'document.generated,document.failed', '--description', 'cli test'])
  assert.equal(created.code, 0, created.stderr)
  const { id, secret } = created.json
  assert.match(secret, /^whsec_/)
  assert.deepEqual(created.json.events, ['document.generated', 'document.failed'])

  const list = await svc(['webhooks', 'list', '--workspace', k.workspaceId])
  assert.equal(list.json.length, 2)
  assert.ok(list.json.every((e: Record<string, unknown>) => e.secret === undefined), 'list never shows secrets')
  const shown = await svc(['webhooks', 'show', id, '--workspace', k.workspaceId])
  assert.equal(shown.json.description, 'cli test')
  assert.equal(shown.json.enabled, true)
  assert.equal(shown.json.secret, undefined)

  // Restart the listener with the real secret (it was started first to learn its URL).
  listener.kill('SIGTERM')
  await new Promise((resolve) => listener?.once('exit', resolve))
  const port = new URL(listening).port
  lines.length = 0
  buffered = ''
  listener = spawn(process.execPath, [join(root, 'bin', 'svc'), '--json', 'webhooks', 'listen', '--port', port, '--secret', secret, '--cert', k.cert.certFile, '--key', k.cert.keyFile],
    { cwd: root, env: env(), stdio: ['ignore', 'pipe', 'pipe'] })
  listener.stdout?.on('data', (c: Buffer) => {
    buffered += c.toString()
    let nl
    while ((nl = buffered.indexOf('\n')) >= 0) { lines.push(JSON.parse(buffered.slice(0, nl))); buffered = buffered.slice(nl + 1) }
  })
  await waitFor('listen to restart', () => lines.find((l) => l.listening !== undefined), 15_000)

  const d = k.dispatcher()
  d.start()
  const sent = await svc(['webhooks', 'test', id, '--workspace', k.workspaceId])
  assert.equal(sent.code, 0, sent.stderr)
  const seen = await waitFor('listen verified the test event', () => lines.find((l) => l.eventId === sent.json.eventId))
  assert.equal(seen.verified, true)
  assert.equal(seen.event, 'webhook.test')
  assert.equal(seen.delivery, sent.json.deliveryId)
  assert.equal(seen.body.data.webhookId, id)

  const deliveries = await waitFor('succeeded in the log', async () => {
    const r = await svc(['webhooks', 'deliveries', id, '--workspace', k.workspaceId, '--status', 'succeeded', '--limit', '5'])
    return r.json.length === 1 ? r.json : undefined
  })
  assert.equal(deliveries[0].id, sent.json.deliveryId)
  assert.equal(deliveries[0].eventId, sent.json.eventId)
  assert.equal(deliveries[0].attempts, 1)
  assert.equal(deliveries[0].lastHttpStatus, 200)
  assert.equal(deliveries[0].lastResponseExcerpt, '{"received":true}')
  assert.equal(deliveries[0].nextAttemptAt, null)

  const again = await svc(['webhooks', 'redeliver', sent.json.deliveryId, '--workspace', k.workspaceId])
  assert.equal(again.code, 0, again.stderr)
  assert.equal(again.json.eventId, sent.json.eventId)
  assert.notEqual(again.json.id, sent.json.deliveryId)
  await waitFor('redelivery verified', () => lines.find((l) => l.delivery === again.json.id && l.verified === true))

  // After a rotation the listener (still on the old secret) rejects with 400.
  const rotated = await svc(['webhooks', 'rotate-secret', id, '--workspace', k.workspaceId])
  assert.match(rotated.json.secret, /^whsec_/)
  assert.notEqual(rotated.json.secret, secret)
  const afterRotate = await svc(['webhooks', 'test', id, '--workspace', k.workspaceId])
  const rejected = await waitFor('listen rejected', () => lines.find((l) => l.eventId === afterRotate.json.eventId))
  assert.equal(rejected.verified, false)
  assert.equal(rejected.reason, 'no-matching-signature')
  const failed = await waitFor('failed with 400', async () => {
    const r = await svc(['webhooks', 'deliveries', id, '--workspace', k.workspaceId, '--status', 'failed'])
    return r.json[0]
  })
  assert.equal(failed.lastHttpStatus, 400)

  // A forged request straight to the listener is refused too.
  const forged = await new Promise<number>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: Number(port), path: '/', method: 'POST', ca: k.cert.cert, headers: { 'svc-signature': `t=${Math.floor(Date.now() / 1000)}, v1=${'0'.repeat(64)}` } }, (res) => { res.resume(); resolve(res.statusCode ?? 0) })
    req.on('error', reject)
    req.end('{}')
  })
  assert.equal(forged, 400)

  const disabled = await svc(['webhooks', 'disable', id, '--workspace', k.workspaceId])
  assert.equal(disabled.json.enabled, false)
  for (const args of [['webhooks', 'test', id, '--workspace', k.workspaceId], ['webhooks', 'redeliver', sent.json.deliveryId, '--workspace', k.workspaceId]]) {
    const r = await svc(args)
    assert.equal(r.code, 1, args.join(' '))
    assert.equal(r.json.errorCode, 'WEBHOOK_DISABLED')
    assert.equal(r.json.status, 409)
  }
  const plain = await svc(['webhooks', 'test', id, '--workspace', k.workspaceId], { json: false })
  assert.equal(plain.code, 1)
  assert.match(plain.stderr, /^error: WEBHOOK_DISABLED: /)
  const enabled = await svc(['webhooks', 'enable', id, '--workspace', k.workspaceId])
  assert.equal(enabled.json.enabled, true)
  // --workspace is checked: through another workspace the endpoint does not exist.
  const other = (await k.ctx.services.workspaces.create('other')).id
  assert.equal((await svc(['webhooks', 'show', id, '--workspace', other])).json.errorCode, 'WEBHOOK_NOT_FOUND')
  const deleted = await svc(['webhooks', 'delete', id, '--workspace', k.workspaceId])
  assert.equal(deleted.json.deleted, true)
  const gone = await svc(['webhooks', 'show', id, '--workspace', k.workspaceId])
  assert.equal(gone.code, 1)
  assert.equal(gone.json.errorCode, 'WEBHOOK_NOT_FOUND')
  await d.close()
})
