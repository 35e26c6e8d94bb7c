// Fan-out: each un-fanned event becomes one delivery per enabled endpoint of its workspace that
// subscribes to its type, in the same transaction that marks the event fanned out. Any process
// may run it; SKIP LOCKED keeps two from taking the same events. An endpoint receives only the
// events recorded after it was created or last enabled (seq above its from_seq), however late
// the fan-out runs.
import { randomUUID } from 'node:crypto'
import { transaction } from '../store/db.js'
import type { Db } from '../store/db.js'
import type { Repos } from '../store/repos/index.js'

/** Fans out up to `limit` events; answers how many events and deliveries it handled. */
export type FanOut = (limit?: number) => Promise<{ events: number, deliveries: number }>

export function createFanOut (db: Db, repos: Pick<Repos, 'events' | 'webhooks' | 'deliveries'>): FanOut {
  const { events, webhooks: endpoints, deliveries } = repos
  /** Fans out up to `limit` events; returns how many events and deliveries it handled. */
  return async function fanOutOnce (limit = 500): Promise<{ events: number, deliveries: number }> {
    return await transaction(db, async (conn) => {
      const batch = await events.claimUnfanned(conn, limit)
      if (batch.length === 0) return { events: 0, deliveries: 0 }
      const targets = await endpoints.enabledIn(conn, [...new Set(batch.map((e) => e.workspaceId))])
      const rows: Array<{ id: string, eventId: string, endpointId: string, workspaceId: string }> = []
      for (const event of batch) {
        // webhook.test never fans out: the test command creates its one delivery itself.
        if (event.type === 'webhook.test') continue
        for (const t of targets) {
          // Only events recorded after the endpoint was created or enabled (docs/webhooks.md).
          if (t.workspaceId === event.workspaceId && event.seq > t.fromSeq && t.events.includes(event.type)) {
            rows.push({ id: randomUUID(), eventId: event.id, endpointId: t.id, workspaceId: event.workspaceId })
          }
        }
      }
      for (let i = 0; i < rows.length; i += 1000) await deliveries.insertMany(conn, rows.slice(i, i + 1000))
      await events.markFanned(conn, batch.map((e) => e.seq))
      return { events: batch.length, deliveries: rows.length }
    }, 'READ COMMITTED')
  }
}
