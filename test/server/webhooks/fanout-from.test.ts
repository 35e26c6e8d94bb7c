// An endpoint receives the events recorded after it exists, however late the fan-out runs: an
// event recorded before the endpoint was created (or while it was disabled) and fanned out after
// is not delivered to it; one recorded after is. No dispatcher runs here: the test fans out itself.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { RowDataPacket } from 'mysql2/promise'
import { createFanOut } from '../../../server/webhooks/fanout.js'
import type { EventType } from '../../../server/webhooks/events.js'
import { kit, makeCert } from './helpers.js'
import type { Cert, Kit } from './helpers.js'

let k: Kit
let cert: Cert

before(async () => {
  cert = await makeCert()
  k = await kit({}, cert)
})
after(async () => {
  await k.close()
})

async function record (type: EventType = 'document.failed'): Promise<string> {
  return await k.ctx.services.outbox.append(k.tdb.db, { workspaceId: k.workspaceId, type, data: {} })
}

async function create (): Promise<string> {
  const e = await k.ctx.services.webhooks.create({
    workspaceId: k.workspaceId,
    url: 'https://127.0.0.1:9/hooks',
    events: ['document.failed']
  })
  return e.id
}

async function deliveredTo (endpointId: string): Promise<string[]> {
  const [rows] = await k.tdb.db.query<RowDataPacket[]>(
    'SELECT event_id FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY event_id',
    [endpointId]
  )
  return rows.map((r) => r.event_id as string).sort()
}

test('an event recorded before the endpoint is created is not delivered to it; one recorded after is', async () => {
  const fanOut = createFanOut(k.tdb.db, k.ctx.repos)
  const early = await create()
  const before = await record()
  const late = await create()
  const after = await record()
  const r = await fanOut()
  assert.equal(r.events, 2)
  assert.deepEqual(await deliveredTo(early), [before, after].sort(), 'the older endpoint gets both')
  assert.deepEqual(await deliveredTo(late), [after], 'the new endpoint gets only the event after its creation')
  assert.equal(r.deliveries, 3)
})

test('an endpoint enabled again receives only events recorded after it was enabled', async () => {
  const fanOut = createFanOut(k.tdb.db, k.ctx.repos)
  const id = await create()
  await k.ctx.services.webhooks.disable(k.workspaceId, id)
  const whileDisabled = await record()
  await k.ctx.services.webhooks.enable(k.workspaceId, id)
  // Enabling an enabled endpoint moves nothing: the event recorded in between still reaches it.
  const betweenEnables = await record()
  await k.ctx.services.webhooks.enable(k.workspaceId, id)
  const afterEnable = await record()
  await fanOut()
  assert.ok(whileDisabled.length > 0)
  assert.deepEqual(await deliveredTo(id), [betweenEnables, afterEnable].sort())
})
