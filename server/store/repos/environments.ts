import { randomUUID } from 'node:crypto'
import type { RowDataPacket } from 'mysql2/promise'
import type { Db } from '../db.js'

export interface DataSourceRow { host: string, port: number, user: string, passwordEnc: Buffer | null, database: string }
export interface Environment {
  id: string
  workspaceId: string
  key: string
  isProduction: boolean
  dataSource: DataSourceRow | null
  /** Bumped when the data source changes, so cached pools keyed by it go stale. */
  dsVersion: number
  createdAt: Date
}

function toEnvironment (r: RowDataPacket): Environment {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    key: r.env_key,
    isProduction: r.is_production === 1,
    dataSource: r.ds_host === null ? null : { host: r.ds_host, port: r.ds_port, user: r.ds_user, passwordEnc: r.ds_password_enc, database: r.ds_database },
    dsVersion: r.ds_version,
    createdAt: r.created_at
  }
}

const COLUMNS = 'id, workspace_id, env_key, is_production, ds_host, ds_port, ds_user, ds_password_enc, ds_database, ds_version, created_at'

export function environmentsRepo (db: Db) {
  return {
    async create (workspaceId: string, key: string, isProduction: boolean, ds: DataSourceRow | null): Promise<Environment> {
      const id = randomUUID()
      await db.execute(`INSERT INTO environments (id, workspace_id, env_key, is_production, ds_host, ds_port, ds_user, ds_password_enc, ds_database)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, workspaceId, key, isProduction ? 1 : 0, ds?.host ?? null, ds?.port ?? null, ds?.user ?? null, ds?.passwordEnc ?? null, ds?.database ?? null])
      return (await this.get(workspaceId, key)) as Environment
    },
    async setDataSource (id: string, ds: DataSourceRow | null): Promise<void> {
      await db.execute(`UPDATE environments SET ds_host = ?, ds_port = ?, ds_user = ?, ds_password_enc = ?, ds_database = ?,
        ds_version = ds_version + 1, updated_at = UTC_TIMESTAMP(3) WHERE id = ?`,
      [ds?.host ?? null, ds?.port ?? null, ds?.user ?? null, ds?.passwordEnc ?? null, ds?.database ?? null, id])
    },
    async get (workspaceId: string, key: string): Promise<Environment | undefined> {
      const [rows] = await db.execute<RowDataPacket[]>(`SELECT ${COLUMNS} FROM environments WHERE workspace_id = ? AND env_key = ?`, [workspaceId, key])
      return rows.length === 0 ? undefined : toEnvironment(rows[0])
    },
    async list (workspaceId: string): Promise<Environment[]> {
      const [rows] = await db.execute<RowDataPacket[]>(`SELECT ${COLUMNS} FROM environments WHERE workspace_id = ? ORDER BY env_key`, [workspaceId])
      return rows.map(toEnvironment)
    }
  }
}
export type EnvironmentsRepo = ReturnType<typeof environmentsRepo>
