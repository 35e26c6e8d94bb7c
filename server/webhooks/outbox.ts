// The event outbox. Events are written in the same transaction as the outcome they announce
// (at-least-once: no event without its outcome, no outcome without its event); the fan-out
// loop turns them into deliveries afterwards.
import { randomUUID } from 'node:crypto'
import type { Conn, Db, Tx } from '../store/db.js'
import type { EventsRepo } from '../store/repos/events.js'
import type { WebhooksRepo } from '../store/repos/webhooks.js'
import type { Envelope, EventType } from './events.js'

export type { EventType } from './events.js'

// A backstop only, for endpoint rows edited outside the webhooks service: every change through
// the service bumps workspaces.webhooks_version, which invalidates every process's cache at once.
const SUBSCRIBER_TTL_MS = 1000

export interface NewEvent { workspaceId: string, type: EventType, data: Record<string, unknown> }

export function serializeEnvelope (
  id: string,
  type: EventType,
  workspaceId: string,
  data: Record<string, unknown>,
  createdAt: Date
): string {
  const envelope: Envelope = { id, type, createdAt: createdAt.toISOString(), workspaceId, data }
  return JSON.stringify(envelope)
}

export interface Outbox {
  /**
   * Inserts the event (envelope id = new UUID) inside the caller's transaction (or alone, on the
   * pool); returns the event id. Listeners are woken once the row is committed.
   */
  append(target: Tx | Db, event: NewEvent): Promise<string>
  /** Wakes this process's dispatcher: deliveries were committed outside append (test, redeliver, enable). */
  notify: () => void
  /** Called after every committed append or notify(); returns the unsubscribe. */
  onAppend(fn: () => void): () => void
  /**
   * Call on `conn` with (or after) any change to the workspace's endpoints: bumps
   * workspaces.webhooks_version, so every process's cached answer goes stale.
   */
  subscriptionsChanged(conn: Conn | Db, workspaceId: string): Promise<void>
  /**
   * True when an enabled endpoint of the workspace subscribes to `type`. Cached per workspace
   * and subscription version: `version` is workspaces.webhooks_version as read with the render's
   * environment (no statement of its own); without it the version is read here (one key lookup).
   */
  hasSubscriber(workspaceId: string, type: EventType, version?: number): Promise<boolean>
}

/**
 * One per process (built by the composition root): its listeners (this process's dispatcher)
 * are woken after the transaction that wrote an event has committed, so they find the row.
 */
export function createOutbox (repos: { events: EventsRepo, webhooks: WebhooksRepo }): Outbox {
  const listeners = new Set<() => void>()
  const cache = new Map<string, { at: number, version: number, types: Set<string> }>()
  const notify = (): void => { for (const fn of listeners) fn() }
  return {
    async append (target: Tx | Db, event: NewEvent): Promise<string> {
      const id = randomUUID()
      const createdAt = new Date()
      // The envelope is serialised once: every attempt and redelivery sends exactly these bytes.
      const payload = serializeEnvelope(id, event.type, event.workspaceId, event.data, createdAt)
      const row = { id, workspaceId: event.workspaceId, type: event.type, payload, createdAt }
      if ('afterCommit' in target) {
        await repos.events.insert(target.conn, row)
        target.afterCommit(notify)
      } else {
        await repos.events.insert(target, row)
        notify()
      }
      return id
    },
    notify,
    onAppend (fn: () => void): () => void {
      listeners.add(fn)
      return () => { listeners.delete(fn) }
    },
    async subscriptionsChanged (conn: Conn | Db, workspaceId: string): Promise<void> {
      await repos.webhooks.bumpSubscriptionVersion(conn, workspaceId)
    },
    async hasSubscriber (workspaceId: string, type: EventType, version?: number): Promise<boolean> {
      const now = Date.now()
      const current = version ?? await repos.webhooks.subscriptionVersion(workspaceId)
      let entry = cache.get(workspaceId)
      if (entry === undefined || entry.version !== current || now - entry.at > SUBSCRIBER_TTL_MS) {
        entry = { at: now, version: current, types: await repos.webhooks.subscribedTypes(workspaceId) }
        cache.set(workspaceId, entry)
        if (cache.size > 10_000) cache.delete(cache.keys().next().value as string)
      }
      return entry.types.has(type)
    }
  }
}
