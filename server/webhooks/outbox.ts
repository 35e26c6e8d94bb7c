// The event outbox. Events are written in the same transaction as the outcome they announce
// (at-least-once: no event without its outcome, no outcome without its event); the fan-out
// loop turns them into deliveries afterwards.
import { EventEmitter } from 'node:events'
import { randomUUID } from 'node:crypto'
import type { Conn, Db } from '../store/db.js'
import { eventsRepo } from '../store/repos/events.js'
import { webhooksRepo } from '../store/repos/webhooks.js'
import type { Envelope, EventType } from './events.js'

export type { EventType } from './events.js'

/** In-process wake-up: an append (or a new delivery) makes this process's dispatcher look now. */
export const outboxSignal = new EventEmitter()
outboxSignal.setMaxListeners(0)

// A backstop only, for endpoint rows edited outside the webhooks service: every change through
// the service bumps workspaces.webhooks_version, which invalidates the cache at once.
const SUBSCRIBER_TTL_MS = 1000

/** Call on `conn` with (or after) any change to the workspace's endpoints: every process's cache goes stale. */
export async function subscriptionsChanged (conn: Conn | Db, workspaceId: string): Promise<void> {
  await conn.execute('UPDATE workspaces SET webhooks_version = webhooks_version + 1 WHERE id = ?', [workspaceId])
}

export function serializeEnvelope (id: string, type: EventType, workspaceId: string, data: Record<string, unknown>, createdAt: Date): string {
  const envelope: Envelope = { id, type, createdAt: createdAt.toISOString(), workspaceId, data }
  return JSON.stringify(envelope)
}

export function outbox (db: Db) {
  const events = eventsRepo()
  const endpoints = webhooksRepo(db)
  const cache = new Map<string, { at: number, version: number, types: Set<string> }>()
  return {
    /** Inserts the event (envelope id = new UUID) on `conn` (inside the caller's transaction); returns the event id. */
    async append (conn: Conn | Db, event: { workspaceId: string, type: EventType, data: Record<string, unknown> }): Promise<string> {
      const id = randomUUID()
      const createdAt = new Date()
      // The envelope is serialised once: every attempt and redelivery sends exactly these bytes.
      const payload = serializeEnvelope(id, event.type, event.workspaceId, event.data, createdAt)
      await events.insert(conn, { id, workspaceId: event.workspaceId, type: event.type, payload, createdAt })
      outboxSignal.emit('append')
      return id
    },
    /**
     * True when an enabled endpoint of the workspace subscribes to `type`. Cached per workspace
     * and subscription version: `version` is workspaces.webhooks_version as read with the render's
     * environment (no statement of its own); without it the version is read here (one key lookup).
     */
    async hasSubscriber (workspaceId: string, type: EventType, version?: number): Promise<boolean> {
      const now = Date.now()
      const current = version ?? await endpoints.subscriptionVersion(workspaceId)
      let entry = cache.get(workspaceId)
      if (entry === undefined || entry.version !== current || now - entry.at > SUBSCRIBER_TTL_MS) {
        entry = { at: now, version: current, types: await endpoints.subscribedTypes(workspaceId) }
        cache.set(workspaceId, entry)
        if (cache.size > 10_000) cache.delete(cache.keys().next().value as string)
      }
      return entry.types.has(type)
    }
  }
}
export type Outbox = ReturnType<typeof outbox>
