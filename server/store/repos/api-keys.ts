import type { RowDataPacket } from 'mysql2/promise'
import type { Db } from '../db.js'
import type { KeyMode, Scope } from '../../util/api-key-format.js'

export interface ApiKeyRow {
  id: string
  workspaceId: string
  name: string
  mode: KeyMode
  scopes: Scope[]
  secretHash: Buffer
  expiresAt: Date | null
  revokedAt: Date | null
  lastUsedAt: Date | null
  createdAt: Date
  /** Requests per 60 s; null = SVC_RATE_LIMIT. */
  rateLimit: number | null
}

export type KeyState = 'active' | 'revoked' | 'expired'

/**
 * THE key-validity rule, in its two forms side by side (keep them equal): a key is usable unless
 * it was revoked or its expiry has passed. keyState decides for a row in memory (verification,
 * listings); usableKeySql filters in a query (the render's joined read, templates.ts).
 */
export function keyState (k: Pick<ApiKeyRow, 'revokedAt' | 'expiresAt'>, now: number): KeyState {
  if (k.revokedAt !== null) return 'revoked'
  if (k.expiresAt !== null && k.expiresAt.getTime() <= now) return 'expired'
  return 'active'
}
export const usableKeySql = (a: string): string => `${a}.revoked_at IS NULL AND (${a}.expires_at IS NULL OR ${a}.expires_at > UTC_TIMESTAMP(3))`

const NAMES = ['id', 'workspace_id', 'name', 'mode', 'scopes', 'secret_hash', 'expires_at', 'revoked_at', 'last_used_at', 'created_at', 'rate_limit'] as const
type Names = Record<typeof NAMES[number], string>
const prefixed = (p: string): Names => Object.fromEntries(NAMES.map((n) => [n, p + n])) as Names
const PLAIN = prefixed('')
/** Column names with the prefix used when the key is read in a join (`key_id` …), built once. */
export const KEY_JOIN = prefixed('key_')

/** A key row from columns named as in the table, or as in `c` (KEY_JOIN) when read in a join. */
export function toKey (r: RowDataPacket, c: Names = PLAIN): ApiKeyRow {
  return {
    id: r[c.id],
    workspaceId: r[c.workspace_id],
    name: r[c.name],
    mode: r[c.mode],
    scopes: (r[c.scopes] as string).split(',').filter(Boolean) as Scope[],
    secretHash: r[c.secret_hash],
    expiresAt: r[c.expires_at],
    revokedAt: r[c.revoked_at],
    lastUsedAt: r[c.last_used_at],
    createdAt: r[c.created_at],
    rateLimit: r[c.rate_limit] ?? null
  }
}

const COLUMNS = NAMES.join(', ')
/** The key's columns of table alias `a`, named as in KEY_JOIN, for a join. */
export const keyColumns = (a: string): string => NAMES.map((n) => `${a}.${n} AS ${KEY_JOIN[n]}`).join(', ')

export interface ApiKeysRepo {
  insert(k: Omit<ApiKeyRow, 'revokedAt' | 'lastUsedAt' | 'createdAt' | 'rateLimit'> & {
    rateLimit?: number | null
  }): Promise<void>
  /** The one read per authenticated request: by primary key, never cached, so revocation is immediate. */
  get(id: string): Promise<ApiKeyRow | undefined>
  list(workspaceId: string): Promise<ApiKeyRow[]>
  revoke(id: string): Promise<boolean>
  setRateLimit(id: string, perMinute: number | null): Promise<void>
  touch(ids: string[], at: Date): Promise<void>
}

export function createApiKeysRepo (db: Db): ApiKeysRepo {
  return {
    async insert (k: Omit<ApiKeyRow, 'revokedAt' | 'lastUsedAt' | 'createdAt' | 'rateLimit'> & { rateLimit?: number | null }): Promise<void> {
      await db.execute('INSERT INTO api_keys (id, workspace_id, name, mode, scopes, secret_hash, expires_at, ' +
        'rate_limit) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [k.id, k.workspaceId, k.name, k.mode, k.scopes.join(','), k.secretHash, k.expiresAt, k.rateLimit ?? null])
    },
    async get (id: string): Promise<ApiKeyRow | undefined> {
      const [rows] = await db.execute<RowDataPacket[]>(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?`, [id])
      return rows[0] === undefined ? undefined : toKey(rows[0])
    },
    async list (workspaceId: string): Promise<ApiKeyRow[]> {
      const [rows] = await db.execute<RowDataPacket[]>(`SELECT ${COLUMNS} FROM api_keys WHERE workspace_id = ? ORDER ` +
        'BY created_at, id', [workspaceId])
      return rows.map((r) => toKey(r))
    },
    async revoke (id: string): Promise<boolean> {
      const [result] = await db.execute<import('mysql2').ResultSetHeader>(
        'UPDATE api_keys SET revoked_at = UTC_TIMESTAMP(3) WHERE id = ? AND revoked_at IS NULL', [id])
      return result.affectedRows === 1
    },
    async setRateLimit (id: string, perMinute: number | null): Promise<void> {
      await db.execute('UPDATE api_keys SET rate_limit = ? WHERE id = ?', [perMinute, id])
    },
    async touch (ids: string[], at: Date): Promise<void> {
      if (ids.length === 0) return
      await db.query('UPDATE api_keys SET last_used_at = ? WHERE id IN (?)', [at, ids])
    }
  }
}
