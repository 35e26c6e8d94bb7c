// Webhook endpoints and deliveries (spec Parts 3 and 6): registration with the SSRF guard,
// secrets shown once, enable/disable, rotation, test events, the delivery log and redelivery.
// The CLI calls these; a management HTTP route would call the same functions.
import { randomUUID } from 'node:crypto'
import type { Config } from '../config.js'
import { problem } from '../errors.js'
import { transaction } from '../store/db.js'
import type { Db } from '../store/db.js'
import type { Keyring } from '../secrets/keyring.js'
import { secretRef } from '../store/repos/webhooks.js'
import type { EndpointRow } from '../store/repos/webhooks.js'
import { DELIVERY_STATUSES } from '../store/repos/webhooks-deliveries.js'
import type { DeliveryRow, DeliveryStatus } from '../store/repos/webhooks-deliveries.js'
import type { Repos } from '../store/repos/index.js'
import { AddressRefused, checkHost, systemResolver } from '../net/address-guard.js'
import type { Resolver } from '../net/address-guard.js'
import { SUBSCRIBABLE_EVENTS } from '../webhooks/events.js'
import type { Outbox } from '../webhooks/outbox.js'

export interface EndpointView {
  id: string
  workspaceId: string
  url: string
  events: string[]
  description: string
  enabled: boolean
  createdAt: string
  updatedAt: string
}
export interface CreatedEndpoint extends EndpointView { secret: string }

export interface DeliveryView {
  id: string
  eventId: string
  eventType: string
  endpointId: string
  status: DeliveryStatus
  attempts: number
  lastHttpStatus: number | null
  lastResponseExcerpt: string | null
  lastError: string | null
  nextAttemptAt: string | null
  createdAt: string
  updatedAt: string
}

export { DELIVERY_STATUSES }

function endpointView (e: EndpointRow): EndpointView {
  return {
    id: e.id,
    workspaceId: e.workspaceId,
    url: e.url,
    events: e.events,
    description: e.description,
    enabled: e.enabled,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString()
  }
}

function deliveryView (d: DeliveryRow): DeliveryView {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType,
    endpointId: d.endpointId,
    status: d.status,
    attempts: d.attempts,
    lastHttpStatus: d.lastHttpStatus,
    lastResponseExcerpt: d.lastResponseExcerpt,
    lastError: d.lastError,
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString()
  }
}

const invalid = (field: string, message: string) => problem('VALIDATION_FAILED', `${field}: ${message}`, { errors: { [field]: [message] } })

export function parseEventList (text: string | string[]): string[] {
  const list = (Array.isArray(text) ? text : text.split(',')).map((s) => s.trim()).filter(Boolean)
  const unknown = list.filter((t) => !(SUBSCRIBABLE_EVENTS as readonly string[]).includes(t))
  if (list.length === 0 || unknown.length > 0) {
    throw invalid('events', `expected a comma-separated list of ${SUBSCRIBABLE_EVENTS.join(', ')}` + (unknown.length > 0 ? `; unknown: ${unknown.join(', ')}` : ''))
  }
  return [...new Set(list)]
}

/** Registration rules of Part 6: https only, no credentials, a host that is and resolves public. */
export async function checkEndpointUrl (text: string, resolver: Resolver, allowPrivate: boolean): Promise<string> {
  let url: URL
  try { url = new URL(text) } catch { throw invalid('url', 'not a valid URL') }
  if (url.protocol !== 'https:') throw problem('WEBHOOK_URL_REFUSED', `url: only https:// URLs are accepted, got ${url.protocol}`)
  if (url.username !== '' || url.password !== '') throw problem('WEBHOOK_URL_REFUSED', 'url: credentials in the URL are not accepted')
  if (url.hash !== '') throw invalid('url', 'a fragment is not sent; leave it out')
  if (url.href.length > 2048) throw invalid('url', 'at most 2048 characters')
  if (!allowPrivate) {
    try {
      await checkHost(url.hostname, resolver, false)
    } catch (err) {
      if (err instanceof AddressRefused) {
        throw problem('WEBHOOK_URL_REFUSED', `url: ${err.message}; only public hosts can receive webhooks. For local ` +
          'development: run `svc webhooks listen` (a local HTTPS receiver) and set SVC_WEBHOOKS_ALLOW_PRIVATE=true for this ' +
          'command and for `svc serve` (with SVC_WEBHOOK_CA_FILE=SVC_HOME/tls/cert.pem); see docs/webhooks.md')
      }
      throw err
    }
  }
  return url.href
}

/** One delivery with the log of its attempts. */
export type DeliveryDetail = DeliveryView & {
  attemptLog: Array<{
    attempt: number
    startedAt: string
    durationMs: number
    httpStatus: number | null
    excerpt: string | null
    error: string | null
  }>
}

export interface WebhooksServiceDeps {
  db: Db
  box: Pick<Keyring, 'seal'>
  config: Config
  repos: Pick<Repos, 'webhooks' | 'deliveries' | 'workspaces'>
  outbox: Outbox
  /** A new endpoint signing secret (webhooks/signature.ts generateSecret): signing stays in webhooks/. */
  newSecret: () => string
}

export interface WebhooksService {
  create(input: {
    workspaceId: string
    url: string
    events: string[]
    description?: string
  }): Promise<CreatedEndpoint>
  list(workspaceId: string): Promise<EndpointView[]>
  show(workspaceId: string, id: string): Promise<EndpointView>
  /** A disabled endpoint gets nothing: no new deliveries, and its open ones wait (parked). */
  disable(workspaceId: string, id: string): Promise<EndpointView>
  /** Enabling resumes the parked open deliveries at once; events of the disabled period never come. */
  enable(workspaceId: string, id: string): Promise<EndpointView & {
    resumedDeliveries: number
  }>
  delete(workspaceId: string, id: string): Promise<{
    id: string
    deleted: true
  }>
  /** The new secret signs every attempt from now on, retries of older deliveries included. */
  rotateSecret(workspaceId: string, id: string): Promise<{
    id: string
    secret: string
  }>
  /** Sends `webhook.test` to this endpoint whatever it subscribes to. */
  test(workspaceId: string, id: string): Promise<{
    endpointId: string
    eventId: string
    deliveryId: string
  }>
  deliveries(workspaceId: string, endpointId: string, options?: {
    status?: DeliveryStatus
    limit?: number
  }): Promise<DeliveryView[]>
  delivery(workspaceId: string, id: string): Promise<DeliveryDetail>
  /** A new delivery of the same event (same event id, same bytes) to the same endpoint. */
  redeliver(workspaceId: string, deliveryId: string): Promise<DeliveryView>
}

export function createWebhooksService (deps: WebhooksServiceDeps,
  options: { resolver?: Resolver } = {}): WebhooksService {
  const { db, box, config, outbox: events } = deps
  const endpoints = deps.repos.webhooks
  const deliveries = deps.repos.deliveries
  const resolver = options.resolver ?? systemResolver

  // Every function that takes an endpoint or delivery id also takes the workspace it must belong
  // to: an id of another workspace is answered exactly like an id that does not exist.
  async function mustGet (workspaceId: string, id: string): Promise<EndpointRow> {
    const row = /^[0-9a-f-]{36}$/i.test(id) ? await endpoints.get(id) : undefined
    if (row === undefined || row.workspaceId.toLowerCase() !== workspaceId.toLowerCase()) {
      throw problem('WEBHOOK_NOT_FOUND', `no webhook endpoint ${id} in workspace ${workspaceId}`)
    }
    return row
  }
  async function mustGetDelivery (workspaceId: string, id: string): Promise<DeliveryRow> {
    const d = /^[0-9a-f-]{36}$/i.test(id) ? await deliveries.get(id) : undefined
    if (d === undefined || d.workspaceId.toLowerCase() !== workspaceId.toLowerCase()) {
      throw problem('DELIVERY_NOT_FOUND', `no webhook delivery ${id} in workspace ${workspaceId}`)
    }
    return d
  }

  return {
    async create (input: {
      workspaceId: string
      url: string
      events: string[]
      description?: string
    }): Promise<CreatedEndpoint> {
      if ((await deps.repos.workspaces.get(input.workspaceId)) === undefined) { throw problem('WORKSPACE_NOT_FOUND', `no workspace ${input.workspaceId}`) }
      const types = parseEventList(input.events)
      const description = input.description ?? ''
      if (description.length > 1000) throw invalid('description', 'at most 1000 characters')
      const url = await checkEndpointUrl(input.url, resolver, config.webhooks.allowPrivate)
      const secret = deps.newSecret()
      const id = randomUUID()
      await transaction(db, async (conn) => {
        const secretEnc = box.seal(secret, secretRef(id))
        await endpoints.insert({ id, workspaceId: input.workspaceId, url, events: types, description, secretEnc }, conn)
        await events.subscriptionsChanged(conn, input.workspaceId)
      })
      return { ...endpointView((await endpoints.get(id)) as EndpointRow), secret }
    },
    async list (workspaceId: string): Promise<EndpointView[]> {
      return (await endpoints.list(workspaceId)).map(endpointView)
    },
    async show (workspaceId: string, id: string): Promise<EndpointView> {
      return endpointView(await mustGet(workspaceId, id))
    },
    async disable (workspaceId: string, id: string): Promise<EndpointView> {
      const row = await mustGet(workspaceId, id)
      await transaction(db, async (conn) => {
        await endpoints.setEnabled(conn, id, false)
        await deliveries.parkEndpoint(conn, id)
        await events.subscriptionsChanged(conn, row.workspaceId)
      })
      return endpointView((await endpoints.get(id)) as EndpointRow)
    },
    async enable (workspaceId: string, id: string): Promise<EndpointView & { resumedDeliveries: number }> {
      const row = await mustGet(workspaceId, id)
      const resumed = await transaction(db, async (conn) => {
        await endpoints.setEnabled(conn, id, true)
        await events.subscriptionsChanged(conn, row.workspaceId)
        return await deliveries.resumeEndpoint(conn, id)
      })
      if (resumed > 0) events.notify()
      return { ...endpointView((await endpoints.get(id)) as EndpointRow), resumedDeliveries: resumed }
    },
    async delete (workspaceId: string, id: string): Promise<{ id: string, deleted: true }> {
      const row = await mustGet(workspaceId, id)
      await transaction(db, async (conn) => {
        await endpoints.delete(conn, id)
        await events.subscriptionsChanged(conn, row.workspaceId)
      })
      return { id, deleted: true }
    },
    async rotateSecret (workspaceId: string, id: string): Promise<{ id: string, secret: string }> {
      await mustGet(workspaceId, id)
      const secret = deps.newSecret()
      await endpoints.setSecret(id, box.seal(secret, secretRef(id)))
      return { id, secret }
    },
    async test (workspaceId: string, id: string): Promise<{ endpointId: string, eventId: string, deliveryId: string }> {
      const row = await mustGet(workspaceId, id)
      if (!row.enabled) throw problem('WEBHOOK_DISABLED', `webhook endpoint ${id} is disabled: enable it first`)
      const deliveryId = randomUUID()
      const eventId = await transaction(db, async (conn, tx) => {
        const eventId = await events.append(tx, {
          workspaceId: row.workspaceId,
          type: 'webhook.test',
          data: { webhookId: id, url: row.url }
        })
        // Fan-out skips webhook.test; its one delivery is made here, in the same transaction.
        await conn.execute('UPDATE events SET fanned_out = 1 WHERE id = ?', [eventId])
        await deliveries.insertMany(conn, [{ id: deliveryId, eventId, endpointId: id, workspaceId: row.workspaceId }])
        return eventId
      })
      return { endpointId: id, eventId, deliveryId }
    },
    async deliveries (
      workspaceId: string,
      endpointId: string,
      options: { status?: DeliveryStatus, limit?: number } = {}
    ): Promise<DeliveryView[]> {
      await mustGet(workspaceId, endpointId)
      if (options.status !== undefined && !DELIVERY_STATUSES.includes(options.status)) { throw invalid('status', `expected one of ${DELIVERY_STATUSES.join(', ')}`) }
      const limit = options.limit ?? 50
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) { throw invalid('limit', 'expected a whole number from 1 to 1000') }
      return (await deliveries.listByEndpoint(endpointId, { status: options.status, limit })).map(deliveryView)
    },
    async delivery (workspaceId: string, id: string): Promise<DeliveryDetail> {
      const d = await mustGetDelivery(workspaceId, id)
      const attemptLog = (await deliveries.attempts(id)).map((a) => ({ ...a, startedAt: a.startedAt.toISOString() }))
      return { ...deliveryView(d), attemptLog }
    },
    async redeliver (workspaceId: string, deliveryId: string): Promise<DeliveryView> {
      const d = await mustGetDelivery(workspaceId, deliveryId)
      const row = await mustGet(workspaceId, d.endpointId)
      if (!row.enabled) throw problem('WEBHOOK_DISABLED', `webhook endpoint ${row.id} is disabled: enable it first`)
      const id = randomUUID()
      await deliveries.insertMany(db, [
        { id, eventId: d.eventId, endpointId: d.endpointId, workspaceId: d.workspaceId }
      ])
      events.notify()
      return deliveryView((await deliveries.get(id)) as DeliveryRow)
    }
  }
}
