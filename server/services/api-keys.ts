// API keys: creation (the full key is returned once), listing with state, revocation, and the
// per-request authentication (spec Part 5).
import { problem } from '../errors.js'
import { generateApiKey, keyPrefix, parseApiKey, SCOPES, defaultEnvironment } from '../auth/api-key-format.js'
import type { KeyMode, ParsedKey, Scope } from '../auth/api-key-format.js'
import { safeEqual, sha256 } from '../util/crypto.js'
import type { ApiKeysRepo, ApiKeyRow } from '../store/repos/api-keys.js'
import type { WorkspacesRepo } from '../store/repos/workspaces.js'

export interface AuthContext {
  keyId: string
  prefix: string
  name: string
  mode: KeyMode
  scopes: ReadonlySet<Scope>
  workspaceId: string
  defaultEnvironment: string
}

export type KeyState = 'active' | 'revoked' | 'expired'

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

function stateOf (k: ApiKeyRow, now: number): KeyState {
  if (k.revokedAt !== null) return 'revoked'
  if (k.expiresAt !== null && k.expiresAt.getTime() <= now) return 'expired'
  return 'active'
}

function view (k: ApiKeyRow, now: number): KeyView {
  return {
    id: k.id,
    prefix: keyPrefix(k.mode, k.id),
    name: k.name,
    mode: k.mode,
    scopes: k.scopes,
    state: stateOf(k, now),
    expiresAt: k.expiresAt?.toISOString() ?? null,
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    createdAt: k.createdAt.toISOString(),
    workspaceId: k.workspaceId
  }
}

export function apiKeysService (keys: ApiKeysRepo, workspaces: WorkspacesRepo) {
  return {
    async create (input: { workspaceId: string, name: string, mode: KeyMode, scopes: Scope[], expiresAt: Date | null }): Promise<CreatedKey> {
      if (await workspaces.get(input.workspaceId) === undefined) throw problem('WORKSPACE_NOT_FOUND', `no workspace ${input.workspaceId}`)
      const generated = generateApiKey(input.mode)
      await keys.insert({ id: generated.keyId, workspaceId: input.workspaceId, name: input.name, mode: input.mode, scopes: input.scopes, secretHash: generated.secretHash, expiresAt: input.expiresAt })
      return {
        id: generated.keyId,
        prefix: generated.prefix,
        key: generated.key,
        name: input.name,
        mode: input.mode,
        scopes: input.scopes,
        expiresAt: input.expiresAt?.toISOString() ?? null,
        workspaceId: input.workspaceId
      }
    },

    async list (workspaceId: string): Promise<KeyView[]> {
      const now = Date.now()
      return (await keys.list(workspaceId)).map((k) => view(k, now))
    },

    /** Accepts the key id or its visible prefix; a key of another workspace is not found. */
    async revoke (workspaceId: string, idOrPrefix: string): Promise<KeyView> {
      const match = /^(?:svc_(?:live|test)_)?([a-z0-9]{12})$/.exec(idOrPrefix)
      const row = match === null ? undefined : await keys.get(match[1])
      if (row === undefined || row.workspaceId.toLowerCase() !== workspaceId.toLowerCase()) {
        throw problem('API_KEY_NOT_FOUND', `no API key ${idOrPrefix} in workspace ${workspaceId}`)
      }
      await keys.revoke(row.id)
      return view((await keys.get(row.id)) as ApiKeyRow, Date.now())
    },

    /** Resolves a bearer token to its key, or throws the 401 problem of Part 5/7. */
    async authenticate (token: string | undefined): Promise<AuthContext> {
      const parsed = parseToken(token)
      return verifyKey(parsed, await keys.get(parsed.keyId))
    }
  }
}

/** The key's form alone (no query): a missing or malformed key is answered before anything is read. */
export function parseToken (token: string | undefined): ParsedKey {
  if (token === undefined) throw problem('API_KEY_INVALID', 'An API key is required: Authorization: Bearer <API_KEY>')
  const parsed = parseApiKey(token)
  if (parsed === undefined) throw problem('API_KEY_INVALID', 'The API key is malformed')
  return parsed
}

/**
 * The key's row (read per request, never cached: revocation is immediate) against the token's
 * secret. `secretHash` is sha256(parsed.secret) when the caller has it already.
 */
export function verifyKey (parsed: ParsedKey, row: ApiKeyRow | undefined, secretHash = sha256(parsed.secret)): AuthContext {
  // Compare digests in constant time; an unknown id is answered exactly like a wrong secret.
  if (row === undefined || row.id !== parsed.keyId || row.mode !== parsed.mode || !safeEqual(row.secretHash, secretHash)) {
    throw problem('API_KEY_INVALID', 'The API key is not known')
  }
  if (row.revokedAt !== null) throw problem('API_KEY_REVOKED', 'The API key was revoked')
  if (row.expiresAt !== null && row.expiresAt.getTime() <= Date.now()) throw problem('API_KEY_EXPIRED', `The API key expired at ${row.expiresAt.toISOString()}`)
  return {
    keyId: row.id,
    prefix: keyPrefix(row.mode, row.id),
    name: row.name,
    mode: row.mode,
    scopes: new Set(row.scopes),
    workspaceId: row.workspaceId,
    defaultEnvironment: defaultEnvironment(row.mode)
  }
}
export type ApiKeysService = ReturnType<typeof apiKeysService>

/** Part 5.4: test keys may not use a production environment. */
export function assertEnvironmentAllowed (auth: AuthContext, env: { key: string, isProduction: boolean }): void {
  if (auth.mode === 'test' && env.isProduction) {
    throw problem('ENVIRONMENT_NOT_ALLOWED', `Test keys may not use the production environment "${env.key}"`)
  }
}
