// The "does anyone subscribe?" cache of a server process is invalidated through the database: an
// endpoint created, disabled or enabled by another process is seen by the very next render here,
// even though this process cached "nobody" (or "someone") a moment before.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { RowDataPacket } from 'mysql2/promise'
import { loadConfig } from '../../../server/config.js'
import { createContext } from '../../../server/context.js'
import type { Context } from '../../../server/context.js'
import { bearer } from '../../helpers/fixtures.js'
import { renderFixture } from '../../helpers/render-data.js'
import { makeCert, startReceiver, waitFor } from './helpers.js'
import type { Cert, Receiver } from './helpers.js'

let fx: Awaited<ReturnType<typeof renderFixture>>
let cert: Cert
let receiver: Receiver
let admin: Context

before(async () => {
  cert = await makeCert()
  receiver = await startReceiver(cert)
  const env = { SVC_WEBHOOKS_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_CA_FILE: cert.certFile, SVC_WEBHOOK_POLL: '100ms' }
  fx = await renderFixture('whver', env)
  // Another process's view of the same database: its own services, its own caches.
  admin = await createContext(
    loadConfig(
      {},
      {
        ...env,
        SVC_HOME: fx.server.config.home,
        SVC_DATABASE_URL: fx.database.url,
        SVC_MASTER_KEY: fx.server.config.masterKey as string
      },
      2
    ),
    { poolSize: 2 }
  )
})
after(async () => {
  await admin.close()
  await fx.close()
  await receiver.close()
})

async function render (correlationId: string): Promise<void> {
  const res = await fx.server.fetch('POST', '/api/v1/render', { headers: { ...bearer(fx.ws.key.key), 'x-correlation-id': correlationId }, body: { template: 'invoice', parameters: { invoiceId: 1 } } })
  assert.equal(res.status, 200)
}

async function eventsOf (correlationId: string): Promise<number> {
  const [rows] = await fx.database.db.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM events WHERE payload LIKE ?', [`%"correlationId":"${correlationId}"%`])
  return Number(rows[0]?.n)
}

test('create, disable and enable by another process are seen by the next render of this one', async () => {
  const workspaceId = fx.ws.workspace.id
  await render('before')
  assert.equal(await eventsOf('before'), 0, 'nobody subscribes yet (and this process has cached that)')

  const ep = await admin.services.webhooks.create({ workspaceId, url: receiver.url, events: ['document.generated'] })
  await render('right-after-create')
  assert.equal(await eventsOf('right-after-create'), 1)
  await waitFor('delivery', () => receiver.received.find((r) => r.json?.data?.correlationId === 'right-after-create'))

  await admin.services.webhooks.disable(workspaceId, ep.id)
  await render('right-after-disable')
  assert.equal(await eventsOf('right-after-disable'), 0)

  await admin.services.webhooks.enable(workspaceId, ep.id)
  await render('right-after-enable')
  assert.equal(await eventsOf('right-after-enable'), 1)

  await admin.services.webhooks.delete(workspaceId, ep.id)
  await render('right-after-delete')
  assert.equal(await eventsOf('right-after-delete'), 0)
})
