import { randomUUID } from 'node:crypto'
import type { RowDataPacket } from 'mysql2/promise'
import { transaction } from '../db.js'
import type { Db } from '../db.js'
import { bumpRenderRevision } from './workspaces.js'

export interface DataSourceRow {
  host: string
  port: number
  user: string
  passwordEnc: Buffer | null
  database: string
}
export interface Environment {
  id: string
  workspaceId: string
  key: string
  isProduction: boolean
  dataSource: DataSourceRow | null
  /** Bumped when the data source changes, so cached pools keyed by it go stale. */
  dsVersion: number
  /** Default printer resolution of labels rendered here (018); null: each template's own. */
  labelDpi?: number | null
  /** The workspace's webhook subscription version, read with the row (outbox.hasSubscriber). */
  webhooksVersion?: number
  createdAt: Date
}

/**
 * The columns of an environment row, each as `<alias>.<column> AS <prefix><column>` (for joins);
 * `webhooksVersion`: the expression of the workspace's version when the query joins workspaces.
 */
export function environmentColumns (alias: string, prefix: string, webhooksVersion = webhooksVersionOf(alias)): string {
  const own = COLUMN_NAMES.map((c) => `${alias}.${c} AS ${prefix}${c}`).join(', ')
  return `${own}, ${webhooksVersion} AS ${prefix}webhooks_version`
}

// One primary-key lookup inside the environment's own read: no statement of its own.
const webhooksVersionOf = (alias: string): string =>
  `(SELECT w.webhooks_version FROM workspaces w WHERE w.id = ${alias}.workspace_id)`

/** An environment from a row whose environment columns carry `prefix` (none for this table's own queries). */
export function toEnvironment (r: RowDataPacket, prefix = ''): Environment {
  // Each column read as the field it fills
  const c = <T>(name: string): T => r[prefix + name] as T
  return {
    id: c('id'),
    workspaceId: c('workspace_id'),
    key: c('env_key'),
    isProduction: c('is_production') === 1,
    dataSource: c('ds_host') === null ? null : { host: c('ds_host'), port: c('ds_port'), user: c('ds_user'), passwordEnc: c('ds_password_enc'), database: c('ds_database') },
    dsVersion: c('ds_version'),
    labelDpi: c('label_dpi') ?? null,
    webhooksVersion: Number(c('webhooks_version') ?? 0),
    createdAt: c('created_at')
  }
}

const COLUMN_NAMES = ['id', 'workspace_id', 'env_key', 'is_production', 'ds_host', 'ds_port', 'ds_user', 'ds_password_enc', 'ds_database', 'ds_version', 'label_dpi', 'created_at']
const COLUMNS = `${COLUMN_NAMES.join(', ')}, ${webhooksVersionOf('environments')} AS webhooks_version`

export interface EnvironmentsRepo {
  /** `id` is chosen by the caller when a sealed value must be bound to the row before it exists. */
  create(workspaceId: string, key: string, isProduction: boolean, ds: DataSourceRow | null,
    id?: string): Promise<Environment>
  /** A new data source (or none): ds_version and the workspace's render revision bumped with it. */
  setDataSource(env: Pick<Environment, 'id' | 'workspaceId'>, ds: DataSourceRow | null): Promise<void>
  /** A new default label resolution (or none): the workspace's render revision bumped with it. */
  setLabelDpi(env: Pick<Environment, 'id' | 'workspaceId'>, dpi: number | null): Promise<void>
  get(workspaceId: string, key: string): Promise<Environment | undefined>
  list(workspaceId: string): Promise<Environment[]>
}

export function createEnvironmentsRepo (db: Db): EnvironmentsRepo {
  return {
    async create (
      workspaceId: string,
      key: string,
      isProduction: boolean,
      ds: DataSourceRow | null,
      id: string = randomUUID()
    ): Promise<Environment> {
      await db.execute(
        `INSERT INTO environments (id, workspace_id, env_key, is_production, ds_host, ds_port, ds_user,
          ds_password_enc, ds_database)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          id,
          workspaceId,
          key,
          isProduction ? 1 : 0,
          ds?.host ?? null,
          ds?.port ?? null,
          ds?.user ?? null,
          ds?.passwordEnc ?? null,
          ds?.database ?? null
        ]
      )
      return (await this.get(workspaceId, key)) as Environment
    },
    async setDataSource (env: Pick<Environment, 'id' | 'workspaceId'>, ds: DataSourceRow | null): Promise<void> {
      await transaction(db, async (conn) => {
        await bumpRenderRevision(conn, env.workspaceId)
        await conn.execute(
          `UPDATE environments SET ds_host = ?, ds_port = ?, ds_user = ?, ds_password_enc = ?, ds_database = ?,
          ds_version = ds_version + 1, updated_at = UTC_TIMESTAMP(3) WHERE id = ?`,
          [ds?.host ?? null, ds?.port ?? null, ds?.user ?? null, ds?.passwordEnc ?? null, ds?.database ?? null, env.id]
        )
      })
    },
    async setLabelDpi (env: Pick<Environment, 'id' | 'workspaceId'>, dpi: number | null): Promise<void> {
      await transaction(db, async (conn) => {
        await bumpRenderRevision(conn, env.workspaceId)
        await conn.execute('UPDATE environments SET label_dpi = ?, updated_at = UTC_TIMESTAMP(3) WHERE id = ?', [dpi, env.id])
      })
    },
    async get (workspaceId: string, key: string): Promise<Environment | undefined> {
      const [rows] = await db.execute<RowDataPacket[]>(
        `SELECT ${COLUMNS} FROM environments WHERE workspace_id = ? AND env_key = ?`,
        [workspaceId, key]
      )
      return rows[0] === undefined ? undefined : toEnvironment(rows[0])
    },
    async list (workspaceId: string): Promise<Environment[]> {
      const [rows] = await db.execute<RowDataPacket[]>(
        `SELECT ${COLUMNS} FROM environments WHERE workspace_id = ? ORDER BY env_key`,
        [workspaceId]
      )
      return rows.map((r) => toEnvironment(r))
    }
  }
}
