// A presented API key against its row (spec Part 5): form, digest, state. The validity rule
// itself (revoked, expired) is keyState in store/repos/api-keys.ts, next to its SQL form.
import { problem } from '../errors.js'
import { defaultEnvironment, keyPrefix, parseApiKey } from '../util/api-key-format.js'
import type { KeyMode, ParsedKey, Scope } from '../util/api-key-format.js'
import { safeEqual, sha256 } from '../util/crypto.js'
import { keyState } from '../store/repos/api-keys.js'
import type { ApiKeyRow } from '../store/repos/api-keys.js'

/** Who a request authenticates as; set on every route that declares a scope. */
export interface AuthContext {
  keyId: string
  prefix: string
  name: string
  mode: KeyMode
  scopes: ReadonlySet<Scope>
  workspaceId: string
  defaultEnvironment: string
  /** Requests per 60 s across every node; null = SVC_RATE_LIMIT. */
  rateLimit: number | null
}

/** A key's form with its secret digested once (the lookup query and the comparison both use it). */
export interface PresentedKey extends ParsedKey { secretHash: Buffer }

/** The bearer token of an Authorization header; '' for a header that is not a bearer token. */
export function bearer (header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  // A header that is present but not a bearer token is a malformed key, not a missing one.
  return match === null ? '' : match[1]
}

/** The key's form alone (no query): a missing or malformed key is answered before anything is read. */
export function parseToken (token: string | undefined): PresentedKey {
  if (token === undefined) throw problem('API_KEY_INVALID', 'An API key is required: Authorization: Bearer <API_KEY>')
  const parsed = parseApiKey(token)
  if (parsed === undefined) throw problem('API_KEY_INVALID', 'The API key is malformed')
  return { ...parsed, secretHash: sha256(parsed.secret) }
}

/** The key's row (read per request, never cached: revocation is immediate) against the presented key. */
export function verifyKey (key: PresentedKey, row: ApiKeyRow | undefined, now = Date.now()): AuthContext {
  // Compare digests in constant time; an unknown id is answered exactly like a wrong secret.
  const matches =
    row !== undefined && row.id === key.keyId && row.mode === key.mode && safeEqual(row.secretHash, key.secretHash)
  if (row === undefined || !matches) {
    throw problem('API_KEY_INVALID', 'The API key is not known')
  }
  const state = keyState(row, now)
  if (state === 'revoked') throw problem('API_KEY_REVOKED', 'The API key was revoked')
  if (state === 'expired') {
    throw problem('API_KEY_EXPIRED', `The API key expired at ${row.expiresAt?.toISOString() ?? ''}`)
  }
  return {
    keyId: row.id,
    prefix: keyPrefix(row.mode, row.id),
    name: row.name,
    mode: row.mode,
    scopes: new Set(row.scopes),
    workspaceId: row.workspaceId,
    defaultEnvironment: defaultEnvironment(row.mode),
    rateLimit: row.rateLimit
  }
}

/** Part 5.4: test keys may not use a production environment. */
export function assertEnvironmentAllowed (auth: AuthContext, env: { key: string, isProduction: boolean }): void {
  if (auth.mode === 'test' && env.isProduction) {
    throw problem('ENVIRONMENT_NOT_ALLOWED', `Test keys may not use the production environment "${env.key}"`)
  }
}
