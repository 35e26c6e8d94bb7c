// The outbox table: events written in the caller's transaction, fanned out later.
import type { RowDataPacket } from 'mysql2/promise'
import type { Conn, Db } from '../db.js'

export interface EventRow { seq: number, id: string, workspaceId: string, type: string, payload: string }

export interface EventsRepo {
  insert(conn: Conn | Db, e: {
    id: string
    workspaceId: string
    type: string
    payload: string
    createdAt: Date
    fannedOut?: boolean
  }): Promise<void>
  /**
   * Locks up to `limit` un-fanned events in arrival order (ix_events_fanout), skipping ones another process holds.
   */
  claimUnfanned(conn: Conn, limit: number): Promise<Array<Omit<EventRow, 'payload'>>>
  markFanned(conn: Conn, seqs: number[]): Promise<void>
  get(conn: Conn | Db, id: string): Promise<EventRow | undefined>
}

export function createEventsRepo (): EventsRepo {
  return {
    async insert (
      conn: Conn | Db,
      e: { id: string, workspaceId: string, type: string, payload: string, createdAt: Date, fannedOut?: boolean }
    ): Promise<void> {
      await conn.execute(
        'INSERT INTO events (id, workspace_id, type, payload, fanned_out, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        [e.id, e.workspaceId, e.type, e.payload, e.fannedOut === true ? 1 : 0, e.createdAt]
      )
    },
    async claimUnfanned (conn: Conn, limit: number): Promise<Array<Omit<EventRow, 'payload'>>> {
      const [rows] = await conn.query<RowDataPacket[]>(
        'SELECT seq, id, workspace_id, type FROM events WHERE fanned_out = 0 ORDER BY seq LIMIT ? FOR UPDATE SKIP ' +
          'LOCKED',
        [limit]
      )
      return rows.map((r) => ({ seq: Number(r.seq), id: r.id, workspaceId: r.workspace_id, type: r.type }))
    },
    async markFanned (conn: Conn, seqs: number[]): Promise<void> {
      if (seqs.length > 0) await conn.query('UPDATE events SET fanned_out = 1 WHERE seq IN (?)', [seqs])
    },
    async get (conn: Conn | Db, id: string): Promise<EventRow | undefined> {
      const [rows] = await conn.execute<RowDataPacket[]>(
        'SELECT seq, id, workspace_id, type, payload FROM events WHERE id = ?',
        [id]
      )
      const [r] = rows
      return r === undefined
        ? undefined
        : {
            seq: Number(r.seq),
            id: r.id,
            workspaceId: r.workspace_id,
            type: r.type,
            payload: r.payload
          }
    }
  }
}
