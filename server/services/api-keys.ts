// API keys: creation (the full key is returned once), listing with state, revocation. The
// per-request authentication is server/auth/.
import { problem } from '../errors.js'
import { generateApiKey, keyPrefix, SCOPES } from '../util/api-key-format.js'
import type { KeyMode, Scope } from '../util/api-key-format.js'
import { keyState } from '../store/repos/api-keys.js'
import type { ApiKeysRepo, ApiKeyRow, KeyState } from '../store/repos/api-keys.js'
import type { WorkspacesRepo } from '../store/repos/workspaces.js'

export type { KeyState } from '../store/repos/api-keys.js'

export interface KeyView {
  id: string
  prefix: string
  name: string
  mode: KeyMode
  scopes: Scope[]
  state: KeyState
  expiresAt: string | null
  lastUsedAt: string | null
  createdAt: string
  workspaceId: string
  /** null = the server's SVC_RATE_LIMIT. */
  rateLimit: number | null
}

export interface CreatedKey extends Omit<KeyView, 'state' | 'lastUsedAt' | 'createdAt'> { key: string }

const DAY = 86_400_000

/** `never`, `30d`, `90d`, `365d` or a date `YYYY-MM-DD` (the key expires at the start of that UTC day). */
export function parseExpiry (text: string | undefined, now = new Date()): Date | null {
  if (text === undefined || text === 'never') return null
  const days = /^(30|90|365)d$/.exec(text)
  if (days !== null) return new Date(now.getTime() + Number(days[1]) * DAY)
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const date = new Date(`${text}T00:00:00.000Z`)
    if (!Number.isNaN(date.getTime()) && date.toISOString().startsWith(text)) {
      if (date.getTime() <= now.getTime()) throw problem('VALIDATION_FAILED', 'expires: the date must be in the future', { errors: { expires: ['must be in the future'] } })
      return date
    }
  }
  throw problem('VALIDATION_FAILED', 'expires: expected never, 30d, 90d, 365d or YYYY-MM-DD', { errors: { expires: ['expected never, 30d, 90d, 365d or YYYY-MM-DD'] } })
}

export function parseScopes (text: string): Scope[] {
  const scopes = text.split(',').map((s) => s.trim()).filter(Boolean)
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s))
  if (scopes.length === 0 || unknown.length > 0) {
    const message = `expected a comma-separated list of ${SCOPES.join(', ')}` + (unknown.length > 0 ? `; unknown: ${unknown.join(', ')}` : '')
    throw problem('VALIDATION_FAILED', `scopes: ${message}`, { errors: { scopes: [message] } })
  }
  return [...new Set(scopes)] as Scope[]
}

export const MAX_RATE_LIMIT = 100_000_000

/** A key's requests per 60 s: a whole number from 1 to 100,000,000, or `default` (null: SVC_RATE_LIMIT). */
export function parseRateLimit (text: string): number | null {
  if (text === 'default') return null
  const value = /^\d+$/.test(text) ? Number(text) : NaN
  if (!(value >= 1 && value <= MAX_RATE_LIMIT)) {
    const message = `expected a whole number of requests per minute from 1 to ${MAX_RATE_LIMIT}, or default`
    throw problem('VALIDATION_FAILED', `rateLimit: ${message}`, { errors: { rateLimit: [message] } })
  }
  return value
}

function view (k: ApiKeyRow, now: number): KeyView {
  return {
    id: k.id,
    prefix: keyPrefix(k.mode, k.id),
    name: k.name,
    mode: k.mode,
    scopes: k.scopes,
    state: keyState(k, now),
    expiresAt: k.expiresAt?.toISOString() ?? null,
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    createdAt: k.createdAt.toISOString(),
    workspaceId: k.workspaceId,
    rateLimit: k.rateLimit
  }
}

export interface ApiKeysService {
  create(input: {
    workspaceId: string
    name: string
    mode: KeyMode
    scopes: Scope[]
    expiresAt: Date | null
    rateLimit?: number | null
  }): Promise<CreatedKey>
  list(workspaceId: string): Promise<KeyView[]>
  /** Accepts the key id or its visible prefix; a key of another workspace is not found. */
  revoke(workspaceId: string, idOrPrefix: string): Promise<KeyView>
  /** The key's requests per 60 s across all nodes; null = back to SVC_RATE_LIMIT. */
  setRateLimit(idOrPrefix: string, perMinute: number | null): Promise<KeyView>
}

export function createApiKeysService (keys: ApiKeysRepo, workspaces: WorkspacesRepo): ApiKeysService {
  /** The key by id or prefix; with a workspace, a key of another workspace is not found either. */
  async function find (idOrPrefix: string, workspaceId?: string): Promise<ApiKeyRow> {
    const match = /^(?:svc_(?:live|test)_)?([a-z0-9]{12})$/.exec(idOrPrefix)
    const row = match?.[1] === undefined ? undefined : await keys.get(match[1])
    if (
      row === undefined ||
      (workspaceId !== undefined && row.workspaceId.toLowerCase() !== workspaceId.toLowerCase())
    ) {
      throw problem(
        'API_KEY_NOT_FOUND',
        `no API key ${idOrPrefix}${workspaceId === undefined ? '' : ` in workspace ${workspaceId}`}`
      )
    }
    return row
  }

  return {
    async create (input: {
      workspaceId: string
      name: string
      mode: KeyMode
      scopes: Scope[]
      expiresAt: Date | null
      rateLimit?: number | null
    }): Promise<CreatedKey> {
      if ((await workspaces.get(input.workspaceId)) === undefined) { throw problem('WORKSPACE_NOT_FOUND', `no workspace ${input.workspaceId}`) }
      const generated = generateApiKey(input.mode)
      await keys.insert({
        id: generated.keyId,
        workspaceId: input.workspaceId,
        name: input.name,
        mode: input.mode,
        scopes: input.scopes,
        secretHash: generated.secretHash,
        expiresAt: input.expiresAt,
        rateLimit: input.rateLimit ?? null
      })
      return {
        id: generated.keyId,
        prefix: generated.prefix,
        key: generated.key,
        name: input.name,
        mode: input.mode,
        scopes: input.scopes,
        expiresAt: input.expiresAt?.toISOString() ?? null,
        workspaceId: input.workspaceId,
        rateLimit: input.rateLimit ?? null
      }
    },

    async list (workspaceId: string): Promise<KeyView[]> {
      const now = Date.now()
      return (await keys.list(workspaceId)).map((k) => view(k, now))
    },

    async revoke (workspaceId: string, idOrPrefix: string): Promise<KeyView> {
      const row = await find(idOrPrefix, workspaceId)
      await keys.revoke(row.id)
      return view((await keys.get(row.id)) as ApiKeyRow, Date.now())
    },

    async setRateLimit (idOrPrefix: string, perMinute: number | null): Promise<KeyView> {
      const row = await find(idOrPrefix)
      await keys.setRateLimit(row.id, perMinute)
      return view((await keys.get(row.id)) as ApiKeyRow, Date.now())
    }
  }
}
