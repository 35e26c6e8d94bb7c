import { randomUUID } from 'node:crypto'
import type { RowDataPacket } from 'mysql2/promise'
import type { Conn, Db } from '../db.js'

export interface Workspace { id: string, name: string, createdAt: Date }

/**
 * Bumps the workspace's render revision (migration 014): the FIRST statement of the transaction
 * of any change to what a render resolves to. Its row lock is then taken before the changed
 * rows' locks by every such writer, so two of them never wait on each other in opposite orders
 * (a publish's insert holds a shared lock on the workspace row for its foreign key: a bump after
 * it deadlocked two concurrent publishes).
 */
export async function bumpRenderRevision (conn: Conn, workspaceId: string): Promise<void> {
  await conn.execute('UPDATE workspaces SET render_revision = render_revision + 1 WHERE id = ?', [workspaceId])
}

/** The workspace state a render reads with its key (table alias `w`): see KeyState in templates.ts. */
export const WORKSPACE_STATE = 'w.render_revision AS ws_render_revision, w.webhooks_version AS ws_webhooks_version'

export interface WorkspacesRepo {
  create(name: string): Promise<Workspace>
  get(id: string): Promise<Workspace | undefined>
  list(): Promise<Workspace[]>
}

export function createWorkspacesRepo (db: Db): WorkspacesRepo {
  return {
    async create (name: string): Promise<Workspace> {
      const id = randomUUID()
      await db.execute('INSERT INTO workspaces (id, name) VALUES (?, ?)', [id, name])
      return (await this.get(id)) as Workspace
    },
    async get (id: string): Promise<Workspace | undefined> {
      const [rows] = await db.execute<RowDataPacket[]>('SELECT id, name, created_at FROM workspaces WHERE id = ?', [id])
      return rows[0] === undefined ? undefined : { id: rows[0].id, name: rows[0].name, createdAt: rows[0].created_at }
    },
    async list (): Promise<Workspace[]> {
      const [rows] = await db.query<RowDataPacket[]>('SELECT id, name, created_at FROM workspaces ORDER BY ' +
        'created_at, id')
      return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at }))
    }
  }
}
