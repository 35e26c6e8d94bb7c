// Issue #5: a real `svc serve` process killed (SIGKILL) while a delivery is in flight, then a
// restarted real `svc serve` on the same database: once the dead process's lease expires the new
// process sends the delivery again — same delivery, same event id, signed (at least once). No
// dispatcher runs in this test process, so only the restarted child can complete it.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { leaseFor } from '../../../server/webhooks/dispatcher.js'
import { startChildServer } from '../../helpers/child-server.js'
import type { ChildServer } from '../../helpers/child-server.js'
import { expectedSignature, kit, parseSignature, startReceiver, waitFor } from './helpers.js'
import type { Kit, Receiver } from './helpers.js'

const TIMEOUT_MS = 1000
let k: Kit
let rx: Receiver
let home: string
let masterKey: string
const children: ChildServer[] = []

before(async () => {
  k = await kit({ SVC_WEBHOOK_TIMEOUT: `${TIMEOUT_MS}ms` })
  // The first attempt hangs (the process dies while waiting for it); later ones succeed.
  rx = await startReceiver(k.cert, (_r, n) => n === 0 ? 'hang' : { status: 200, body: 'ok' })
  home = await mkdtemp(join(tmpdir(), 'svc-wh-crash-'))
  if (k.config.masterKey === undefined) throw new Error('the kit sets a master key')
  masterKey = k.config.masterKey
})
after(async () => {
  for (const c of children) await c.kill('SIGKILL')
  await rx.close()
  await k.close()
  await rm(home, { recursive: true, force: true })
})

// Both processes share the database, the master key (the endpoint secret is sealed with it) and the home.
const childEnv = (): Record<string, string> => ({
  SVC_HOME: home,
  SVC_DATABASE_URL: k.tdb.url,
  SVC_MASTER_KEY: masterKey,
  SVC_LOG_LEVEL: 'error',
  SVC_JOBS: 'false',
  SVC_RENDER_THREADS: '1',
  SVC_WEBHOOKS_ALLOW_PRIVATE: 'true',
  SVC_WEBHOOK_CA_FILE: k.cert.certFile,
  SVC_WEBHOOK_TIMEOUT: `${TIMEOUT_MS}ms`,
  SVC_WEBHOOK_POLL: '100ms'
})

function assertSigned (secret: string, r: { headers: Record<string, unknown>, raw: Buffer }): void {
  const sig = parseSignature(r.headers['svc-signature'] as string)
  assert.equal(sig.v1, expectedSignature(secret, sig.t, r.raw), 'signature by the test\'s own HMAC')
}

test('killed mid-delivery: a restarted svc serve sends it again after the lease expires, same delivery and event id', async () => {
  const ep = await k.ctx.services.webhooks.create({ workspaceId: k.workspaceId, url: rx.url, events: ['document.generated'] })
  const firstChild = await startChildServer(childEnv())
  children.push(firstChild)

  const eventId = await k.ctx.services.outbox.append(k.tdb.db, { workspaceId: k.workspaceId, type: 'document.generated', data: { n: 1 } })
  const first = await waitFor('first attempt reaches the receiver', () => rx.received[0], 10_000)
  assert.equal(first.headers['svc-event-id'], eventId)
  assertSigned(ep.secret, first)
  const killedAt = Date.now()
  await firstChild.kill('SIGKILL')
  assert.equal(firstChild.process.signalCode, 'SIGKILL')

  const leased = (await k.ctx.services.webhooks.deliveries(k.workspaceId, ep.id))[0]
  assert.equal(leased?.id, first.headers['svc-delivery'])
  assert.equal(leased?.status, 'pending', 'the killed process recorded nothing')
  assert.equal(leased.attempts, 0)

  // A new server process on the same database; it claims the delivery once the lease runs out.
  const secondChild = await startChildServer(childEnv())
  children.push(secondChild)
  const second = await waitFor('the delivery again', () => rx.received[1], 20_000)
  const lease = leaseFor(TIMEOUT_MS)
  // The lease was taken just before the first attempt arrived: it cannot be claimed much earlier than first.at + lease.
  assert.ok(second.at - first.at >= lease - 500, `not before the lease expires (${second.at - first.at} ms after the first attempt, lease ${lease} ms)`)
  assert.ok(second.at >= killedAt)
  assert.equal(second.headers['svc-event-id'], eventId)
  assert.equal(second.headers['svc-delivery'], first.headers['svc-delivery'])
  assert.deepEqual(second.raw, first.raw, 'the same payload')
  assert.equal(second.json.id, eventId)
  assertSigned(ep.secret, second)

  const done = await waitFor('succeeded', async () => (await k.ctx.services.webhooks.deliveries(k.workspaceId, ep.id, { status: 'succeeded' }))[0])
  assert.equal(done.id, leased.id)
  assert.equal(done.attempts, 1, 'the interrupted attempt is not counted')
  assert.equal(secondChild.process.exitCode, null, 'the restarted process is still serving')
  assert.equal(rx.received.length, 2, 'sent exactly twice: once to the dead process, once after the restart')
})
