// The event outbox. Events are written in the same transaction as the outcome they announce
// (at-least-once: no event without its outcome, no outcome without its event); the fan-out
// loop turns them into deliveries afterwards.
import { randomUUID } from 'node:crypto'
import type { Db, Tx } from '../store/db.js'
import type { EventsRepo } from '../store/repos/events.js'
import type { WebhooksRepo } from '../store/repos/webhooks.js'
import type { Envelope, EventType } from './events.js'

export type { EventType } from './events.js'

const SUBSCRIBER_TTL_MS = 1000

export interface NewEvent { workspaceId: string, type: EventType, data: Record<string, unknown> }

export function serializeEnvelope (id: string, type: EventType, workspaceId: string, data: Record<string, unknown>, createdAt: Date): string {
  const envelope: Envelope = { id, type, createdAt: createdAt.toISOString(), workspaceId, data }
  return JSON.stringify(envelope)
}

/**
 * One per process (built by the composition root): its listeners (this process's dispatcher)
 * are woken after the transaction that wrote an event has committed, so they find the row.
 */
export function outbox (repos: { events: EventsRepo, webhooks: WebhooksRepo }) {
  const listeners = new Set<() => void>()
  const cache = new Map<string, { at: number, types: Set<string> }>()
  // Bumped when endpoints of a workspace change in this process, so its cache entry is not reused.
  const changedAt = new Map<string, number>()
  const notify = (): void => { for (const fn of listeners) fn() }
  return {
    /**
     * Inserts the event (envelope id = new UUID) inside the caller's transaction (or alone, on the
     * pool); returns the event id. Listeners are woken once the row is committed.
     */
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
    /** Wakes this process's dispatcher: deliveries were committed outside append (test, redeliver, enable). */
    notify,
    /** Called after every committed append or notify(); returns the unsubscribe. */
    onAppend (fn: () => void): () => void {
      listeners.add(fn)
      return () => { listeners.delete(fn) }
    },
    /** Endpoints of the workspace changed: the next hasSubscriber reads them again. */
    endpointsChanged (workspaceId: string): void { changedAt.set(workspaceId, Date.now()) },
    /** True when an enabled endpoint of the workspace subscribes to `type` (cached for a second). */
    async hasSubscriber (workspaceId: string, type: EventType): Promise<boolean> {
      const now = Date.now()
      let entry = cache.get(workspaceId)
      if (entry === undefined || now - entry.at > SUBSCRIBER_TTL_MS || (changedAt.get(workspaceId) ?? 0) >= entry.at) {
        entry = { at: now, types: await repos.webhooks.subscribedTypes(workspaceId) }
        cache.set(workspaceId, entry)
        if (cache.size > 10_000) cache.delete(cache.keys().next().value as string)
      }
      return entry.types.has(type)
    }
  }
}
export type Outbox = ReturnType<typeof outbox>
