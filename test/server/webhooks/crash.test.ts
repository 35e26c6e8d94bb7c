// A real `svc serve` process killed (SIGKILL) while a delivery is in flight: the delivery's lease
// expires and a new dispatcher sends it again — same delivery, same event id (at least once).
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { kit, startReceiver, waitFor } from './helpers.js'
import type { Kit, Receiver } from './helpers.js'

const root = new URL('../../../../', import.meta.url).pathname
let k: Kit
let rx: Receiver
let child: ChildProcess | undefined
let home: string

before(async () => {
  k = await kit({ SVC_WEBHOOK_TIMEOUT: '1s' })
  rx = await startReceiver(k.cert, (_r, n) => n === 0 ? 'hang' : { status: 200, body: 'ok' })
  home = await mkdtemp(join(tmpdir(), 'svc-wh-crash-'))
})
after(async () => {
  if (child?.exitCode === null) child.kill('SIGKILL')
  await rx.close()
  await k.close()
  await rm(home, { recursive: true, force: true })
})

test('killed mid-delivery: sent again after the lease expires, same delivery and event id', async () => {
  const ep = await k.ctx.services.webhooks.create({ workspaceId: k.workspaceId, url: rx.url, events: ['document.generated'] })
  child = spawn(process.execPath, [join(root, 'bin/svc'), 'serve', '--port', '0'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      SVC_HOME: home,
      SVC_DATABASE_URL: k.tdb.url,
      SVC_MASTER_KEY: k.config.masterKey,
      SVC_LOG_LEVEL: 'error',
      SVC_JOBS: 'false',
      SVC_RENDER_THREADS: '1',
      SVC_WEBHOOKS_ALLOW_PRIVATE: 'true',
      SVC_WEBHOOK_CA_FILE: k.cert.certFile,
      SVC_WEBHOOK_TIMEOUT: '1s',
      SVC_WEBHOOK_POLL: '100ms'
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  child.stdout?.on('data', (c: Buffer) => { output += c.toString() })
  child.stderr?.on('data', (c: Buffer) => { output += c.toString() })
  await waitFor('server listening', () => output.includes('svc listening'), 30_000)

  const eventId = await k.ctx.services.outbox.append(k.tdb.db, { workspaceId: k.workspaceId, type: 'document.generated', data: { n: 1 } })
  const first = await waitFor('first attempt reaches the receiver', () => rx.received[0], 10_000)
  const killedAt = Date.now()
  child.kill('SIGKILL')
  await new Promise((resolve) => child?.once('exit', resolve))

  const leased = (await k.ctx.services.webhooks.deliveries(ep.id))[0]
  assert.equal(leased.status, 'pending', 'the killed process recorded nothing')
  assert.equal(leased.attempts, 0)

  // A new process (here: a dispatcher in this one) takes it over once the lease (3 × 1 s + 1 s) expires.
  const d = k.dispatcher({}, { SVC_WEBHOOK_TIMEOUT: '1s' })
  d.start()
  const second = await waitFor('the delivery again', () => rx.received[1], 15_000)
  assert.ok(second.at - killedAt >= 2000, `not before the lease expires (${second.at - killedAt} ms)`)
  assert.equal(second.headers['svc-event-id'], eventId)
  assert.equal(second.headers['svc-delivery'], first.headers['svc-delivery'])
  assert.deepEqual(second.raw, first.raw)
  const done = await waitFor('succeeded', async () => (await k.ctx.services.webhooks.deliveries(ep.id, { status: 'succeeded' }))[0])
  assert.equal(done.id, leased.id)
  assert.equal(done.attempts, 1, 'the interrupted attempt is not counted')
  await d.close()
})
