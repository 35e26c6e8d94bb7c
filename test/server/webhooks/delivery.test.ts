// End to end over real HTTPS on loopback: headers, signature (checked with the test's own HMAC),
// envelope, fan-out by subscription, retries to `abandoned`, redelivery, rotation, disabled
// endpoints, and template.published from a real publish.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import type { RowDataPacket } from 'mysql2/promise'
import { isProblem } from '../../../server/errors.js'
import { transaction } from '../../../server/store/db.js'
import { expectedSignature, kit, makeCert, parseSignature, startReceiver, waitFor } from './helpers.js'
import type { Cert, Kit, Receiver } from './helpers.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

let cert: Cert
before(async () => { cert = await makeCert() })

async function rows (k: Kit, sql: string, params: unknown[] = []): Promise<RowDataPacket[]> {
  const [r] = await k.tdb.db.query<RowDataPacket[]>(sql, params)
  return r
}

describe('signed delivery', () => {
  let k: Kit
  let rx: Receiver
  before(async () => { k = await kit({}, cert); rx = await startReceiver(cert) })
  after(async () => { await rx.close(); await k.close() })

  test('exactly the Part 6 headers, a signature that our own HMAC reproduces, the envelope', async () => {
    const ep = await k.ctx.services.webhooks.create({ workspaceId: k.workspaceId, url: rx.url, events: ['document.generated'], description: 'headers' })
    assert.match(ep.secret, /^whsec_[A-Za-z0-9]{32}$/)
    const d = k.dispatcher()
    d.start()
    const data = { template: 'invoice', version: 3, pageCount: 1, note: 'ünïcödé ✓' }
    const eventId = await transaction(k.tdb.db, (_conn, tx) => k.ctx.services.outbox.append(tx, { workspaceId: k.workspaceId, type: 'document.generated', data }))
    const got = await waitFor('the delivery', () => rx.received.find((r) => r.headers['svc-event-id'] === eventId))
    const h = got.headers
    assert.equal(h['content-type'], 'application/json')
    assert.equal(h['user-agent'], 'Svc-Webhooks/1.0')
    assert.equal(h['svc-event'], 'document.generated')
    assert.equal(h['svc-event-id'], eventId)
    assert.match(String(h['svc-delivery']), UUID)
    // Nothing beyond the Part 6 set and what HTTP/1.1 itself needs.
    const extra = Object.keys(h).filter((n) => !['content-type', 'user-agent', 'svc-event', 'svc-event-id', 'svc-delivery', 'svc-signature', 'host', 'content-length', 'connection'].includes(n))
    assert.deepEqual(extra, [])
    const sig = parseSignature(h['svc-signature'])
    assert.ok(Math.abs(Number(sig.t) - Date.now() / 1000) < 10)
    assert.equal(sig.v1, expectedSignature(ep.secret, sig.t, got.raw))
    assert.notEqual(sig.v1, expectedSignature(ep.secret.slice('whsec_'.length), sig.t, got.raw), 'the key includes whsec_')
    assert.deepEqual(Object.keys(got.json).sort(), ['createdAt', 'data', 'id', 'type', 'workspaceId'])
    assert.equal(got.json.id, eventId)
    assert.equal(got.json.type, 'document.generated')
    assert.equal(got.json.workspaceId, k.workspaceId)
    assert.match(got.json.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    assert.deepEqual(got.json.data, data)
    const [delivery] = await waitFor('succeeded', async () => {
      const list = await k.ctx.services.webhooks.deliveries(k.workspaceId, ep.id)
      return list[0]?.status === 'succeeded' ? list : undefined
    })
    assert.equal(delivery?.id, h['svc-delivery'])
    assert.equal(delivery?.attempts, 1)
    assert.equal(delivery.lastHttpStatus, 200)
    assert.equal(delivery.lastResponseExcerpt, '{"ok":true}')
    assert.equal(delivery.nextAttemptAt, null)
    const one = await k.ctx.services.webhooks.delivery(k.workspaceId, delivery.id)
    assert.equal(one.attemptLog.length, 1)
    assert.equal(one.attemptLog[0]?.httpStatus, 200)
    await k.ctx.services.webhooks.delete(k.workspaceId, ep.id)
  })

  test('fan-out: one delivery per enabled subscribed endpoint of the workspace, nothing to others', async () => {
    const rx2 = await startReceiver(cert)
    const rx3 = await startReceiver(cert)
    try {
      const a = await k.ctx.services.webhooks.create({ workspaceId: k.workspaceId, url: rx2.url, events: ['document.failed', 'document.generated'] })
      const b = await k.ctx.services.webhooks.create({ workspaceId: k.workspaceId, url: rx3.url, events: ['template.published'] })
      const other = (await k.ctx.services.workspaces.create('other')).id
      const c = await k.ctx.services.webhooks.create({ workspaceId: other, url: rx3.url, events: ['document.failed'] })
      assert.equal(await k.ctx.services.outbox.hasSubscriber(k.workspaceId, 'document.failed'), true)
      assert.equal(await k.ctx.services.outbox.hasSubscriber(other, 'template.published'), false)
      const d = k.dispatcher()
      d.start()
      const id = await k.ctx.services.outbox.append(k.tdb.db, { workspaceId: k.workspaceId, type: 'document.failed', data: { errorCode: 'RENDER_FAILED' } })
      await waitFor('delivery to a', () => rx2.received.some((r) => r.json?.id === id))
      await new Promise((resolve) => setTimeout(resolve, 400))
      assert.equal(rx3.received.length, 0, 'not subscribed / other workspace')
      assert.equal(rx2.received.filter((r) => r.json?.id === id).length, 1)
      assert.equal((await rows(k, 'SELECT fanned_out FROM events WHERE id = ?', [id]))[0]?.fanned_out, 1)
      for (const e of [a, b, c]) await k.ctx.services.webhooks.delete(e.workspaceId, e.id)
    } finally { await rx2.close(); await rx3.close() }
  })

  test('the claim walks an index in ORDER BY order: no filesort', async () => {
    const plan = await rows(k, `EXPLAIN SELECT seq, UTC_TIMESTAMP(3) AS now FROM webhook_deliveries FORCE INDEX (ix_deliveries_next)
      WHERE next_attempt_at <= UTC_TIMESTAMP(3) ORDER BY next_attempt_at LIMIT 16 FOR UPDATE SKIP LOCKED`)
    assert.equal(plan[0]?.key, 'ix_deliveries_next')
    assert.doesNotMatch(String(plan[0].Extra), /filesort/i)
    const fan = await rows(k, 'EXPLAIN SELECT seq, id, workspace_id, type FROM events WHERE fanned_out = 0 ORDER BY seq LIMIT 500 FOR UPDATE SKIP LOCKED')
    assert.doesNotMatch(String(fan[0]?.Extra), /filesort/i)
  })
})

describe('retries, redelivery, rotation, disabled endpoints', () => {
  let k: Kit
  before(async () => { k = await kit({ SVC_WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms' }, cert) })
  after(async () => { await k.close() })

  test('a failing endpoint gets 6 attempts on the compressed schedule, then abandoned; each attempt recorded', async () => {
    const rx = await startReceiver(cert, (_r, n) => n === 2 ? 'hang' : { status: 503, body: 'x'.repeat(5000) })
    try {
      const ep = await k.ctx.services.webhooks.create({ workspaceId: k.workspaceId, url: rx.url, events: ['document.failed'] })
      const d = k.dispatcher({}, { SVC_WEBHOOK_TIMEOUT: '300ms' })
      d.start()
      const id = await k.ctx.services.outbox.append(k.tdb.db, { workspaceId: k.workspaceId, type: 'document.failed', data: {} })
      const [del] = await waitFor('abandoned', async () => {
        const list = await k.ctx.services.webhooks.deliveries(k.workspaceId, ep.id, { status: 'abandoned' })
        return list.length === 1 ? list : undefined
      }, 20_000)
      assert.equal(del?.eventId, id)
      assert.equal(del.attempts, 6)
      assert.equal(del.lastHttpStatus, 503)
      assert.equal(del.lastResponseExcerpt?.length, 1024, 'excerpt capped at 1 KiB')
      assert.equal(del.nextAttemptAt, null)
      await new Promise((resolve) => setTimeout(resolve, 600))
      assert.equal(rx.received.length, 6, 'no 7th attempt')
      assert.ok(rx.received.every((r) => r.headers['svc-event-id'] === id && r.headers['svc-delivery'] === del.id))
      // Spacing follows the schedule (200 ms), not faster.
      for (let i = 1; i < 6; i++) assert.ok(rx.received[i]!.at - rx.received[i - 1]!.at >= 180, `gap ${i}`)
      const log = (await k.ctx.services.webhooks.delivery(k.workspaceId, del.id)).attemptLog
      assert.deepEqual(log.map((a) => a.attempt), [1, 2, 3, 4, 5, 6])
      assert.equal(log[2]?.httpStatus, null)
      assert.match(String(log[2].error), /timeout/i)
      assert.ok(log.filter((a) => a.attempt !== 3).every((a) => a.httpStatus === 503))
      await d.close()
      await k.ctx.services.webhooks.delete(k.workspaceId, ep.id)
    } finally { await rx.close() }
  })

  test('a failure then a 2xx: failed then succeeded with the next attempt', async () => {
    const rx = await startReceiver(cert, (_r, n) => n === 0 ? { status: 500, body: 'boom' } : { status: 204 })
    try {
      const ep = await k.ctx.services.webhooks.create({ workspaceId: k.workspaceId, url: rx.url, events: ['document.failed'] })
      const d = k.dispatcher()
      d.start()
      await k.ctx.services.outbox.append(k.tdb.db, { workspaceId: k.workspaceId, type: 'document.failed', data: {} })
      const failed = await waitFor('failed', async () => (await k.ctx.services.webhooks.deliveries(k.workspaceId, ep.id, { status: 'failed' }))[0], 5000, 10)
      assert.equal(failed.attempts, 1)
      assert.equal(failed.lastHttpStatus, 500)
      assert.equal(failed.lastResponseExcerpt, 'boom')
      assert.notEqual(failed.nextAttemptAt, null)
      const ok = await waitFor('succeeded', async () => (await k.ctx.services.webhooks.deliveries(k.workspaceId, ep.id, { status: 'succeeded' }))[0])
      assert.equal(ok.attempts, 2)
      assert.equal(ok.lastHttpStatus, 204)
      await d.close()
      await k.ctx.services.webhooks.delete(k.workspaceId, ep.id)
    } finally { await rx.close() }
  })

  test('redelivery: new delivery id, same event id and same body; rotation: the old secret stops signing at once', async () => {
    const rx = await startReceiver(cert)
    try {
      const ep = await k.ctx.services.webhooks.create({ workspaceId: k.workspaceId, url: rx.url, events: ['template.published'] })
      const d = k.dispatcher()
      d.start()
      const id = await k.ctx.services.outbox.append(k.tdb.db, { workspaceId: k.workspaceId, type: 'template.published', data: { version: 1 } })
      const first = await waitFor('first', () => rx.received.find((r) => r.json?.id === id))
      const delivered = (await k.ctx.services.webhooks.deliveries(k.workspaceId, ep.id))[0]
      const rotated = await k.ctx.services.webhooks.rotateSecret(k.workspaceId, ep.id)
      assert.notEqual(rotated.secret, ep.secret)
      const again = await k.ctx.services.webhooks.redeliver(k.workspaceId, delivered!.id)
      assert.notEqual(again.id, delivered?.id)
      assert.equal(again.eventId, id)
      assert.equal(again.status, 'pending')
      const second = await waitFor('redelivery', () => rx.received.find((r) => r.headers['svc-delivery'] === again.id))
      assert.equal(second.headers['svc-event-id'], id)
      assert.deepEqual(second.raw, first.raw, 'same bytes')
      const sig = parseSignature(second.headers['svc-signature'])
      assert.equal(sig.v1, expectedSignature(rotated.secret, sig.t, second.raw))
      assert.notEqual(sig.v1, expectedSignature(ep.secret, sig.t, second.raw), 'old secret no longer signs')
      await d.close()
      await k.ctx.services.webhooks.delete(k.workspaceId, ep.id)
    } finally { await rx.close() }
  })

  test('disabled: nothing is sent, test and redeliver answer 409 WEBHOOK_DISABLED; enabling resumes waiting deliveries', async () => {
    const rx = await startReceiver(cert)
    try {
      const ep = await k.ctx.services.webhooks.create({ workspaceId: k.workspaceId, url: rx.url, events: ['document.generated'] })
      const d = k.dispatcher()
      d.start()
      const t = await k.ctx.services.webhooks.test(k.workspaceId, ep.id)
      await waitFor('test event', () => rx.received.find((r) => r.headers['svc-delivery'] === t.deliveryId))
      // webhook.test arrives though the endpoint does not subscribe to it.
      assert.equal(rx.received[0]?.headers['svc-event'], 'webhook.test')
      assert.equal(rx.received[0].json.data.webhookId, ep.id)
      await d.close()

      await k.ctx.services.webhooks.disable(k.workspaceId, ep.id)
      for (const call of [
        () => k.ctx.services.webhooks.test(k.workspaceId, ep.id),
        () => k.ctx.services.webhooks.redeliver(k.workspaceId, t.deliveryId)
      ]) {
        await assert.rejects(
          call(),
          (err: unknown) => isProblem(err) && err.code === 'WEBHOOK_DISABLED' && err.status === 409
        )
      }
      // Made before the disable but not yet sent: it waits.
      const pendingId = (await rows(k, "SELECT d.id FROM webhook_deliveries d WHERE d.endpoint_id = ? AND d.status = 'succeeded'", [ep.id]))[0]?.id
      await rows(k, "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = UTC_TIMESTAMP(3) WHERE id = ?", [pendingId])
      const during = await k.ctx.services.outbox.append(k.tdb.db, { workspaceId: k.workspaceId, type: 'document.generated', data: {} })
      assert.equal(await k.ctx.services.outbox.hasSubscriber(k.workspaceId, 'document.generated'), false)
      const d2 = k.dispatcher()
      d2.start()
      await waitFor('fanned out', async () => (await rows(k, 'SELECT fanned_out FROM events WHERE id = ?', [during]))[0]?.fanned_out === 1)
      await new Promise((resolve) => setTimeout(resolve, 500))
      assert.equal(rx.received.length, 1, 'a disabled endpoint receives nothing')
      assert.equal((await rows(k, 'SELECT COUNT(*) AS n FROM webhook_deliveries WHERE event_id = ?', [during]))[0]?.n, 0)
      const parked = await k.ctx.services.webhooks.delivery(k.workspaceId, pendingId)
      assert.equal(parked.status, 'failed')
      assert.equal(parked.nextAttemptAt, null)

      const enabled = await k.ctx.services.webhooks.enable(k.workspaceId, ep.id)
      assert.equal(enabled.resumedDeliveries, 1)
      await waitFor('resumed delivery', () => rx.received.length === 2)
      assert.equal(rx.received[1]?.headers['svc-delivery'], pendingId)
      await d2.close()
      await k.ctx.services.webhooks.delete(k.workspaceId, ep.id)
    } finally { await rx.close() }
  })
})

describe('template.published', () => {
  let k: Kit
  let rx: Receiver
  before(async () => { k = await kit({}, cert); rx = await startReceiver(cert) })
  after(async () => { await rx.close(); await k.close() })

  test('publishing a template emits template.published with the documented data types', async () => {
    await k.ctx.services.webhooks.create({ workspaceId: k.workspaceId, url: rx.url, events: ['template.published'] })
    const d = k.dispatcher()
    d.start()
    const file = JSON.parse(readFileSync(new URL('../../../../examples/templates/invoice.json', import.meta.url), 'utf8'))
    const first = await k.ctx.services.templates.publish(k.workspaceId, file, { note: 'first cut', publishedBy: 'ops@example.com' })
    const second = await k.ctx.services.templates.publish(k.workspaceId, file)
    await waitFor('two events', () => rx.received.length >= 2)
    const byVersion = new Map(rx.received.map((r) => [r.json.data.version as number, r.json]))
    const e1 = byVersion.get(first.version)
    const e2 = byVersion.get(second.version)
    assert.equal(e1.type, 'template.published')
    assert.deepEqual(e1.data, { templateId: first.templateId, template: file.code, version: first.version, previousVersion: null, format: first.format, note: 'first cut', publishedBy: 'ops@example.com' })
    assert.match(e1.data.templateId, UUID)
    assert.equal(e2.data.previousVersion, first.version)
    assert.equal(e2.data.note, null)
    assert.equal(e2.data.publishedBy, null)
  })
})

describe('interrupted sends', () => {
  // A kit of its own: no other dispatcher may claim these deliveries before the test sets them up.
  let k: Kit
  let rx: Receiver
  before(async () => { k = await kit({}, cert); rx = await startReceiver(cert) })
  after(async () => { await rx.close(); await k.close() })

  test('a delivery whose sends were cut short 3 times (crashed senders) is abandoned, not retried forever', async () => {
    const ep = await k.ctx.services.webhooks.create({ workspaceId: k.workspaceId, url: rx.url, events: ['document.generated'] })
    const poison = await k.ctx.services.webhooks.test(k.workspaceId, ep.id)
    const healthy = await k.ctx.services.webhooks.test(k.workspaceId, ep.id)
    // Three earlier claims of `poison` ended without an attempt (their processes died); two of `healthy`.
    await k.tdb.db.execute('UPDATE webhook_deliveries SET claims = 3 WHERE id = ?', [poison.deliveryId])
    await k.tdb.db.execute('UPDATE webhook_deliveries SET claims = 2 WHERE id = ?', [healthy.deliveryId])
    const d = k.dispatcher()
    d.start()
    try {
      const one = await waitFor('abandoned', async () => {
        const v = await k.ctx.services.webhooks.delivery(k.workspaceId, poison.deliveryId)
        return v.status === 'abandoned' ? v : undefined
      })
      assert.match(String(one.lastError), /interrupted/)
      assert.equal(one.attempts, 1)
      await waitFor('the healthy one sent', () => rx.received.find((r) => r.headers['svc-delivery'] === healthy.deliveryId))
      assert.equal(rx.received.filter((r) => r.headers['svc-delivery'] === poison.deliveryId).length, 0, 'the poison delivery is not sent again')
    } finally {
      await d.close()
      await k.ctx.services.webhooks.delete(k.workspaceId, ep.id)
    }
  })
})
