// Webhook endpoints. The signing secret is stored sealed (AES-256-GCM with the master key, bound
// to its row: server/secrets): it must be read back to sign, so it cannot be hashed.
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise'
import type { Conn, Db } from '../db.js'

/**
 * The signing secret's place, the associated data of its sealed value (a secrets/keyring
 * SealedRef, written out here: the store imports nothing of secrets/, which imports the store).
 */
export const secretRef = (endpointId: string): { table: string, column: string, id: string } =>
  ({ table: 'webhook_endpoints', column: 'secret_enc', id: endpointId })

export interface EndpointRow {
  id: string
  workspaceId: string
  url: string
  events: string[]
  description: string
  secretEnc: Buffer
  enabled: boolean
  createdAt: Date
  updatedAt: Date
}

const COLUMNS = 'id, workspace_id, url, events, description, secret_enc, enabled, created_at, updated_at'

function toEndpoint (r: RowDataPacket): EndpointRow {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    url: r.url,
    events: (r.events as string).split(',').filter(Boolean),
    description: r.description,
    secretEnc: r.secret_enc,
    enabled: r.enabled === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at
  }
}

export interface FanOutTarget { id: string, workspaceId: string, events: string[], fromSeq: number }

/**
 * The highest event seq committed so far: an order given by the database, the same for every
 * node (no clock compared). A plain consistent read, so it waits for no event being written:
 * an event whose transaction runs concurrently with the endpoint change may fall either side.
 */
async function latestEventSeq (conn: Conn | Db): Promise<number> {
  const [rows] = await conn.query<RowDataPacket[]>('SELECT COALESCE(MAX(seq), 0) AS s FROM events')
  return Number(rows[0]?.s ?? 0)
}

export interface WebhooksRepo {
  insert(e: Omit<EndpointRow, 'createdAt' | 'updatedAt' | 'enabled'>, conn?: Conn | Db): Promise<void>
  get(id: string, conn?: Conn | Db): Promise<EndpointRow | undefined>
  list(workspaceId: string): Promise<EndpointRow[]>
  /**
   * Enabled endpoints of several workspaces at once (fan-out), through ix_wh_ws. `fromSeq`: the
   * endpoint receives only events whose seq is above it (recorded after it was created or enabled).
   */
  enabledIn(conn: Conn | Db, workspaceIds: string[]): Promise<FanOutTarget[]>
  /** Enabling a disabled endpoint also moves its from_seq to the latest event (docs/webhooks.md). */
  setEnabled(conn: Conn | Db, id: string, enabled: boolean): Promise<boolean>
  setSecret(id: string, secretEnc: Buffer): Promise<boolean>
  delete(conn: Conn, id: string): Promise<boolean>
  /** Bumps workspaces.webhooks_version on `conn`, inside the endpoint change's transaction. */
  bumpSubscriptionVersion(conn: Conn | Db, workspaceId: string): Promise<void>
  /** workspaces.webhooks_version (0 for an unknown workspace). */
  subscriptionVersion(workspaceId: string): Promise<number>
  /** Subscribed types of the enabled endpoints of one workspace (hasSubscriber). */
  subscribedTypes(workspaceId: string): Promise<Set<string>>
}

export function createWebhooksRepo (db: Db): WebhooksRepo {
  return {
    async insert (e: Omit<EndpointRow, 'createdAt' | 'updatedAt' | 'enabled'>, conn: Conn | Db = db): Promise<void> {
      const fromSeq = await latestEventSeq(conn)
      await conn.execute(
        'INSERT INTO webhook_endpoints (id, workspace_id, url, events, description, secret_enc, from_seq) ' +
          'VALUES (?, ?, ?, ?, ?, ?, ?)',
        [e.id, e.workspaceId, e.url, e.events.join(','), e.description, e.secretEnc, fromSeq]
      )
    },
    async get (id: string, conn: Conn | Db = db): Promise<EndpointRow | undefined> {
      const [rows] = await conn.execute<RowDataPacket[]>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = ?`, [id])
      return rows[0] === undefined ? undefined : toEndpoint(rows[0])
    },
    async list (workspaceId: string): Promise<EndpointRow[]> {
      const [rows] = await db.execute<RowDataPacket[]>(
        `SELECT ${COLUMNS} FROM webhook_endpoints WHERE workspace_id = ? ORDER BY created_at, id`,
        [workspaceId]
      )
      return rows.map(toEndpoint)
    },
    async enabledIn (
      conn: Conn | Db,
      workspaceIds: string[]
    ): Promise<FanOutTarget[]> {
      if (workspaceIds.length === 0) return []
      const [rows] = await conn.query<RowDataPacket[]>(
        'SELECT id, workspace_id, events, from_seq FROM webhook_endpoints WHERE workspace_id IN (?) AND enabled = 1',
        [workspaceIds]
      )
      return rows.map((r) => ({
        id: r.id,
        workspaceId: r.workspace_id,
        events: (r.events as string).split(','),
        fromSeq: Number(r.from_seq)
      }))
    },
    async setEnabled (conn: Conn | Db, id: string, enabled: boolean): Promise<boolean> {
      // from_seq is assigned first, reading the old `enabled` (left-to-right and simultaneous
      // assignment alike): enabling an endpoint that is already enabled moves nothing.
      const [res] = await conn.execute<ResultSetHeader>(
        'UPDATE webhook_endpoints SET from_seq = IF(? = 1 AND enabled = 0, ?, from_seq), enabled = ?, ' +
          'updated_at = UTC_TIMESTAMP(3) WHERE id = ?',
        [enabled ? 1 : 0, enabled ? await latestEventSeq(conn) : 0, enabled ? 1 : 0, id]
      )
      return res.affectedRows === 1
    },
    async setSecret (id: string, secretEnc: Buffer): Promise<boolean> {
      const [res] = await db.execute<ResultSetHeader>(
        'UPDATE webhook_endpoints SET secret_enc = ?, updated_at = UTC_TIMESTAMP(3) WHERE id = ?',
        [secretEnc, id]
      )
      return res.affectedRows === 1
    },
    async delete (conn: Conn, id: string): Promise<boolean> {
      await conn.execute(
        'DELETE a FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = ?',
        [id]
      )
      await conn.execute('DELETE FROM webhook_deliveries WHERE endpoint_id = ?', [id])
      const [res] = await conn.execute<ResultSetHeader>('DELETE FROM webhook_endpoints WHERE id = ?', [id])
      return res.affectedRows === 1
    },
    async bumpSubscriptionVersion (conn: Conn | Db, workspaceId: string): Promise<void> {
      await conn.execute('UPDATE workspaces SET webhooks_version = webhooks_version + 1 WHERE id = ?', [workspaceId])
    },
    async subscriptionVersion (workspaceId: string): Promise<number> {
      const [rows] = await db.execute<RowDataPacket[]>('SELECT webhooks_version FROM workspaces WHERE id = ?', [
        workspaceId
      ])
      return rows[0] === undefined ? 0 : Number(rows[0].webhooks_version)
    },
    async subscribedTypes (workspaceId: string): Promise<Set<string>> {
      const [rows] = await db.execute<RowDataPacket[]>(
        'SELECT events FROM webhook_endpoints WHERE workspace_id = ? AND enabled = 1',
        [workspaceId]
      )
      return new Set(rows.flatMap((r) => (r.events as string).split(',')))
    }
  }
}
