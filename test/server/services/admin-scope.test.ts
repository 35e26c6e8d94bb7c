// Admin functions that take an id also take the workspace it must belong to: through another
// workspace, webhook endpoints, deliveries and API keys do not exist, and nothing changes.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { isProblem } from '../../../server/errors.js'
import { kit } from '../webhooks/helpers.js'
import type { Kit } from '../webhooks/helpers.js'

let k: Kit
before(async () => { k = await kit() })
after(async () => { await k.close() })

const notFound = (code: string) => (err: unknown): boolean => isProblem(err) && err.code === code && err.status === 404

test('webhook endpoints and deliveries of another workspace are not found; they stay as they were', async () => {
  const wh = k.ctx.services.webhooks
  const ep = await wh.create({ workspaceId: k.workspaceId, url: 'https://127.0.0.1:1/h', events: ['document.generated'] })
  const sent = await wh.test(k.workspaceId, ep.id)
  const other = (await k.ctx.services.workspaces.create('other')).id
  const calls: Array<[string, () => Promise<unknown>]> = [
    ['WEBHOOK_NOT_FOUND', () => wh.show(other, ep.id)],
    ['WEBHOOK_NOT_FOUND', () => wh.disable(other, ep.id)],
    ['WEBHOOK_NOT_FOUND', () => wh.enable(other, ep.id)],
    ['WEBHOOK_NOT_FOUND', () => wh.delete(other, ep.id)],
    ['WEBHOOK_NOT_FOUND', () => wh.rotateSecret(other, ep.id)],
    ['WEBHOOK_NOT_FOUND', () => wh.test(other, ep.id)],
    ['WEBHOOK_NOT_FOUND', () => wh.deliveries(other, ep.id)],
    ['DELIVERY_NOT_FOUND', () => wh.delivery(other, sent.deliveryId)],
    ['DELIVERY_NOT_FOUND', () => wh.redeliver(other, sent.deliveryId)]
  ]
  for (const [code, call] of calls) await assert.rejects(call(), notFound(code))
  const still = await wh.show(k.workspaceId, ep.id)
  assert.equal(still.enabled, true)
  assert.equal(still.updatedAt, ep.updatedAt, 'not touched')
  assert.equal((await wh.deliveries(k.workspaceId, ep.id)).length, 1, 'no redelivery was made')
  // The workspace id is compared canonically (a UUID in upper case is the same workspace).
  assert.equal((await wh.show(k.workspaceId.toUpperCase(), ep.id)).id, ep.id)
  await wh.delete(k.workspaceId, ep.id)
})

test('an API key of another workspace cannot be revoked through this one', async () => {
  const other = (await k.ctx.services.workspaces.create('other keys')).id
  const key = await k.ctx.services.apiKeys.create({ workspaceId: other, name: 'theirs', mode: 'live', scopes: ['render'], expiresAt: null })
  await assert.rejects(k.ctx.services.apiKeys.revoke(k.workspaceId, key.prefix), notFound('API_KEY_NOT_FOUND'))
  assert.equal((await k.ctx.services.apiKeys.list(other))[0]?.state, 'active')
  assert.equal((await k.ctx.services.apiKeys.revoke(other, key.id)).state, 'revoked')
})
