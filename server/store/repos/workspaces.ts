import { randomUUID } from 'node:crypto'
import type { RowDataPacket } from 'mysql2/promise'
import type { Db } from '../db.js'

export interface Workspace { id: string, name: string, createdAt: Date }

export function workspacesRepo (db: Db) {
  return {
    async create (name: string): Promise<Workspace> {
      const id = randomUUID()
      await db.execute('INSERT INTO workspaces (id, name) VALUES (?, ?)', [id, name])
      return (await this.get(id)) as Workspace
    },
    async get (id: string): Promise<Workspace | undefined> {
      const [rows] = await db.execute<RowDataPacket[]>('SELECT id, name, created_at FROM workspaces WHERE id = ?', [id])
      return rows.length === 0 ? undefined : { id: rows[0].id, name: rows[0].name, createdAt: rows[0].created_at }
    },
    async list (): Promise<Workspace[]> {
      const [rows] = await db.query<RowDataPacket[]>('SELECT id, name, created_at FROM workspaces ORDER BY created_at, id')
      return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at }))
    }
  }
}
export type WorkspacesRepo = ReturnType<typeof workspacesRepo>
