// CONTRACT STUB (owned by the webhooks helper, who replaces the bodies): the event outbox.
// Events are written in the same transaction as the outcome they announce.
import type { Conn, Db } from '../store/db.js'

export type EventType = 'document.generated' | 'document.failed' | 'template.published' | 'webhook.test'

export function outbox (_db: Db) {
  return {
    /** Inserts the event (envelope id = new UUID) on `conn` (inside the caller's transaction); returns the event id. */
    async append (_conn: Conn | Db, _event: { workspaceId: string, type: EventType, data: Record<string, unknown> }): Promise<string> {
      return ''
    },
    /** True when an enabled endpoint of the workspace subscribes to `type` (cheap; may be cached for a second). */
    async hasSubscriber (_workspaceId: string, _type: EventType): Promise<boolean> {
      return false
    }
  }
}
export type Outbox = ReturnType<typeof outbox>
